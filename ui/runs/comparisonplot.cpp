// ComparisonPlot: graphs per line rebuilt on every change of content; visibility by legend.
#include "runs/comparisonplot.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"
#include "core/smoothing.h"

#include <QTextStream>
#include <QToolTip>
#include <qcustomplot.h>

#include <cmath>
#include <limits>

namespace tb::ui {

namespace {

constexpr double kHoverPixels = 12.0;

QVector<QCPGraphData> graphData(const std::vector<double>& x, const std::vector<double>& y,
                                bool logY) {
    QVector<QCPGraphData> data;
    data.reserve(static_cast<int>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double v = y[i];
        // A gap, never a point at 0 or infinity (and nothing at or below 0 on a log axis).
        const bool drawable = std::isfinite(v) && std::isfinite(x[i]) && (!logY || v > 0.0);
        data.append({x[i], drawable ? v : qQNaN()});
    }
    return data;
}

QString numberText(double v) {
    return QString::number(v, 'g', 6);
}

} // namespace

QColor comparisonColor(int i) {
    const QColor base = seriesColor(i % 8);
    const int variant = (i / 8) % 3;
    return variant == 0 ? base : variant == 1 ? base.darker(145) : base.lighter(135);
}

ComparisonPlot::ComparisonPlot(QWidget* parent) : ChartView(tr("Comparison"), parent) {
    setObjectName(QStringLiteral("comparison-plot"));
    // Dozens of long noisy lines: segments drawn as lines, without the joins a polyline
    // strokes (the joins cost most of a redraw and show nowhere at these pen widths).
    plot()->setPlottingHint(QCP::phFastPolylines, true);
    plot()->setInteraction(QCP::iSelectLegend, true);
    plot()->legend->setSelectableParts(QCPLegend::spItems);
    plot()->legend->setWrap(5);
    connect(
        plot(), &QCustomPlot::legendClick, this,
        [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) { toggleFromLegend(item); });
    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        if (event->buttons() != Qt::NoButton)
            return;
        const QString text = hoverText(event->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, plot());
    });
}

void ComparisonPlot::setLines(std::vector<ComparisonLine> lines, const SeriesInfo& series,
                              SeriesX x, double smoothing, bool logY) {
    m_lines = std::move(lines);
    m_series = series;
    m_x = x;
    m_smoothing = smoothing;
    m_logY = logY;
    rebuild();
}

void ComparisonPlot::rebuild() {
    plot()->clearGraphs();
    m_drawn.assign(m_lines.size(), {});
    QCPAxis* yAxis = plot()->yAxis;
    if (m_logY) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    yAxis->ticker()->setTickCount(4);
    plot()->xAxis->setLabel(QString::fromUtf8(seriesXLabel(m_x)));
    yAxis->setLabel(QString::fromStdString(m_series.name) +
                    (m_series.unit.empty()
                         ? QString()
                         : QStringLiteral(" (%1)").arg(QString::fromStdString(m_series.unit))));
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        const ComparisonLine& line = m_lines[i];
        Drawn& d = m_drawn[i];
        d.visible = !m_hidden.contains(line.id);
        if (!line.bandLow.empty()) {
            QColor fill = line.color;
            fill.setAlpha(45);
            d.bandHigh = plot()->addGraph();
            d.bandHigh->setPen(Qt::NoPen);
            d.bandHigh->data()->set(graphData(line.points.x, line.bandHigh, m_logY), true);
            d.bandHigh->removeFromLegend();
            d.bandLow = plot()->addGraph();
            d.bandLow->setPen(Qt::NoPen);
            d.bandLow->setBrush(fill);
            d.bandLow->setChannelFillGraph(d.bandHigh);
            d.bandLow->data()->set(graphData(line.points.x, line.bandLow, m_logY), true);
            d.bandLow->removeFromLegend();
        }
        std::vector<double> shown = line.points.y;
        if (m_smoothing > 0.0) {
            QColor faint = line.color;
            faint.setAlpha(60);
            d.raw = plot()->addGraph();
            d.raw->setPen(seriesPen(faint));
            d.raw->data()->set(graphData(line.points.x, line.points.y, m_logY), true);
            d.raw->removeFromLegend();
            DebiasedEma ema(m_smoothing);
            for (double& v : shown)
                v = ema.add(v);
        }
        d.main = plot()->addGraph();
        d.main->setName(line.label);
        d.main->setPen(seriesPen(line.color, 1.5));
        d.main->data()->set(graphData(line.points.x, shown, m_logY), true);
        // Best and last of the raw values.
        std::size_t best = SIZE_MAX, last = SIZE_MAX;
        for (std::size_t k = 0; k < line.points.y.size(); ++k) {
            const double v = line.points.y[k];
            // A point with no place on the axes (no x yet, or not positive on a log axis)
            // cannot be marked.
            if (!std::isfinite(v) || !std::isfinite(line.points.x[k]) || (m_logY && v <= 0.0))
                continue;
            last = k;
            if (best == SIZE_MAX ||
                (m_series.higherIsBetter ? v > line.points.y[best] : v < line.points.y[best]))
                best = k;
        }
        if (last != SIZE_MAX) {
            d.markers = plot()->addGraph();
            d.markers->setLineStyle(QCPGraph::lsNone);
            d.markers->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCircle, line.color, line.color.lighter(160), 7));
            d.markers->addData(line.points.x[best], line.points.y[best]);
            if (last != best)
                d.markers->addData(line.points.x[last], line.points.y[last]);
            d.markers->removeFromLegend();
        }
        for (QCPGraph* g : {d.raw, d.main, d.bandLow, d.bandHigh, d.markers})
            if (g)
                g->setVisible(d.visible);
        if (auto* item = plot()->legend->itemWithPlottable(d.main))
            item->setTextColor(d.visible ? palette().color(QPalette::Text)
                                         : palette().color(QPalette::Disabled, QPalette::Text));
    }
    markDirty();
    refresh();
}

