// DetectionPage: the Predictions tab for a detector, what Ultralytics writes into its run
// folder after training, live after each epoch: the per-class table (instances, precision,
// recall, AP50, AP50-95), the precision-recall curves at IoU 0.5, the confusion matrix with the
// background, and the validation images with their true and detected boxes (DetectionGallery,
// with Try it). Picking a class in the table brings its curve forward.
#pragma once

#include "events/events.h"

#include <QWidget>

class QTableWidget;
class QTableView;

namespace tb::ui {

class ConfusionModel;
class DetectionGallery;
class PrCurveChart;

class DetectionPage : public QWidget {
    Q_OBJECT

public:
    explicit DetectionPage(QWidget* parent = nullptr);

    void setReport(const DetectionReport& report);
    void clear();
    // One line over the page: the epoch's figures.
    static QString summaryOf(const DetectionReport& report);

    QTableWidget* classTable() const { return m_classes; }
    PrCurveChart* curves() const { return m_curves; }
    ConfusionModel* confusionModel() const { return m_confusion; }
    QTableView* confusionView() const { return m_matrix; }
    DetectionGallery* gallery() const { return m_gallery; }

private:
    QTableWidget* m_classes;
    PrCurveChart* m_curves;
    ConfusionModel* m_confusion;
    QTableView* m_matrix;
    DetectionGallery* m_gallery;
};

} // namespace tb::ui
