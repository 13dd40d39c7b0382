// ChartView: layout (title and tool row over the plot; legend row over the axis rects),
// interactions, palette styling and export.
#include "charts/chartview.h"

#include "charts/chartstyle.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QSaveFile>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

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
    fitButton->setToolTip(tr("Show all data and follow new points (double-click the chart)"));
    connect(fitButton, &QToolButton::clicked, this, &ChartView::fit);

    auto* exportMenu = new QMenu(this);
    exportMenu->addAction(tr("Export PNG..."), this, &ChartView::chooseAndExportPng);
    exportMenu->addAction(tr("Export CSV..."), this, &ChartView::chooseAndExportCsv);
    auto* exportButton = new QToolButton(this);
    exportButton->setObjectName(QStringLiteral("exportButton"));
    exportButton->setText(tr("Export"));
    exportButton->setMenu(exportMenu);
    exportButton->setPopupMode(QToolButton::InstantPopup);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(4, 0, 0, 0);
    header->addWidget(m_title);
    header->addStretch(1);
    header->addLayout(m_controls);
    header->addWidget(fitButton);
    header->addWidget(exportButton);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(header);
    layout->addWidget(m_plot, 1);
    setMinimumSize(260, 200);

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
    styleAxisRect(first);
    linkXAxis(first);

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

bool ChartView::exportPng(const QString& path) {
    // A chart never shown has no laid-out plot yet: render at the chart's own size then.
    const QSize size = m_plot->isVisible() ? m_plot->size() : this->size();
    if (!m_plot->savePng(path, size.width(), size.height())) {
        qWarning("ChartView: cannot write PNG '%s'", qPrintable(path));
        return false;
    }
    return true;
}

bool ChartView::exportCsv(const QString& path) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        qWarning("ChartView: cannot write CSV '%s': %s", qPrintable(path),
                 qPrintable(file.errorString()));
        return false;
    }
    QTextStream out(&file);
    writeCsv(out);
    out.flush();
    if (out.status() != QTextStream::Ok || !file.commit()) {
        qWarning("ChartView: writing CSV '%s' failed: %s", qPrintable(path),
                 qPrintable(file.errorString()));
        return false;
    }
    return true;
}

QCPAxisRect* ChartView::addAxisRect(int row, int column) {
    auto* rect = new QCPAxisRect(m_plot);
    m_rects->addElement(row, column, rect);
    styleAxisRect(rect);
    linkXAxis(rect);
    applyPalette();
    return rect;
}

void ChartView::removeExtraAxisRects() {
    const QList<QCPAxisRect*> rects = m_plot->axisRects();
    for (int i = 1; i < rects.size(); ++i) {
        // Plottables on the rect's axes go first: they must not outlive them.
        for (QCPAbstractPlottable* p : rects[i]->plottables())
            m_plot->removePlottable(p);
        m_rects->remove(rects[i]);
    }
    m_rects->simplify();
}

void ChartView::styleAxisRect(QCPAxisRect* rect) {
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, m_marginGroup);
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
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this, x](const QCPRange& range) {
                if (m_linkingX)
                    return;
                m_linkingX = true;
                for (QCPAxisRect* other : m_plot->axisRects())
                    if (other->axis(QCPAxis::atBottom) != x)
                        other->axis(QCPAxis::atBottom)->setRange(range);
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
    menu.addAction(tr("Export CSV..."), this, &ChartView::chooseAndExportCsv);
    menu.exec(m_plot->mapToGlobal(pos));
}

} // namespace tb::ui
