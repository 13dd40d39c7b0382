// ChartView: layout (title and tool row over the plot; legend row over the axis rects),
// interactions, palette styling and export.
#include "charts/chartview.h"

#include "charts/chartstyle.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tb::ui {

ChartView::ChartView(const QString& title, QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_title(new QLabel(title, this)),
      m_controls(new QHBoxLayout), m_rects(new QCPLayoutGrid),
      m_marginGroup(new QCPMarginGroup(m_plot)) {
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);

    auto* fitButton = new QToolButton(this);
    fitButton->setObjectName(QStringLiteral("fitButton"));
    fitButton->setText(tr("Fit"));
    fitButton->setToolTip(tr("Show all data and follow new points (double-click the chart, or "
                             "Home)"));
    fitButton->setAccessibleName(tr("Fit %1").arg(title));
    connect(fitButton, &QToolButton::clicked, this, &ChartView::fit);

    auto* exportMenu = new QMenu(this);
    exportMenu->addAction(tr("Export PNG..."), this, &ChartView::chooseAndExportPng);
    exportMenu->addAction(tr("Export SVG..."), this, &ChartView::chooseAndExportSvg);
    exportMenu->addAction(tr("Export CSV..."), this, &ChartView::chooseAndExportCsv);
    m_export = new QToolButton(this);
    m_export->setObjectName(QStringLiteral("exportButton"));
    m_export->setText(tr("Export"));
    m_export->setToolTip(tr("Save the chart as PNG or SVG, or its data as CSV (Ctrl+E)"));
    m_export->setAccessibleName(tr("Export %1").arg(title));
    m_export->setMenu(exportMenu);
    m_export->setPopupMode(QToolButton::InstantPopup);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(4, 0, 0, 0);
    header->addWidget(m_title);
    header->addStretch(1);
    header->addLayout(m_controls);
    header->addWidget(fitButton);
    header->addWidget(m_export);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(header);
    layout->addWidget(m_plot, 1);
    // Three rows of charts and the x-axis bar fit a 1280x800 window's charts tab unscrolled.
    setMinimumSize(260, 160);

    // Root layout: the legend in a thin row above the axis rects, so it never covers data.
    QCPAxisRect* first = m_plot->axisRect();
    QCPLayoutGrid* root = m_plot->plotLayout();
    root->take(first);
    root->simplify();
    root->addElement(0, 0, m_plot->legend);
    root->addElement(1, 0, m_rects);
    root->setRowStretchFactor(0, 0.001);
    root->setRowSpacing(0);
    m_rects->addElement(0, 0, first);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 0));
    m_plot->legend->setRowSpacing(0);
    m_plot->legend->setColumnSpacing(12);
    m_plot->legend->setIconSize(16, 8);
    // A grid's maximum width is the sum of its cells', so a legend without entries (a chart
    // before its first sample) would cap the one column it shares with the axis rects at its
    // margins. A maximum set explicitly (any width below QWIDGETSIZE_MAX, margins included)
    // replaces that hint (QCPLayout::getFinalMaximumOuterSize).
    constexpr int kAnyLegendWidth = 1 << 20; // px
    m_plot->legend->setMaximumSize(kAnyLegendWidth, QWIDGETSIZE_MAX);
    styleAxisRect(first);
    linkXAxis(first);

    // The plot is a tab stop: arrows pan, + and - zoom, Home fits, Ctrl+E exports.
    m_plot->setObjectName(QStringLiteral("plot"));
    m_plot->setFocusPolicy(Qt::StrongFocus);
    m_plot->setAccessibleName(tr("%1 chart").arg(title));
    m_plot->setAccessibleDescription(
        tr("Arrow keys pan, plus and minus zoom, Home shows all data, Ctrl+E exports"));
    m_plot->installEventFilter(this);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QCustomPlot::customContextMenuRequested, this, &ChartView::showContextMenu);
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_userZoomed = true; });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        if (event->buttons() & Qt::LeftButton)
            m_userZoomed = true;
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &ChartView::fit);
    connect(m_plot, &QCustomPlot::afterLayout, this, &ChartView::fitDecorations);
    applyPalette();
}

