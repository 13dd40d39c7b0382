// SegmentationPage: the Predictions tab for a segmentation model, live after each epoch: the
// per-class table (IoU, accuracy, labelled pixels; "all" first with the mean IoU and the pixel
// accuracy), the confusion matrix over pixels, and the validation images the epoch scored worst
// with their true and predicted masks (SegmentationGallery, with Try it).
#pragma once

#include "events/events.h"

#include <QWidget>

class QTableWidget;
class QTableView;

namespace tb::ui {

class ConfusionModel;
class SegmentationGallery;

class SegmentationPage : public QWidget {
    Q_OBJECT

public:
    explicit SegmentationPage(QWidget* parent = nullptr);

    void setReport(const SegmentationReport& report);
    void clear();
    // One line over the page: the epoch's figures.
    static QString summaryOf(const SegmentationReport& report, double valLoss);

    QTableWidget* classTable() const { return m_classes; }
    ConfusionModel* confusionModel() const { return m_confusion; }
    QTableView* confusionView() const { return m_matrix; }
    SegmentationGallery* gallery() const { return m_gallery; }

private:
    QTableWidget* m_classes;
    ConfusionModel* m_confusion;
    QTableView* m_matrix;
    SegmentationGallery* m_gallery;
};

} // namespace tb::ui
