// ValidationChart: a handful of points (one per epoch), drawn with markers; the best epoch is
// a ring on the accuracy line with its value next to it.
#include "charts/validationchart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"
#include "train/detectionvalidation.h"

#include <QTextStream>
#include <qcustomplot.h>

namespace tb::ui {

namespace {

QCPGraph* epochGraph(QCustomPlot* plot, QCPAxis* valueAxis, const QString& name,
                     const QColor& color, Qt::PenStyle style) {
    QCPGraph* g = plot->addGraph(plot->xAxis, valueAxis);
    g->setName(name);
    QPen pen = seriesPen(color, 2.0);
    pen.setStyle(style);
    g->setPen(pen);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 5));
    return g;
}

} // namespace

ValidationChart::ValidationChart(QWidget* parent)
    : ChartView(tr("Validation"), parent),
      m_valLoss(epochGraph(plot(), plot()->yAxis, tr("val loss"), seriesColor(3), Qt::SolidLine)),
      m_trainLoss(
          epochGraph(plot(), plot()->yAxis, tr("train loss"), seriesColor(0), Qt::DashLine)),
      m_valAcc(epochGraph(plot(), plot()->yAxis2, tr("val acc"), seriesColor(2), Qt::SolidLine)),
      m_map50(epochGraph(plot(), plot()->yAxis2, tr("mAP50"), seriesColor(4), Qt::DotLine)),
      m_meanIoU(epochGraph(plot(), plot()->yAxis2, tr("mIoU"), seriesColor(5), Qt::SolidLine)),
      m_bestMarker(new QCPItemTracer(plot())), m_bestLabel(new QCPItemText(plot())) {
    plot()->xAxis->setLabel(tr("epoch"));
    plot()->yAxis->setLabel(tr("loss"));
    plot()->yAxis2->setLabel(tr("accuracy (%)"));
    plot()->yAxis2->setVisible(true);
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples); // 1, 2, 5, 10... epochs apart
    plot()->xAxis->setTicker(ticker);
    // Pan and zoom move the accuracy axis with the loss axis.
    plot()->axisRect()->setRangeDragAxes({plot()->xAxis}, {plot()->yAxis, plot()->yAxis2});
    plot()->axisRect()->setRangeZoomAxes({plot()->xAxis}, {plot()->yAxis, plot()->yAxis2});

    m_bestMarker->setObjectName(QStringLiteral("bestEpochMarker"));
    m_bestMarker->setStyle(QCPItemTracer::tsCircle);
    m_bestMarker->setSize(13);
    m_bestMarker->setPen(QPen(seriesColor(2), 2));
    m_bestMarker->setBrush(Qt::NoBrush);
    m_bestLabel->setObjectName(QStringLiteral("bestEpochLabel"));
    m_bestLabel->setClipToAxisRect(false);
    m_bestLabel->position->setParentAnchor(m_bestMarker->position);
    m_bestLabel->position->setCoords(0, -12); // pixels above the ring
    reset();
}

// A detector's epochs: accuracy becomes COCO's mAP50-95 beside its mAP50, both in percent.
void ValidationChart::showDetection(bool on) {
    m_detection = on;
    m_valAcc->setName(on ? tr("mAP50-95") : tr("val acc"));
    m_map50->setVisible(on);
    m_map50->removeFromLegend();
    if (on)
        m_map50->addToLegend();
    plot()->yAxis2->setLabel(on ? tr("mAP (%)") : tr("accuracy (%)"));
}

// A segmentation's epochs: the pixel accuracy beside the mean IoU, which picks the best epoch.
void ValidationChart::showSegmentation(bool on) {
    m_segmentation = on;
    m_valAcc->setName(on ? tr("pixel acc") : tr("val acc"));
    m_meanIoU->setVisible(on);
    m_meanIoU->removeFromLegend();
    if (on)
        m_meanIoU->addToLegend();
    plot()->yAxis2->setLabel(on ? tr("accuracy, IoU (%)") : tr("accuracy (%)"));
    m_bestMarker->setPen(QPen(seriesColor(on ? 5 : 2), 2));
}

void ValidationChart::reset() {
    showDetection(false);
    showSegmentation(false);
    m_epochs.clear();
    m_bestIndex = -1;
    m_epochExtent = {};
    m_lossExtent = {};
    m_accExtent = {};
    for (QCPGraph* g : {m_valLoss, m_trainLoss, m_valAcc, m_map50, m_meanIoU})
        g->data()->clear();
    placeBestMarker();
    markDirty();
    refresh();
}