QString ChartView::title() const {
    return m_title->text();
}

void ChartView::setXAxisMode(XAxisMode mode) {
    if (mode == m_xAxisMode)
        return;
    m_xAxisMode = mode;
    xAxisModeChanged();
    // The old ranges mean nothing on the new axis.
    m_userZoomed = false;
    markDirty();
    refresh();
}

void ChartView::fit() {
    m_userZoomed = false;
    markDirty();
    refresh();
}

bool ChartView::replotIfDirty() {
    if (!m_dirty || !isVisible())
        return false;
    if (!m_userZoomed)
        fitToData();
    m_plot->replot(QCustomPlot::rpQueuedRefresh);
    m_dirty = false;
    return true;
}

void ChartView::refresh() {
    replotIfDirty();
}

void ChartView::fitDecorations() {
    bool changed = false;
    for (QCPAxisRect* rect : m_plot->axisRects()) {
        const int height = rect->height();
        for (QCPAxis* axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atRight)}) {
            if (!axis || !axis->visible())
                continue;
            // The chart's own title for the axis, kept while it is hidden here.
            if (!axis->label().isEmpty())
                axis->setProperty("tbTitle", axis->label());
            const QString title = axis->property("tbTitle").toString();
            // A vertical axis title runs along the rect: drawn only where the rect is tall
            // enough for it, never over its neighbour's.
            const bool fits =
                QFontMetrics(axis->labelFont()).horizontalAdvance(title) + 8 <= height;
            if (axis->label() != (fits ? title : QString())) {
                axis->setLabel(fits ? title : QString());
                changed = true;
            }
            // Tick labels at least ~28 px apart, so a short rect's never touch.
            const int ticks = std::clamp(height / 28, 2, 4);
            if (axis->ticker()->tickCount() != ticks) {
                axis->ticker()->setTickCount(ticks);
                changed = true;
            }
        }
    }
    // As many legend entries on a row as the width holds, so its rows are as few as can be.
    QCPLegend* legend = m_plot->legend;
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i) // the grid's cells, some maybe empty
        if (const QCPAbstractLegendItem* item = legend->item(i))
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    const int width = m_plot->width() - legend->margins().left() - legend->margins().right();
    const int columns = std::max(1, (width + legend->columnSpacing()) /
                                        std::max(1, widest + legend->columnSpacing()));
    if (widest > 0 && legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        changed = true;
    }
    // A plot too short for its legend and its rects drops the legend rather than squeezing
    // the two over each other (the series keep their colours; the PNG export, drawn at the
    // chart's size, follows the same rule).
    const bool legendFits = m_plot->height() >= legend->minimumOuterSizeHint().height() +
                                                    m_rects->minimumOuterSizeHint().height();
    if (legend->visible() && !legendFits) {
        legend->setVisible(false);
        m_legendDropped = true;
        changed = true;
    } else if (m_legendDropped && legendFits) { // never shows a legend the chart hid itself
        legend->setVisible(true);
        m_legendDropped = false;
        changed = true;
    }
    if (changed)
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::pan(double dx, double dy) {
    for (QCPAxisRect* rect : m_plot->axisRects()) {
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        if (dx != 0.0)
            x->setRange(shifted(x, dx));
        if (dy != 0.0)
            y->setRange(shifted(y, dy));
    }
    userMovedTheView();
}

void ChartView::zoom(double factor) {
    for (QCPAxisRect* rect : m_plot->axisRects())
        for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)})
            axis->scaleRange(factor, axis->range().center());
    userMovedTheView();
}

