// ParallelCoordinates: the axes and lines (model), a canvas that paints them and takes brushes.
#include "runs/parallelcoordinates.h"

#include "charts/chartstyle.h"
#include "core/textformat.h"
#include "store/runrecord.h"
#include "store/runsummary.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>

#include <algorithm>
#include <cmath>

namespace tb::ui {

namespace {

constexpr int kMarginLeft = 56, kMarginRight = 72, kMarginTop = 34, kMarginBottom = 14;
constexpr int kGrabDistance = 14; // px either side of an axis that start a brush

// Viridis, dark (worse) to bright (better): ordered and readable on light and dark alike.
QColor metricColor(double t) {
    static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b),
                                   QColor(0x21, 0x91, 0x8c), QColor(0x5e, 0xc9, 0x62),
                                   QColor(0xfd, 0xe7, 0x25)};
    const double x = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, static_cast<int>(x));
    return mixColors(stops[i], stops[i + 1], x - i);
}

} // namespace

class ParallelCoordinatesCanvas : public QWidget {
public:
    explicit ParallelCoordinatesCanvas(ParallelCoordinates& view) : QWidget(&view), m_view(view) {
        setObjectName(QStringLiteral("parallel-coordinates-canvas"));
        setMinimumSize(320, 220);
        setMouseTracking(false);
        setAccessibleName(tr("Parallel coordinates: drag along an axis to select runs"));
    }

    double axisX(std::size_t i) const {
        const std::size_t n = m_view.m_axes.size();
        const double w = width() - kMarginLeft - kMarginRight;
        return kMarginLeft + (n <= 1 ? w / 2.0 : w * double(i) / double(n - 1));
    }
    double yOf(double fraction) const {
        return kMarginTop + (1.0 - fraction) * (height() - kMarginTop - kMarginBottom);
    }
    double fractionAt(double y) const {
        return std::clamp(1.0 - (y - kMarginTop) / (height() - kMarginTop - kMarginBottom), 0.0,
                          1.0);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const QPalette& pal = palette();
        p.fillRect(rect(), pal.base());
        const auto& axes = m_view.m_axes;
        if (axes.empty()) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(rect(), Qt::AlignCenter,
                       tr("No runs to draw: the runs the table shows appear here."));
            return;
        }
        const SummaryMetric* metric = findSummaryMetric(m_view.metric().toStdString());
        const bool higherIsBetter = !metric || metric->higherIsBetter;
        const QColor text = pal.color(QPalette::Text);
        const QColor dimmed = mixColors(text, pal.color(QPalette::Base), 0.82);
        const bool brushing = !m_view.m_brushes.empty();

        // Lines: those outside a brush first and faint, then the rest, the selected last.
        p.setRenderHint(QPainter::Antialiasing, true);
        // Polylines with 1 px cosmetic pens keep to QPainter's fast line path (a path stroke or
        // a wider pen costs several times as much at 500 runs).
        QPolygonF points;
        const auto draw = [&](const ParallelCoordinates::Line& line, const QPen& pen) {
            p.setPen(pen);
            points.clear();
            for (std::size_t a = 0; a <= axes.size(); ++a) {
                if (a < axes.size() && line.at[a]) {
                    points << QPointF(axisX(a), yOf(*line.at[a]));
                    continue;
                }
                if (points.size() > 1) // a gap where the run has no value, or the end
                    p.drawPolyline(points);
                points.clear();
            }
        };
        for (int pass = 0; pass < 3; ++pass)
            for (const auto& line : m_view.m_lines) {
                const bool inside = !brushing || m_view.inBrushes(line);
                const bool selected = m_view.m_selected.contains(line.runId);
                if ((pass == 0) != !inside || (pass == 2) != (inside && selected))
                    continue;
                QColor c = dimmed;
                if (inside)
                    c = line.metric ? metricColor(higherIsBetter ? *line.metric : 1 - *line.metric)
                                    : text;
                draw(line, seriesPen(c, selected && inside ? 2.5 : 1.0));
            }