void ValidationChart::addEpochs(const std::vector<EpochEvent>& epochs) {
    if (epochs.empty())
        return;
    if (epochs.front().validation.detection && !m_detection)
        showDetection(true);
    if (epochs.front().validation.segmentation && !m_segmentation)
        showSegmentation(true);
    QVector<QCPGraphData> valLoss, trainLoss, valAcc, map50, meanIoU;
    for (const EpochEvent& e : epochs) {
        const double key = static_cast<double>(e.epoch);
        const double acc = e.valAcc * 100.0;
        valLoss.append({key, e.valLoss});
        trainLoss.append({key, e.trainLoss});
        valAcc.append({key, acc});
        if (e.validation.detection) {
            map50.append({key, e.validation.detection->map50 * 100.0});
            m_accExtent.include(map50.back().value);
        }
        if (e.validation.segmentation) {
            meanIoU.append({key, e.validation.segmentation->meanIoU * 100.0});
            m_accExtent.include(meanIoU.back().value);
        }
        m_epochExtent.include(key);
        m_lossExtent.include(e.valLoss);
        m_lossExtent.include(e.trainLoss);
        m_accExtent.include(acc);
        m_epochs.push_back(e);
        if (m_bestIndex < 0 || fitnessOf(e) > fitnessOf(m_epochs[m_bestIndex]))
            m_bestIndex = static_cast<std::ptrdiff_t>(m_epochs.size()) - 1;
    }
    m_valLoss->data()->add(valLoss, true);
    m_trainLoss->data()->add(trainLoss, true);
    m_valAcc->data()->add(valAcc, true);
    m_map50->data()->add(map50, true);
    m_meanIoU->data()->add(meanIoU, true);
    placeBestMarker();
    markDirty();
}

void ValidationChart::placeBestMarker() {
    const bool any = m_bestIndex >= 0;
    // Attached to the accuracy line only while it has points (an empty graph makes the tracer
    // complain on every replot).
    m_bestMarker->setGraph(any ? fitnessGraph() : nullptr);
    m_bestMarker->setVisible(any);
    m_bestLabel->setVisible(any);
    if (!any)
        return;
    const EpochEvent& best = m_epochs[m_bestIndex];
    m_bestMarker->setGraphKey(static_cast<double>(best.epoch));
    m_bestLabel->setText(
        (m_detection      ? tr("best mAP50-95 %1% (epoch %2)")
         : m_segmentation ? tr("best mIoU %1% (epoch %2)")
                          : tr("best %1% (epoch %2)"))
            .arg((m_segmentation ? fitnessOf(best) : best.valAcc) * 100.0, 0, 'f', 1)
            .arg(best.epoch));
    // The label leans towards the middle of the chart so it is never cut off at either end.
    const bool rightHalf =
        2.0 * static_cast<double>(best.epoch) > m_epochExtent.lo + m_epochExtent.hi;
    m_bestLabel->setPositionAlignment(Qt::AlignBottom |
                                      (rightHalf ? Qt::AlignRight : Qt::AlignLeft));
}

void ValidationChart::fitToData() {
    const QCPRange epochs = m_epochExtent.isEmpty()
                                ? QCPRange(0.5, 1.5)
                                : QCPRange(m_epochExtent.lo - 0.5, m_epochExtent.hi + 0.5);
    plot()->xAxis->setRange(epochs);
    plot()->yAxis->setRange(m_lossExtent.padded(0.08));
    // Headroom above the accuracy line for the best-epoch label; before the first epoch, the
    // whole percent scale (not 0 to 1, which reads as a measured 1%).
    QCPRange acc = m_accExtent.isEmpty() ? QCPRange(0.0, 100.0) : m_accExtent.padded(0.08);
    if (!m_accExtent.isEmpty())
        acc.upper += acc.size() * 0.15;
    plot()->yAxis2->setRange(acc);
}

void ValidationChart::writeCsv(QTextStream& out) const {
    out << (m_detection      ? "epoch,step,train_loss,val_loss,map50_95_percent,map50_percent\n"
            : m_segmentation ? "epoch,step,train_loss,val_loss,pixel_acc_percent,miou_percent\n"
                             : "epoch,step,train_loss,val_loss,val_acc_percent\n");
    for (const EpochEvent& e : m_epochs) {
        out << e.epoch << ',' << e.step << ',' << csvField(e.trainLoss) << ','
            << csvField(e.valLoss) << ',' << csvField(e.valAcc * 100.0);
        if (m_detection)
            out << ','
                << csvField(e.validation.detection ? e.validation.detection->map50 * 100.0 : 0.0);
        if (m_segmentation)
            out << ','
                << csvField(e.validation.segmentation ? e.validation.segmentation->meanIoU * 100.0
                                                      : 0.0);
        out << '\n';
    }
}

} // namespace tb::ui
