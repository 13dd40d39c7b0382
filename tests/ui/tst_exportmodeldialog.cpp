// File > Export Model: the dialog writes a short run's checkpoint as ONNX (read back with its
// class names) and as PyTorch weights, the options following the format; a place it cannot
// write says so, naming it; the Predictions panel tells the menu when a checkpoint is there.
#include "export/onnxmodelfile.h"
#include "io/safetensors.h"
#include "predictions/exportmodeldialog.h"
#include "predictions/predictionspanel.h"
#include "support/runlog.h"
#include "train/trainer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using namespace tb::ui;

class TestExportModelDialog : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_checkpoint;
    test::RunLog m_run;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        RunConfig c;
        c.set("dataset", "shapes");
        c.set("data.image_size", "16");
        c.set("model", "fmnist-cnn");
        c.set("batch_size", "16");
        c.set("max_steps", "5");
        c.set("threads", "1");
        c.set("checkpoint_dir", m_dir.filePath("ckpt").toStdString());
        const RunFinishedEvent f = Trainer(c, m_run).run();
        QVERIFY2(f.status == RunStatus::Completed, f.error.c_str());
        m_checkpoint = QString::fromStdString(f.checkpoint);
        QVERIFY(!m_checkpoint.isEmpty());
    }

    void exportsOnnxWithItsClassNames() {
        ExportModelDialog dialog(m_checkpoint, QStringLiteral("run-1"));
        QVERIFY(dialog.pathEdit()->text().endsWith(QStringLiteral("run-1.onnx")));
        QVERIFY(dialog.opsetBox()->isEnabled());
        QVERIFY(!dialog.batchBox()->isEnabled());
        dialog.fixedBatchBox()->setChecked(true);
        QVERIFY(dialog.batchBox()->isEnabled());
        dialog.batchBox()->setValue(4);
        const QString path = m_dir.filePath("shapes.onnx");
        dialog.pathEdit()->setText(path);
        QSignalSpy exported(&dialog, &ExportModelDialog::exported);
        dialog.exportButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 60000);
        QVERIFY2(dialog.statusLabel()->text().contains(path),
                 qPrintable(dialog.statusLabel()->text()));
        QVERIFY(dialog.exportButton()->isEnabled());
        const OnnxModelFile file = readOnnxModelFile(path.toStdString());
        QCOMPARE(file.card.sampleShape, Shape({1, 16, 16}));
        QVERIFY(!file.card.classNames.empty());
        QVERIFY(!file.card.mean.empty()); // the run normalised its data: so does the graph
    }

    void exportsPyTorchWeights() {
        ExportModelDialog dialog(m_checkpoint, QStringLiteral("run-1"));
        dialog.pathEdit()->setText(m_dir.filePath("weights.onnx"));
        dialog.formatBox()->setCurrentIndex(1);
        QCOMPARE(dialog.pathEdit()->text(), m_dir.filePath("weights.safetensors"));
        QVERIFY(!dialog.opsetBox()->isEnabled());
        QVERIFY(!dialog.fixedBatchBox()->isEnabled());
        QSignalSpy exported(&dialog, &ExportModelDialog::exported);
        dialog.exportButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 60000);
        QVERIFY(dialog.statusLabel()->text().contains("load_state_dict"));
        const SafetensorsFile file =
            readSafetensors(m_dir.filePath("weights.safetensors").toStdString());
        QVERIFY(file.tensors.count("block1.conv.weight") && file.tensors.count("fc2.bias"));
        QVERIFY(file.tensors.count("block1.bn.num_batches_tracked")); // as PyTorch keeps it
    }

    void aPlaceItCannotWriteIsNamed() {
        ExportModelDialog dialog(m_checkpoint, QStringLiteral("run-1"));
        const QString path = QStringLiteral("/nonexistent-folder/model.onnx");
        dialog.pathEdit()->setText(path);
        QSignalSpy exported(&dialog, &ExportModelDialog::exported);
        dialog.exportButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.exporting() && dialog.exportButton()->isEnabled(), 60000);
        QCOMPARE(exported.size(), 0);
        QVERIFY2(dialog.statusLabel()->text().startsWith("Not exported") &&
                     dialog.statusLabel()->text().contains(path),
                 qPrintable(dialog.statusLabel()->text()));
    }

    void panelSaysWhenACheckpointIsThere() {
        PredictionsPanel panel;
        QSignalSpy changed(&panel, &PredictionsPanel::checkpointChanged);
        panel.beginRun(QStringLiteral("run-1"));
        QCOMPARE(changed.size(), 0); // nothing to take back
        panel.setCheckpoint(m_checkpoint);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(panel.checkpoint(), m_checkpoint);
        QCOMPARE(panel.runId(), QStringLiteral("run-1"));
        panel.beginRun(QStringLiteral("run-2"));
        QCOMPARE(changed.size(), 2);
        QVERIFY(changed.last().first().toString().isEmpty());
    }
};

QTEST_MAIN(TestExportModelDialog)
#include "tst_exportmodeldialog.moc"
