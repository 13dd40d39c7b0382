// LrFinderChart: the y range follows the smoothed loss (clipped to 4x its first value), so a
// diverging tail does not flatten the part of the curve the suggestion comes from.
#include "experiments/lrfinderchart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace tb::ui {

LrFinderChart::LrFinderChart(QWidget* parent)
    : ChartView(tr("Loss against learning rate"), parent), m_raw(plot()->addGraph()),
      m_smoothed(plot()->addGraph()), m_marker(new QCPItemStraightLine(plot())),
      m_markerLabel(new QCPItemText(plot())) {
    QColor faint = seriesColor(0);
    faint.setAlpha(80);
    m_raw->setName(tr("loss"));
    m_raw->setPen(seriesPen(faint));
    m_smoothed->setName(tr("loss (smoothed)"));
    m_smoothed->setPen(seriesPen(seriesColor(0), 2.0));
    plot()->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot()->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot()->xAxis->setNumberFormat(QStringLiteral("eb"));
    plot()->xAxis->setNumberPrecision(0);
    plot()->xAxis->setLabel(tr("learning rate (log scale)"));
    plot()->yAxis->setLabel(tr("training loss"));
    plot()->legend->setVisible(true);
    QPen pen(seriesColor(3), 1.5, Qt::DashLine);
    pen.setCosmetic(true);
    m_marker->setPen(pen);
    m_markerLabel->setColor(seriesColor(3));
    m_markerLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_markerLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_markerLabel->setPadding(QMargins(4, 4, 4, 4));
    clear();
}

void LrFinderChart::clear() {
    m_lr.clear();
    m_loss.clear();
    m_smoothedLoss.clear();
    m_suggested.reset();
    m_lrExtent = {};
    m_lossExtent = {};
    m_raw->data()->clear();
    m_smoothed->data()->clear();
    placeMarker();
    markDirty();
    refresh();
}

void LrFinderChart::addPoint(double lr, double loss, double smoothed) {
    m_lr.push_back(lr);
    m_loss.push_back(loss);
    m_smoothedLoss.push_back(smoothed);
    m_raw->addData(lr, loss);
    m_smoothed->addData(lr, smoothed);
    m_lrExtent.include(lr);
    m_lossExtent.include(smoothed);
    markDirty();
    refresh();
}

void LrFinderChart::setCurve(const std::vector<double>& lr, const std::vector<double>& loss,
                             const std::vector<double>& smoothed, std::optional<double> suggested) {
    clear();
    for (std::size_t i = 0; i < lr.size() && i < loss.size() && i < smoothed.size(); ++i)
        addPoint(lr[i], loss[i], smoothed[i]);
    m_suggested = suggested;
    placeMarker();
    markDirty();
    refresh();
}

void LrFinderChart::placeMarker() {
    m_marker->setVisible(m_suggested.has_value());
    m_markerLabel->setVisible(m_suggested.has_value());
    if (!m_suggested)
        return;
    m_marker->point1->setCoords(*m_suggested, 0.0);
    m_marker->point2->setCoords(*m_suggested, 1.0);
    m_markerLabel->position->setCoords(*m_suggested, 0.0);
    m_markerLabel->setText(tr("suggested lr %1").arg(*m_suggested, 0, 'g', 3));
    // Right of the line in the left part of the sweep, left of it near the end.
    const bool nearTheEnd =
        !m_lrExtent.isEmpty() &&
        std::log(*m_suggested / m_lrExtent.lo) > 0.6 * std::log(m_lrExtent.hi / m_lrExtent.lo);
    m_markerLabel->setPositionAlignment((nearTheEnd ? Qt::AlignRight : Qt::AlignLeft) |
                                        Qt::AlignTop);
}

void LrFinderChart::fitToData() {
    if (m_lrExtent.isEmpty()) {
        plot()->xAxis->setRange(1e-7, 10.0);
        plot()->yAxis->setRange(0.0, 1.0);
        return;
    }
    plot()->xAxis->setRange(m_lrExtent.lo / 1.3, m_lrExtent.hi * 1.3);
    Extent y = m_lossExtent;
    if (!m_smoothedLoss.empty() && std::isfinite(m_smoothedLoss.front()))
        y.hi = std::min(y.hi, 4.0 * m_smoothedLoss.front());
    plot()->yAxis->setRange(y.padded());
}

void LrFinderChart::writeCsv(QTextStream& out) const {
    out << "lr,loss,loss_smoothed\n";
    for (std::size_t i = 0; i < m_lr.size(); ++i)
        out << csvField(m_lr[i]) << ',' << csvField(m_loss[i]) << ',' << csvField(m_smoothedLoss[i])
            << '\n';
}

} // namespace tb::ui
