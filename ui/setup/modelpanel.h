// ModelPanel: the model picker (the zoo, or "Open spec..." for a model-spec JSON file) with the
// layer table (output shape, parameters, FLOPs per layer) for the chosen dataset's samples, and
// the training-memory estimate the memory bar shows, planned without allocating anything.
#pragma once

#include "core/shape.h"
#include "train/memoryestimate.h"
#include "train/modelplan.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>

class QAction;
class QHBoxLayout;
class QComboBox;
class QTableWidget;

namespace tb {
struct OptimizerConfig;
}

namespace tb::ui {

class WrappingLabel;

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);

    // A zoo name or a spec file path, with its options (model.hidden, ...); rebuilds the table
    // when either changed.
    void setModel(const QString& nameOrPath, const nlohmann::json& options);
    // Shown between the picker and the layer table (the model.* options form).
    void setOptionsWidget(QWidget* options);
    // A button for `action` at the end of the picker's row, after "Open spec..." (the set-up's
    // "Pretrained weights..."), with `text` and `objectName`.
    void addRowAction(QAction* action, const QString& text, const QString& objectName);
    // The samples the model will see; rebuilds the table.
    void setInput(const Shape& sampleShape, int numClasses);
    // The activation dtype follows `precision` (32 | 16-mixed | bf16-mixed).
    void setPrecision(const QString& precision);
    // What the pretrained weights were not trained on (pretrainedInputWarnings): shown above
    // the layer table in a warning colour, hidden when empty.
    void setWarnings(const QStringList& warnings);
    QString warnings() const;

    QString model() const { return m_model; }
    // "Open Model Spec...": the panel's button and the window's File menu share it.
    QAction* openSpecAction() const { return m_openSpec; }
    // Empty when the model builds for the current input; else the reason (shown in the panel).
    QString error() const { return m_error; }
    int64_t parameterCount() const { return m_params; }
    // Training memory at `batch`; nullopt while the model does not build.
    std::optional<MemoryEstimate> estimate(int64_t batch, const OptimizerConfig& optimizer) const;

signals:
    void modelEdited(const QString& nameOrPath); // the user picked another model
    void modelRebuilt();                         // table, parameter count and estimate changed

private:
    void rebuild();

    QString m_model;
    nlohmann::json m_options = nlohmann::json::object();
    Shape m_input;
    int m_classes = 0;
    QString m_precision = QStringLiteral("32");
    QString m_error;
    int64_t m_params = 0;
    std::unique_ptr<ModelPlan> m_plan; // null while the model does not build
    QComboBox* m_picker;
    QTableWidget* m_table;
    WrappingLabel* m_total;
    WrappingLabel* m_warnings;
    QAction* m_openSpec;
    QHBoxLayout* m_row; // the picker and its buttons
};

} // namespace tb::ui