// A fraction of the visible range, in screen terms: on a log axis a pan multiplies.
QCPRange ChartView::shifted(QCPAxis* axis, double fraction) {
    const QCPRange r = axis->range();
    if (axis->scaleType() == QCPAxis::stLogarithmic) {
        const double f = std::pow(r.upper / r.lower, fraction);
        return QCPRange(r.lower * f, r.upper * f);
    }
    const double d = r.size() * fraction;
    return QCPRange(r.lower + d, r.upper + d);
}

void ChartView::userMovedTheView() {
    m_userZoomed = true;
    m_plot->replot(QCustomPlot::rpQueuedRefresh);
}

// The plot's keys. Asked first as a shortcut override, so the window's shortcuts (Ctrl+E
// elsewhere, say) do not take them while the plot has the focus.
bool ChartView::eventFilter(QObject* watched, QEvent* event) {
    const bool press = event->type() == QEvent::KeyPress;
    if (watched != m_plot || (!press && event->type() != QEvent::ShortcutOverride))
        return QWidget::eventFilter(watched, event);
    constexpr double kPanStep = 0.1; // of the visible range per key press
    constexpr double kZoomIn = 0.8;
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool ctrl = key->modifiers() & Qt::ControlModifier;
    std::function<void()> action;
    switch (key->key()) {
    case Qt::Key_Left:
        action = [this] { pan(-kPanStep, 0.0); };
        break;
    case Qt::Key_Right:
        action = [this] { pan(kPanStep, 0.0); };
        break;
    case Qt::Key_Up:
        action = [this] { pan(0.0, kPanStep); };
        break;
    case Qt::Key_Down:
        action = [this] { pan(0.0, -kPanStep); };
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        action = [this] { zoom(kZoomIn); };
        break;
    case Qt::Key_Minus:
        action = [this] { zoom(1.0 / kZoomIn); };
        break;
    case Qt::Key_Home:
        action = [this] { fit(); };
        break;
    case Qt::Key_E:
        if (ctrl)
            action = [this] { m_export->showMenu(); };
        break;
    default:
        break;
    }
    if (!action || (ctrl && key->key() != Qt::Key_E))
        return QWidget::eventFilter(watched, event);
    event->accept();
    if (press)
        action();
    return true;
}

bool ChartView::exportPng(const QString& path) {
    // A chart never shown has no laid-out plot yet: render at the chart's own size then.
    const QSize size = m_plot->isVisible() ? m_plot->size() : this->size();
    // savePng says nothing of why: ask the file first, so the failure can name the reason.
    QSaveFile probe(path);
    if (!probe.open(QIODevice::WriteOnly))
        return failExport(path, probe.errorString());
    probe.cancelWriting();
    if (!m_plot->savePng(path, size.width(), size.height()))
        return failExport(path, tr("the PNG could not be written"));
    return true;
}

bool ChartView::exportSvg(const QString& path) {
    const QSize size = m_plot->isVisible() ? m_plot->size() : this->size();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failExport(path, file.errorString());
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title());
    QCPPainter painter(&svg);
    m_plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    if (!file.commit())
        return failExport(path, file.errorString());
    return true;
}

bool ChartView::exportCsv(const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return failExport(path, file.errorString());
    QTextStream out(&file);
    writeCsv(out);
    out.flush();
    if (out.status() != QTextStream::Ok || !file.commit())
        return failExport(path, file.errorString());
    return true;
}

bool ChartView::failExport(const QString& path, const QString& reason) {
    emit exportFailed(path, reason);
    return false;
}

QCPAxisRect* ChartView::addAxisRect(int row, int column, bool linkX) {
    auto* rect = new QCPAxisRect(m_plot);
    m_rects->addElement(row, column, rect);
    styleAxisRect(rect);
    if (linkX)
        linkXAxis(rect);
    applyPalette();
    return rect;
}

void ChartView::setRowStretch(int row, double factor) {
    m_rects->setRowStretchFactor(row, factor);
}