        // Axes, their ticks, titles and brushes.
        p.setRenderHint(QPainter::Antialiasing, false);
        QFont small = font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        for (std::size_t a = 0; a < axes.size(); ++a) {
            const double x = axisX(a);
            p.setPen(QPen(text, 1));
            p.drawLine(QPointF(x, yOf(0)), QPointF(x, yOf(1)));
            QFont title = font();
            title.setBold(a + 1 == axes.size());
            p.setFont(title);
            const QString kind = axes[a].kind() == ParallelAxis::Kind::Log ? tr(" (log)") : "";
            const QRectF titleBox(x - 90, 4, 180, kMarginTop - 10);
            p.drawText(titleBox, Qt::AlignHCenter | Qt::AlignBottom, axes[a].key() + kind);
            p.setFont(small);
            for (const auto& [f, label] : axes[a].ticks()) {
                const double y = yOf(f);
                p.drawLine(QPointF(x - 3, y), QPointF(x, y));
                const QString shown = p.fontMetrics().elidedText(label, Qt::ElideMiddle, 50);
                p.drawText(QRectF(x - 56, y - 8, 50, 16), Qt::AlignRight | Qt::AlignVCenter, shown);
            }
            if (const auto it = m_view.m_brushes.find(axes[a].key());
                it != m_view.m_brushes.end()) {
                QColor fill = pal.color(QPalette::Highlight);
                fill.setAlpha(70);
                const QRectF box(x - 7, yOf(it->second.second), 14,
                                 yOf(it->second.first) - yOf(it->second.second));
                p.fillRect(box, fill);
                p.setPen(QPen(pal.color(QPalette::Highlight), 1));
                p.drawRect(box);
            }
        }
        // The colour bar: what the colours mean.
        const QRectF bar(width() - 22, yOf(1), 10, yOf(0) - yOf(1));
        QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
        for (int i = 0; i <= 8; ++i)
            gradient.setColorAt(i / 8.0, metricColor(i / 8.0));
        p.fillRect(bar, gradient);
        p.setPen(text);
        p.setFont(small);
        p.drawText(QRectF(bar.left() - 46, bar.top() - 2, 42, 16), Qt::AlignRight, tr("better"));
        p.drawText(QRectF(bar.left() - 46, bar.bottom() - 14, 42, 16), Qt::AlignRight, tr("worse"));
    }

    void mousePressEvent(QMouseEvent* e) override {
        m_axis.reset();
        for (std::size_t a = 0; a < m_view.m_axes.size(); ++a)
            if (std::abs(e->position().x() - axisX(a)) <= kGrabDistance)
                m_axis = a;
        m_from = fractionAt(e->position().y());
        m_dragged = false;
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        if (!m_axis)
            return;
        const double to = fractionAt(e->position().y());
        if (std::abs(to - m_from) < 0.01 && !m_dragged)
            return;
        m_dragged = true;
        m_view.setBrush(m_view.m_axes[*m_axis].key(), m_from, to);
    }
    void mouseReleaseEvent(QMouseEvent*) override {
        if (m_axis && !m_dragged) { // a click on an axis: its brush goes
            m_view.m_brushes.erase(m_view.m_axes[*m_axis].key());
            update();
            emit m_view.brushed(m_view.brushedRunIds());
        }
        m_axis.reset();
    }

private:
    ParallelCoordinates& m_view;
    std::optional<std::size_t> m_axis;
    double m_from = 0.0;
    bool m_dragged = false;
};

