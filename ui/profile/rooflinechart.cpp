#include "profile/rooflinechart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <QToolTip>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace tb::ui {

namespace {

bool drawable(const LayerProfile& row) {
    return row.flops > 0 && row.bytes > 0 && row.gflops > 0.0;
}

// The roofs as a line across [lo, hi] FLOP/byte, widened to the points' intensities.
void drawRoofs(QCPGraph* graph, const ProfileReport& report) {
    const Roofline& roof = report.roofline;
    if (!roof.known())
        return;
    // Across the whole intensity range the points span, and a decade either side.
    double lo = roof.ridge() / 100.0, hi = roof.ridge() * 100.0;
    for (const LayerProfile& row : report.rows)
        if (drawable(row)) {
            lo = std::min(lo, row.intensity / 10.0);
            hi = std::max(hi, row.intensity * 10.0);
        }
    graph->addData(lo, roof.bandwidthGBs * lo);
    graph->addData(roof.ridge(), roof.peakGflops);
    graph->addData(hi, roof.peakGflops);
}

} // namespace

RooflineChart::RooflineChart(QWidget* parent)
    : ChartView(tr("Roofline"), parent), m_roof(plot()->addGraph()), m_otherPoints(nullptr),
      m_otherRoof(nullptr) {
    m_roof->setName(tr("roofs"));
    m_roof->setPen(seriesPen(palette().color(QPalette::WindowText), 1.5));
    const struct {
        Bound bound;
        QString name;
        int color;
        QCPScatterStyle::ScatterShape shape;
    } kinds[] = {{Bound::Compute, tr("compute-bound"), 0, QCPScatterStyle::ssDisc},
                 {Bound::Memory, tr("memory-bound"), 1, QCPScatterStyle::ssSquare},
                 {Bound::Overhead, tr("overhead-bound"), 3, QCPScatterStyle::ssTriangle}};
    for (const auto& k : kinds) {
        QCPGraph* g = plot()->addGraph();
        g->setName(k.name);
        g->setLineStyle(QCPGraph::lsNone);
        const QColor c = seriesColor(k.color);
        g->setScatterStyle(QCPScatterStyle(k.shape, c, c, 7));
        m_bounds.push_back(g);
    }
    const QColor other = seriesColor(4);
    m_otherPoints = plot()->addGraph();
    m_otherPoints->setLineStyle(QCPGraph::lsNone);
    m_otherPoints->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, other, 8));
    m_otherRoof = plot()->addGraph();
    QPen dashed = seriesPen(other, 1.5);
    dashed.setStyle(Qt::DashLine);
    m_otherRoof->setPen(dashed);
    for (QCPGraph* g : {m_otherPoints, m_otherRoof})
        g->removeFromLegend();
    for (QCPAxis* axis : {plot()->xAxis, plot()->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("gb"));
    }
    plot()->xAxis->setLabel(tr("arithmetic intensity (FLOP/byte)"));
    plot()->yAxis->setLabel(tr("achieved (GFLOP/s)"));
    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mouseMove, this, &RooflineChart::showToolTip);
}

void RooflineChart::setReport(const ProfileReport& report) {
    m_report = report;
    redraw();
}

void RooflineChart::setComparison(const std::optional<ProfileReport>& other, const QString& label) {
    m_other = other;
    m_otherPoints->setName(label);
    m_otherRoof->setName(tr("roofs of %1").arg(label.section(QLatin1Char(':'), 0, 0)));
    redraw();
}

void RooflineChart::redraw() {
    for (QCPGraph* g : {m_roof, m_otherPoints, m_otherRoof})
        g->data()->clear();
    for (QCPGraph* g : m_bounds)
        g->data()->clear();
    for (const LayerProfile& row : m_report.rows) {
        if (!drawable(row))
            continue;
        const auto index = static_cast<std::size_t>(row.bound);
        if (index < m_bounds.size())
            m_bounds[index]->addData(row.intensity, row.gflops);
    }
    drawRoofs(m_roof, m_report);
    m_otherPoints->removeFromLegend();
    m_otherRoof->removeFromLegend();
    if (m_other) {
        for (const LayerProfile& row : m_other->rows)
            if (drawable(row))
                m_otherPoints->addData(row.intensity, row.gflops);
        m_otherPoints->addToLegend();
        const Roofline &mine = m_report.roofline, &theirs = m_other->roofline;
        if (theirs.peakGflops != mine.peakGflops || theirs.bandwidthGBs != mine.bandwidthGBs) {
            drawRoofs(m_otherRoof, *m_other);
            m_otherRoof->addToLegend();
        }
    }
    markDirty();
    refresh();
}

