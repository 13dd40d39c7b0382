#include "predictions/exportmodeldialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace tb::ui {

ExportModelDialog::ExportModelDialog(const QString& checkpoint, const QString& runId,
                                     QWidget* parent)
    : QDialog(parent), m_checkpoint(checkpoint), m_format(new QComboBox(this)),
      m_opset(new QSpinBox(this)), m_fixedBatch(new QCheckBox(tr("&Fixed:"), this)),
      m_batch(new QSpinBox(this)), m_path(new QLineEdit(this)), m_contents(new QLabel(this)),
      m_status(new QLabel(this)), m_export(new QPushButton(tr("&Export"), this)) {
    setObjectName(QStringLiteral("export-model"));
    setWindowTitle(tr("Export Model"));
    m_format->setObjectName(QStringLiteral("export-format"));
    m_format->setAccessibleName(tr("Format"));
    m_format->addItem(tr("ONNX graph (.onnx): ONNX Runtime, OpenCV, TensorRT"));
    m_format->addItem(tr("PyTorch weights (.safetensors): load_state_dict"));
    m_opset->setObjectName(QStringLiteral("export-opset"));
    m_opset->setAccessibleName(tr("ONNX opset"));
    m_opset->setRange(kOnnxMinOpset, kOnnxMaxOpset);
    m_opset->setValue(OnnxExportOptions{}.opset);
    m_opset->setToolTip(tr("Older runtimes want older opsets; a GPT needs 17 "
                           "(LayerNormalization)"));
    m_fixedBatch->setObjectName(QStringLiteral("export-fixed-batch"));
    m_fixedBatch->setToolTip(tr("Off: the batch dimension is dynamic, any batch runs"));
    m_batch->setObjectName(QStringLiteral("export-batch"));
    m_batch->setAccessibleName(tr("Fixed batch size"));
    m_batch->setRange(1, 1 << 20);
    m_batch->setValue(1);
    m_batch->setEnabled(false);
    m_path->setObjectName(QStringLiteral("export-path"));
    m_path->setAccessibleName(tr("Export to file"));
    m_path->setText(QDir::home().filePath(runId + QStringLiteral(".onnx")));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    browse->setObjectName(QStringLiteral("export-browse"));
    m_contents->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("export-status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_export->setObjectName(QStringLiteral("export-button"));
    m_export->setDefault(true);

    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(m_fixedBatch);
    batchRow->addWidget(m_batch, 1);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_path, 1);
    fileRow->addWidget(browse);
    auto* source = new QLabel(QFileInfo(checkpoint).fileName(), this);
    source->setToolTip(QDir::toNativeSeparators(checkpoint));
    auto* group = new QGroupBox(tr("Model"), this);
    auto* form = new QFormLayout(group);
    form->addRow(tr("Checkpoint:"), source);
    form->addRow(tr("F&ormat:"), m_format);
    form->addRow(tr("O&pset:"), m_opset);
    form->addRow(tr("Batch:"), batchRow);
    form->addRow(tr("F&ile:"), fileRow);
    form->addRow(m_contents);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_export, QDialogButtonBox::ActionRole);
    auto* layout = new QVBoxLayout(this);
    setMinimumWidth(620); // a path fits
    layout->addWidget(group);
    layout->addWidget(m_status);
    layout->addWidget(buttons);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportModelDialog::formatChanged);
    connect(m_fixedBatch, &QCheckBox::toggled, m_batch, &QWidget::setEnabled);
    connect(browse, &QPushButton::clicked, this, &ExportModelDialog::chooseFile);
    connect(m_export, &QPushButton::clicked, this, &ExportModelDialog::startExport);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &ExportModelDialog::finishExport);
    formatChanged();
}

ExportModelDialog::~ExportModelDialog() {
    m_watcher.waitForFinished();
}

ExportFormat ExportModelDialog::format() const {
    return m_format->currentIndex() == 0 ? ExportFormat::Onnx : ExportFormat::Safetensors;
}

void ExportModelDialog::formatChanged() {
    const bool onnx = format() == ExportFormat::Onnx;
    m_opset->setEnabled(onnx);
    m_fixedBatch->setEnabled(onnx);
    m_batch->setEnabled(onnx && m_fixedBatch->isChecked());
    const QString suffix = onnx ? QStringLiteral(".onnx") : QStringLiteral(".safetensors");
    const QFileInfo file(m_path->text());
    m_path->setText(file.dir().filePath(file.completeBaseName() + suffix));
    m_contents->setText(
        onnx ? tr("The evaluation-mode graph. It takes pixels in [0, 1] and normalises them "
                  "itself; batch norm stays a BatchNormalization node; the class names and "
                  "the normalisation are in its metadata.")
             : tr("The weights under the model's own names (torchvision's for its ImageNet "
                  "models), without optimizer state, for model.load_state_dict in PyTorch."));
    fitText();
}

void ExportModelDialog::fitText() {
    // Wrapped labels need the height their text takes at the dialog's width: grow to it.
    if (layout())
        resize(width(), std::max(height(), heightForWidth(width())));
}

void ExportModelDialog::chooseFile() {
    const bool onnx = format() == ExportFormat::Onnx;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Model"), m_path->text(),
        onnx ? tr("ONNX models (*.onnx)") : tr("Safetensors files (*.safetensors)"));
    if (!path.isEmpty())
        m_path->setText(path);
}

void ExportModelDialog::startExport() {
    if (m_watcher.isRunning() || m_path->text().trimmed().isEmpty())
        return;
    OnnxExportOptions onnx;
    onnx.opset = m_opset->value();
    onnx.batch = m_fixedBatch->isChecked() ? m_batch->value() : 0;
    m_export->setEnabled(false);
    m_status->setStyleSheet({});
    m_status->setText(tr("Exporting…"));
    fitText();
    m_watcher.setFuture(QtConcurrent::run([checkpoint = m_checkpoint.toStdString(),
                                           path = m_path->text().trimmed().toStdString(),
                                           format = format(), onnx]() -> Outcome {
        try {
            return {QString::fromStdString(describe(exportModel(checkpoint, path, format, onnx))),
                    {}};
        } catch (const std::exception& e) {
            return {{}, QString::fromStdString(e.what())};
        }
    }));
}

void ExportModelDialog::finishExport() {
    const Outcome outcome = m_watcher.result();
    m_export->setEnabled(true);
    if (!outcome.error.isEmpty()) {
        m_status->setStyleSheet(QStringLiteral("color: #d13438;"));
        m_status->setText(tr("Not exported: %1").arg(outcome.error));
        fitText();
        return;
    }
    m_status->setText(outcome.summary);
    fitText();
    emit exported(outcome.summary);
}

} // namespace tb::ui