void ChartView::removeExtraAxisRects() {
    const QList<QCPAxisRect*> rects = m_plot->axisRects();
    for (int i = 1; i < rects.size(); ++i) {
        // Plottables on the rect's axes go first: they must not outlive them.
        for (QCPAbstractPlottable* p : rects[i]->plottables())
            m_plot->removePlottable(p);
        m_linkedX.removeAll(rects[i]->axis(QCPAxis::atBottom));
        m_rects->remove(rects[i]);
    }
    m_rects->simplify();
}

void ChartView::styleAxisRect(QCPAxisRect* rect) {
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, m_marginGroup);
    // QCustomPlot's default 50 px minimum would make two stacked rects and the legend ask for
    // more than a chart in a 1280x800 window has, and the layout then squeezes them over each
    // other; a short rect still shows its trend, with fewer ticks (fitDecorations).
    rect->setMinimumSize(QSize(20, 15));
    rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    rect->axis(QCPAxis::atBottom)->grid()->setSubGridVisible(false);
    // Charts share a narrow window: four ticks keep labels like "-125" (and short stacked
    // axes' "1500") apart.
    rect->axis(QCPAxis::atBottom)->ticker()->setTickCount(4);
    rect->axis(QCPAxis::atLeft)->ticker()->setTickCount(4);
}

// Every rect shows the same x range: panning one pans them all.
void ChartView::linkXAxis(QCPAxisRect* rect) {
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    m_linkedX.append(x);
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this, x](const QCPRange& range) {
                if (m_linkingX)
                    return;
                m_linkingX = true;
                for (QCPAxis* other : std::as_const(m_linkedX))
                    if (other != x)
                        other->setRange(range);
                m_linkingX = false;
            });
}

void ChartView::applyPalette() {
    const QPalette pal = palette();
    const QColor background = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    const QColor axisColor = mixColors(background, text, 0.55);
    const QColor gridColor = mixColors(background, text, 0.14);
    m_plot->setBackground(background);
    for (QCPAxisRect* rect : m_plot->axisRects()) {
        rect->setBackground(background);
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(axisColor, 1));
            axis->setTickPen(QPen(axisColor, 1));
            axis->setSubTickPen(QPen(axisColor, 1));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(gridColor, 1, Qt::SolidLine));
            axis->grid()->setZeroLinePen(QPen(gridColor, 1, Qt::SolidLine));
        }
    }
    m_plot->legend->setBrush(Qt::NoBrush);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setTextColor(text);
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto* label = qobject_cast<QCPItemText*>(m_plot->item(i)))
            label->setColor(text);
}

// Polish comes once the subclass is fully built, so items it added (labels) get the palette too.
bool ChartView::event(QEvent* event) {
    if (event->type() == QEvent::Polish)
        applyPalette();
    return QWidget::event(event);
}

void ChartView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        markDirty();
        refresh();
    }
}

void ChartView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refresh();
}

void ChartView::chooseAndExportPng() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export PNG"), title() + QStringLiteral(".png"), tr("PNG images (*.png)"));
    if (!path.isEmpty())
        exportPng(path);
}

void ChartView::chooseAndExportSvg() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export SVG"), title() + QStringLiteral(".svg"), tr("SVG images (*.svg)"));
    if (!path.isEmpty())
        exportSvg(path);
}

void ChartView::chooseAndExportCsv() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export CSV"), title() + QStringLiteral(".csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void ChartView::showContextMenu(const QPoint& pos) {
    QMenu menu(this);
    menu.addAction(tr("Fit"), this, &ChartView::fit);
    menu.addSeparator();
    menu.addAction(tr("Export PNG..."), this, &ChartView::chooseAndExportPng);
    menu.addAction(tr("Export SVG..."), this, &ChartView::chooseAndExportSvg);
    menu.addAction(tr("Export CSV..."), this, &ChartView::chooseAndExportCsv);
    menu.exec(m_plot->mapToGlobal(pos));
}

} // namespace tb::ui