int RooflineChart::pointCount() const {
    int n = 0;
    for (const QCPGraph* g : m_bounds)
        n += g->dataCount();
    return n;
}

int RooflineChart::comparisonPointCount() const {
    return m_otherPoints->dataCount();
}

std::pair<int, int> RooflineChart::rowAt(const QPointF& position, double pixels) const {
    std::pair<int, int> best{-1, -1};
    double bestDistance = pixels;
    const auto search = [&](const ProfileReport& report, int which) {
        for (std::size_t i = 0; i < report.rows.size(); ++i) {
            const LayerProfile& row = report.rows[i];
            if (!drawable(row))
                continue;
            const QPointF p(plot()->xAxis->coordToPixel(row.intensity),
                            plot()->yAxis->coordToPixel(row.gflops));
            const double d = std::hypot(p.x() - position.x(), p.y() - position.y());
            if (d < bestDistance) {
                bestDistance = d;
                best = {which, static_cast<int>(i)};
            }
        }
    };
    search(m_report, 0);
    if (m_other)
        search(*m_other, 1);
    return best;
}

void RooflineChart::showToolTip(QMouseEvent* event) {
    const auto [which, i] = rowAt(event->position());
    if (i < 0) {
        QToolTip::hideText();
        return;
    }
    const ProfileReport& report = which == 0 ? m_report : *m_other;
    const LayerProfile& row = report.rows[static_cast<std::size_t>(i)];
    QToolTip::showText(
        event->globalPosition().toPoint(),
        (which == 1 ? m_otherPoints->name() + QStringLiteral(": ") : QString()) +
            tr("%1 (%2, %3)\n%4 ms a step, %5 GFLOP/s, %6 GB/s\n%7 FLOP/byte: %8-bound at %9% of "
               "its roof")
                .arg(QString::fromStdString(row.name), QString::fromStdString(row.type),
                     QString::fromStdString(row.pass))
                .arg(row.ms, 0, 'f', 3)
                .arg(row.gflops, 0, 'f', 1)
                .arg(row.gbs, 0, 'f', 1)
                .arg(row.intensity, 0, 'g', 3)
                .arg(QString::fromStdString(toString(row.bound)))
                .arg(100.0 * row.roofFraction, 0, 'f', 0),
        plot());
}

void RooflineChart::fitToData() {
    double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
    bool any = false;
    const auto include = [&](double x, double y) {
        if (!(x > 0 && y > 0))
            return;
        xlo = any ? std::min(xlo, x) : x;
        xhi = any ? std::max(xhi, x) : x;
        ylo = any ? std::min(ylo, y) : y;
        yhi = any ? std::max(yhi, y) : y;
        any = true;
    };
    for (const LayerProfile& row : m_report.rows)
        if (drawable(row))
            include(row.intensity, row.gflops);
    if (m_report.roofline.known())
        include(m_report.roofline.ridge(), m_report.roofline.peakGflops);
    if (m_other) {
        for (const LayerProfile& row : m_other->rows)
            if (drawable(row))
                include(row.intensity, row.gflops);
        if (m_other->roofline.known())
            include(m_other->roofline.ridge(), m_other->roofline.peakGflops);
    }
    if (!any) {
        xlo = ylo = 0.1;
        xhi = yhi = 1000.0;
    }
    plot()->xAxis->setRange(xlo / 2.0, xhi * 2.0);
    plot()->yAxis->setRange(ylo / 2.0, yhi * 2.0);
}

void RooflineChart::writeCsv(QTextStream& out) const {
    out << "layer,pass,type,ms,flops,bytes,flop_per_byte,gflops,gbs,roof_fraction,bound\n";
    for (const LayerProfile& row : m_report.rows)
        out << csvField(QString::fromStdString(row.name)) << ',' << QString::fromStdString(row.pass)
            << ',' << csvField(QString::fromStdString(row.type)) << ',' << csvField(row.ms) << ','
            << row.flops << ',' << row.bytes << ',' << csvField(row.intensity) << ','
            << csvField(row.gflops) << ',' << csvField(row.gbs) << ',' << csvField(row.roofFraction)
            << ',' << QString::fromStdString(toString(row.bound)) << '\n';
}

} // namespace tb::ui
