// SetupPanel: everything a run needs before Train: dataset, model, hyperparameters and the
// performance knobs (with their concept cards), the LR preview and the memory bar. It composes a
// RunConfig and says why it cannot train yet, if it cannot.
#pragma once

#include "train/runconfig.h"

#include <QWidget>

#include <vector>

class QAction;
class QComboBox;
class QLabel;

namespace tb::ui {

class ConfigForm;
class DatasetPanel;
class LrPreview;
class MemoryBar;
class ModelPanel;

class SetupPanel : public QWidget {
    Q_OBJECT
public:
    explicit SetupPanel(QWidget* parent = nullptr);

    // Shows every value of `config`; keys without an editor are kept as they are.
    void setConfig(const RunConfig& config);
    // The config the editors describe (invalid fields keep their last valid value).
    RunConfig config() const;
    // Empty when Train can start; else what stops it, naming the field.
    QString blocker() const { return m_blocker; }
    // The editor of a config key ("lr", "batch_size"), for pointing at what a failed run named;
    // nullptr when the panel has none.
    QWidget* editorOf(const QString& key) const;
    // True while the dataset is still being opened (blocker() then says so).
    bool busy() const;
    // Lesson mode: only these config keys' editors are shown, and a group left with none is
    // hidden (the dataset and model pickers stay); an empty list shows everything again.
    void setLessonControls(const QStringList& keys);
    bool inLessonMode() const { return !m_lessonControls.isEmpty(); }
    // Open Dataset Folder, Open CSV Dataset, Open Model Spec and Open Pretrained Weights, for the
    // window's File menu.
    QList<QAction*> openActions() const;
    // Lists the devices again, keeping the choice: after a run failed because the GPU became
    // unusable (a lost CUDA context), its entry is greyed with the reason.
    void refreshDevices();

signals:
    void changed(); // a value, the dataset facts or the model changed: re-read blocker()

private:
    QWidget* buildDatasetGroup();
    QWidget* buildModelGroup();
    QWidget* buildTrainingGroup();
    QWidget* buildPerformanceGroup();
    void fillDevices();
    void refresh(); // recompute the config, previews, memory bar and blocker
    // The model panel's warnings on the pretrained weights, worked out again only when what they
    // depend on changed (a checkpoint's header is read from disk).
    void refreshPretrainedWarnings(const RunConfig& config);
    int64_t totalSteps(const RunConfig& config) const;
    std::vector<ConfigForm*> forms() const; // in the order their keys are applied

    RunConfig m_base;
    RunConfig m_current;
    QString m_blocker;
    QString m_pretrainedWarningsFor; // what the shown warnings were worked out from
    DatasetPanel* m_dataset = nullptr;
    ModelPanel* m_model = nullptr;
    QAction* m_openWeights = nullptr;     // fills model.pretrained from a file dialog
    ConfigForm* m_data = nullptr;         // data.* keys beside the dataset picker
    ConfigForm* m_modelOptions = nullptr; // model.* keys of the chosen model
    ConfigForm* m_training = nullptr;
    ConfigForm* m_performance = nullptr;
    ConfigForm* m_logging = nullptr;
    QComboBox* m_device = nullptr;
    QLabel* m_effectiveBatch = nullptr;
    LrPreview* m_lrPreview = nullptr;
    MemoryBar* m_memory = nullptr;
    QStringList m_lessonControls;
};

} // namespace tb::ui