ParallelCoordinates::ParallelCoordinates(QWidget* parent)
    : QWidget(parent), m_metric(new QComboBox(this)),
      m_clear(new QPushButton(tr("Clear selection ranges"), this)), m_status(new QLabel(this)),
      m_canvas(new ParallelCoordinatesCanvas(*this)) {
    setObjectName(QStringLiteral("parallel-coordinates"));
    m_metric->setObjectName(QStringLiteral("parallel-coordinates-metric"));
    m_metric->setAccessibleName(tr("Metric drawn last and colouring the lines"));
    for (const QString& key : summaryKeys())
        m_metric->addItem(key);
    m_clear->setObjectName(QStringLiteral("parallel-coordinates-clear"));
    m_clear->setEnabled(false);
    m_status->setObjectName(QStringLiteral("parallel-coordinates-status"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric"), this));
    controls->addWidget(m_metric);
    controls->addWidget(m_status, 1);
    controls->addWidget(m_clear);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_canvas, 1);

    connect(m_metric, &QComboBox::currentTextChanged, this, [this] { rebuild(); });
    connect(m_clear, &QPushButton::clicked, this, &ParallelCoordinates::clearBrushes);
}

QWidget* ParallelCoordinates::canvas() const {
    return m_canvas;
}

void ParallelCoordinates::setRuns(const std::vector<RunRecord>& runs) {
    m_runs = runs;
    m_values.clear();
    for (const RunRecord& r : runs)
        m_values.push_back(valuesOfRun(r));
    rebuild();
}

void ParallelCoordinates::setSelectedRunIds(const QStringList& ids) {
    m_selected = ids;
    m_canvas->update();
}

void ParallelCoordinates::setMetric(const QString& metric) {
    m_metric->setCurrentText(metric);
}

QString ParallelCoordinates::metric() const {
    return m_metric->currentText();
}

void ParallelCoordinates::rebuild() {
    QStringList keys = differingConfigKeys(m_values);
    keys << metric();
    m_axes.clear();
    for (const QString& key : keys) {
        std::vector<QString> column;
        for (const RunValues& v : m_values) {
            const auto it = v.find(key);
            column.push_back(it == v.end() ? QString() : it->second);
        }
        m_axes.push_back(ParallelAxis::fit(key, column));
    }
    // A brush on an axis that went away goes with it.
    std::erase_if(m_brushes, [&](const auto& b) { return !keys.contains(b.first); });
    m_lines.clear();
    for (std::size_t r = 0; r < m_runs.size(); ++r) {
        Line line;
        line.runId = QString::fromStdString(m_runs[r].id);
        for (const ParallelAxis& axis : m_axes) {
            const auto it = m_values[r].find(axis.key());
            line.at.push_back(it == m_values[r].end() ? std::nullopt : axis.fractionOf(it->second));
        }
        line.metric = line.at.empty() ? std::nullopt : line.at.back();
        m_lines.push_back(std::move(line));
    }
    const qsizetype differing = keys.size() - 1;
    m_status->setText(
        m_runs.empty() ? QString()
                       : tr("%1, %2 that differ")
                             .arg(QString::fromStdString(formatCountOf(std::ssize(m_runs), "run")),
                                  QString::fromStdString(formatCountOf(differing, "key"))));
    m_clear->setEnabled(!m_brushes.empty());
    m_canvas->update();
}

bool ParallelCoordinates::inBrushes(const Line& line) const {
    for (std::size_t a = 0; a < m_axes.size(); ++a) {
        const auto it = m_brushes.find(m_axes[a].key());
        if (it == m_brushes.end())
            continue;
        if (!line.at[a] || *line.at[a] < it->second.first - 1e-9 ||
            *line.at[a] > it->second.second + 1e-9)
            return false;
    }
    return true;
}

void ParallelCoordinates::setBrush(const QString& key, double from, double to) {
    m_brushes[key] = {std::min(from, to), std::max(from, to)};
    m_clear->setEnabled(true);
    m_canvas->update();
    emit brushed(brushedRunIds());
}

void ParallelCoordinates::clearBrushes() {
    m_brushes.clear();
    m_clear->setEnabled(false);
    m_canvas->update();
    emit brushed(brushedRunIds());
}

QStringList ParallelCoordinates::brushedRunIds() const {
    QStringList out;
    for (const Line& line : m_lines)
        if (inBrushes(line))
            out << line.runId;
    return out;
}

std::optional<double> ParallelCoordinates::fractionOf(const QString& runId,
                                                      const QString& key) const {
    for (const Line& line : m_lines)
        if (line.runId == runId)
            for (std::size_t a = 0; a < m_axes.size(); ++a)
                if (m_axes[a].key() == key)
                    return line.at[a];
    return std::nullopt;
}

} // namespace tb::ui
