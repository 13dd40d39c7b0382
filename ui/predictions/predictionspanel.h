// PredictionsPanel: what the model gets right and wrong after each epoch, and "Try it". Left:
// the confusion matrix (counts, shaded by their share of the row, and each class's recall) over
// a grid of misclassified validation samples with their true and predicted class; right: the
// Try it panel. An epoch picker shows any epoch of the run; it follows the newest until the
// user picks another. A language model's run shows instead the text it wrote after each epoch
// and the Generate panel; a detector's, its DetectionPage; a segmentation's, its
// SegmentationPage.
#pragma once

#include "events/events.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QStackedWidget;
class QTableView;

namespace tb::ui {

class ConfusionModel;
class DetectionPage;
class GeneratePanel;
class SegmentationPage;
class TryItPanel;

class PredictionsPanel : public QWidget {
    Q_OBJECT

public:
    explicit PredictionsPanel(QWidget* parent = nullptr);

    // A new run (live or stored) takes the panel: its epochs so far, and its checkpoint.
    void beginRun(const QString& runId);
    void addEpochs(const std::vector<EpochEvent>& epochs);
    // The run's newest checkpoint, for Try it, Generate and File > Export Model.
    void setCheckpoint(const QString& path);
    const QString& checkpoint() const { return m_checkpoint; }
    const QString& runId() const { return m_runId; }

    int epochCount() const { return static_cast<int>(m_epochs.size()); }
    // The epoch shown (1-based), 0 when none.
    int shownEpoch() const;
    void showEpoch(int epoch);

    ConfusionModel* confusionModel() const { return m_confusion; }
    QTableView* confusionView() const { return m_table; }
    QListWidget* misclassifiedView() const { return m_misses; }
    TryItPanel* tryIt() const { return m_tryIt; }
    GeneratePanel* generatePanel() const { return m_generate; }
    // Whether the run shown is a language model's (its epochs carry generated text).
    bool showsLanguageModel() const;
    // Whether the run shown is a detector's (its epochs carry a DetectionReport).
    bool showsDetector() const;
    DetectionPage* detectionPage() const { return m_detection; }
    // Whether the run shown is a segmentation's (its epochs carry a SegmentationReport).
    bool showsSegmentation() const;
    SegmentationPage* segmentationPage() const { return m_segmentation; }
    // A segmentation epoch's mean IoU; none for other runs or an epoch not shown.
    std::optional<double> meanIoUOfEpoch(int64_t epoch) const;
    QPlainTextEdit* epochSamplesView() const { return m_samples; }

signals:
    // A run with a checkpoint is shown (path), or one without (empty).
    void checkpointChanged(const QString& path);

private:
    void show(const EpochEvent& epoch);
    void addSample(const EpochEvent& epoch);
    // The validation images the newest epoch scored worst: the gallery shows those first.
    std::vector<int64_t> newestWorstImages() const;

    std::vector<EpochEvent> m_epochs;
    bool m_followNewest = true;
    QWidget* m_epochRow; // the picker and its label
    QComboBox* m_epochPicker;
    QLabel* m_summary;
    ConfusionModel* m_confusion;
    QTableView* m_table;
    QLabel* m_missesNote;
    QListWidget* m_misses;
    TryItPanel* m_tryIt;
    // The classifier's page, the language model's, the detector's, the segmentation's.
    QStackedWidget* m_pages;
    QPlainTextEdit* m_samples;
    GeneratePanel* m_generate;
    DetectionPage* m_detection;
    SegmentationPage* m_segmentation;
    QString m_checkpoint;
    QString m_runId;
};

} // namespace tb::ui
