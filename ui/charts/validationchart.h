// ValidationChart: per epoch, the validation and training loss (left axis) and the validation
// accuracy in % (right axis), with the best epoch (highest validation accuracy) marked. A
// detector's accuracy is COCO's mAP50-95 beside its mAP50; a segmentation's is its pixel
// accuracy beside its mean IoU, which marks the best epoch.
#pragma once

#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "events/events.h"

#include <vector>

class QCPGraph;
class QCPItemText;
class QCPItemTracer;

namespace tb::ui {

class ValidationChart : public ChartView {
    Q_OBJECT

public:
    explicit ValidationChart(QWidget* parent = nullptr);

    void reset();
    void addEpochs(const std::vector<EpochEvent>& epochs);

    // The epoch with the highest validation accuracy (a detector's: the best fitness, 0.1 mAP50
    // + 0.9 mAP50-95, as its best checkpoint) (the first of equals); 0 before any.
    int64_t bestEpoch() const { return m_bestIndex < 0 ? 0 : m_epochs[m_bestIndex].epoch; }

    QCPGraph* valLossGraph() const { return m_valLoss; }
    QCPGraph* trainLossGraph() const { return m_trainLoss; }
    QCPGraph* valAccGraph() const { return m_valAcc; }
    // A detector's mAP50 (its val acc line is mAP50-95); empty for other runs.
    QCPGraph* map50Graph() const { return m_map50; }
    // A segmentation's mean IoU (its val acc line is the pixel accuracy); empty for others.
    QCPGraph* meanIoUGraph() const { return m_meanIoU; }
    bool showsDetection() const { return m_detection; }
    bool showsSegmentation() const { return m_segmentation; }
    QCPItemTracer* bestMarker() const { return m_bestMarker; }
    QCPItemText* bestLabel() const { return m_bestLabel; }

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    void placeBestMarker();
    void showDetection(bool on);
    void showSegmentation(bool on);
    // The line the best epoch's ring sits on: the mean IoU's for a segmentation.
    QCPGraph* fitnessGraph() const { return m_segmentation ? m_meanIoU : m_valAcc; }

    QCPGraph* m_valLoss;
    QCPGraph* m_trainLoss;
    QCPGraph* m_valAcc;
    QCPGraph* m_map50;
    QCPGraph* m_meanIoU;
    bool m_detection = false;
    bool m_segmentation = false;
    QCPItemTracer* m_bestMarker;
    QCPItemText* m_bestLabel;
    std::vector<EpochEvent> m_epochs;
    std::ptrdiff_t m_bestIndex = -1;
    Extent m_epochExtent;
    Extent m_lossExtent;
    Extent m_accExtent;
};

} // namespace tb::ui
