// GeneratePanel: the Predictions tab's counterpart for a language model. Text sampled from the
// run's newest checkpoint (or any saved one): a prompt, how many tokens, temperature and top-k,
// a seed. The model loads and the text is written on a worker thread (QtConcurrent), one
// token per forward pass on the CPU.
#pragma once

#include "predictions/checkpointloader.h"
#include "train/textgenerator.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace tb::ui {

class GeneratePanel : public QWidget {
    Q_OBJECT

public:
    explicit GeneratePanel(QWidget* parent = nullptr);
    ~GeneratePanel() override;

    // Loads this checkpoint's model (the same path again does nothing).
    void setCheckpoint(const QString& path);
    QString checkpoint() const { return m_loader.path(); }
    bool modelReady() const { return m_model != nullptr; }
    bool busy() const;
    QString status() const;
    QString text() const;

    QLineEdit* promptEdit() const { return m_prompt; }
    QSpinBox* tokensBox() const { return m_tokens; }
    QDoubleSpinBox* temperatureBox() const { return m_temperature; }
    QSpinBox* topKBox() const { return m_topK; }
    QSpinBox* seedBox() const { return m_seed; }

public slots:
    // Writes text with the settings shown (nothing while a model loads or text is written).
    void generate();

signals:
    void modelLoaded();
    void generated();

private:
    struct Written {
        QString text, error;
    };
    void loaded(const CheckpointLoader<TextGenerator>::Outcome& outcome);
    void written();
    void chooseCheckpoint();
    void setError(const QString& message);
    QString modelText() const;

    std::shared_ptr<TextGenerator> m_model; // shared with the worker writing with it
    CheckpointLoader<TextGenerator> m_loader;
    QFutureWatcher<Written>* m_writing;
    QLabel* m_status;
    QLineEdit* m_prompt;
    QSpinBox* m_tokens;
    QDoubleSpinBox* m_temperature;
    QSpinBox* m_topK;
    QSpinBox* m_seed;
    QPushButton* m_generate;
    QPlainTextEdit* m_output;
};

} // namespace tb::ui
