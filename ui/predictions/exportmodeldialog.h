// ExportModelDialog (File > Export Model...): the shown run's newest checkpoint written as an
// ONNX graph or as PyTorch-named weights, with the options `trainbench-cli export` takes. The
// export runs on a worker thread; the dialog says what was written, or why it could not be.
#pragma once

#include "export/modelexport.h"

#include <QDialog>
#include <QFutureWatcher>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tb::ui {

class ExportModelDialog : public QDialog {
    Q_OBJECT

public:
    ExportModelDialog(const QString& checkpoint, const QString& runId, QWidget* parent = nullptr);
    ~ExportModelDialog() override;

    QComboBox* formatBox() const { return m_format; }
    QSpinBox* opsetBox() const { return m_opset; }
    QCheckBox* fixedBatchBox() const { return m_fixedBatch; }
    QSpinBox* batchBox() const { return m_batch; }
    QLineEdit* pathEdit() const { return m_path; }
    QPushButton* exportButton() const { return m_export; }
    QLabel* statusLabel() const { return m_status; }
    bool exporting() const { return m_watcher.isRunning(); }

signals:
    // After a file was written: what describe() says about it.
    void exported(const QString& summary);

private:
    struct Outcome {
        QString summary; // set when written
        QString error;
    };
    void startExport();
    void finishExport();
    void chooseFile();
    void formatChanged();
    void fitText();
    ExportFormat format() const;

    QString m_checkpoint;
    QComboBox* m_format;
    QSpinBox* m_opset;
    QCheckBox* m_fixedBatch;
    QSpinBox* m_batch;
    QLineEdit* m_path;
    QLabel* m_contents;
    QLabel* m_status;
    QPushButton* m_export;
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace tb::ui