void ComparisonPlot::toggleFromLegend(QCPAbstractLegendItem* item) {
    auto* plItem = qobject_cast<QCPPlottableLegendItem*>(item);
    if (!plItem)
        return;
    for (std::size_t i = 0; i < m_drawn.size(); ++i)
        if (m_drawn[i].main == plItem->plottable()) {
            setLineVisible(m_lines[i].id, !m_drawn[i].visible);
            break;
        }
    plot()->legend->setSelectedParts(QCPLegend::spNone);
}

void ComparisonPlot::setLineVisible(const QString& id, bool visible) {
    m_hidden.removeAll(id);
    if (!visible)
        m_hidden << id;
    rebuild();
}

bool ComparisonPlot::isLineVisible(const QString& id) const {
    return !m_hidden.contains(id);
}

QCPGraph* ComparisonPlot::mainGraph(const QString& id) const {
    for (std::size_t i = 0; i < m_lines.size(); ++i)
        if (m_lines[i].id == id)
            return m_drawn[i].main;
    return nullptr;
}

QString ComparisonPlot::hoverText(const QPointF& pixel) const {
    double bestDistance = kHoverPixels;
    QString text;
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        if (!m_drawn[i].visible || !m_drawn[i].main)
            continue;
        const QCPGraph* g = m_drawn[i].main;
        const double key = plot()->xAxis->pixelToCoord(pixel.x());
        // The nearest point by x, then its distance in pixels.
        auto it = g->data()->findBegin(key, true);
        for (int step = 0; step < 2 && it != g->data()->constEnd(); ++step, ++it) {
            if (std::isnan(it->value))
                continue;
            const double dx = plot()->xAxis->coordToPixel(it->key) - pixel.x();
            const double dy = plot()->yAxis->coordToPixel(it->value) - pixel.y();
            const double distance = std::hypot(dx, dy);
            if (distance < bestDistance) {
                bestDistance = distance;
                text = QStringLiteral("%1\n%2 %3\n%4 %5")
                           .arg(m_lines[i].label, QString::fromUtf8(seriesXLabel(m_x)),
                                numberText(it->key), QString::fromStdString(m_series.name),
                                numberText(it->value));
            }
        }
    }
    return text;
}

void ComparisonPlot::fitToData() {
    bool any = false;
    QCPRange x, y;
    for (std::size_t i = 0; i < m_drawn.size(); ++i) {
        if (!m_drawn[i].visible)
            continue;
        for (QCPGraph* g :
             {m_drawn[i].main, m_drawn[i].raw, m_drawn[i].bandLow, m_drawn[i].bandHigh}) {
            if (!g || g->dataCount() == 0)
                continue;
            bool foundX = false, foundY = false;
            const QCPRange gx = g->getKeyRange(foundX);
            const QCPRange gy = g->getValueRange(foundY, QCP::sdBoth);
            if (!foundX || !foundY)
                continue;
            if (!any) {
                x = gx;
                y = gy;
                any = true;
            } else {
                x.expand(gx);
                y.expand(gy);
            }
        }
    }
    if (!any)
        return;
    const double xPad = x.size() > 0 ? x.size() * 0.02 : 1.0;
    plot()->xAxis->setRange(x.lower - xPad, x.upper + xPad);
    if (m_logY) {
        plot()->yAxis->setRange(y.lower / 1.2, y.upper * 1.2);
    } else {
        const double yPad = y.size() > 0 ? y.size() * 0.05 : std::max(1.0, std::abs(y.lower));
        plot()->yAxis->setRange(y.lower - yPad, y.upper + yPad);
    }
}

void ComparisonPlot::writeCsv(QTextStream& out) const {
    out << "run,series," << toString(m_x) << ",value\n";
    for (const ComparisonLine& line : m_lines)
        for (std::size_t i = 0; i < line.points.x.size(); ++i)
            out << csvField(line.id) << ',' << csvField(QString::fromStdString(m_series.name))
                << ',' << csvField(line.points.x[i]) << ',' << csvField(line.points.y[i]) << '\n';
}

} // namespace tb::ui
