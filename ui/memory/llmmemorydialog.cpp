#include "memory/llmmemorydialog.h"

#include "core/errors.h"
#include "memory/llmmemorychart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

QSpinBox* spin(int min, int max, int step = 1) {
    auto* s = new QSpinBox;
    s->setRange(min, max);
    s->setSingleStep(step);
    s->setGroupSeparatorShown(true);
    return s;
}

} // namespace

LlmMemoryDialog::LlmMemoryDialog(QWidget* parent)
    : QDialog(parent), m_preset(new QComboBox), m_params(new QDoubleSpinBox),
      m_layers(spin(1, 1000)), m_width(spin(64, 65536, 64)), m_heads(spin(1, 1024)),
      m_kvHeads(spin(1, 1024)), m_context(spin(1, 1 << 20, 256)), m_vocab(spin(1, 1 << 22)),
      m_inference(new QRadioButton(tr("&Inference"))),
      m_training(new QRadioButton(tr("&Training"))), m_precision(new QComboBox),
      m_optimizer(new QComboBox), m_batch(spin(1, 1 << 16)), m_accumulation(spin(1, 1 << 16)),
      m_checkpointing(new QCheckBox(tr("Activation &checkpointing"))), m_attention(new QComboBox),
      m_chart(new LlmMemoryChart), m_total(new QLabel), m_fits(new QLabel), m_working(new QLabel) {
    setWindowTitle(tr("Language Model Memory"));
    setObjectName(QStringLiteral("llm-memory-dialog"));
    for (const TransformerShape& p : transformerPresets())
        m_preset->addItem(QString::fromStdString(p.name));
    m_preset->addItem(tr("custom"));
    m_params->setRange(0.001, 10000.0);
    m_params->setDecimals(3);
    m_params->setSuffix(tr(" billion"));
    m_params->setToolTip(tr("Parameters, in billions: a custom size takes the shape of the "
                            "nearest preset, scaled"));
    m_kvHeads->setToolTip(tr("Key/value heads: fewer than the heads is grouped-query attention, "
                             "which shrinks the KV cache"));
    for (const char* p :
         {"bf16-true", "16-true", "bf16-mixed", "16-mixed", "32-true", "int8", "int4"})
        m_precision->addItem(QString::fromLatin1(p));
    m_precision->setToolTip(tr("-true: weights, gradients and moments in 16 bits; -mixed: f32 "
                               "weights with 16-bit activations; int8, int4: quantised weights, "
                               "for inference"));
    for (const char* o : {"adamw", "sgd", "sgd-plain"})
        m_optimizer->addItem(QString::fromLatin1(o));
    m_optimizer->setToolTip(tr("adamw keeps two moments per parameter, sgd with momentum one, "
                               "plain sgd none"));
    // PyTorch 2.x's scaled_dot_product_attention is fused (FlashAttention) by default.
    m_attention->addItem(tr("Fused (flash)"), QStringLiteral("flash"));
    m_attention->addItem(tr("Eager (scores stored)"), QStringLiteral("eager"));
    m_attention->setToolTip(tr("Fused: the kernel never writes the attention scores out, "
                               "backward recomputes them (PyTorch 2's default); eager: the "
                               "scores of every head are kept, growing with the context "
                               "squared"));
    m_inference->setChecked(true);
    m_total->setObjectName(QStringLiteral("llm-memory-total"));
    m_fits->setObjectName(QStringLiteral("llm-memory-fits"));
    m_fits->setWordWrap(true);
    m_working->setObjectName(QStringLiteral("llm-memory-working"));
    m_working->setWordWrap(true);
    m_working->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_total->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_total->setFont(bold);

    auto* model = new QGroupBox(tr("Model"));
    auto* modelForm = new QFormLayout(model);
    modelForm->addRow(tr("&Preset:"), m_preset);
    modelForm->addRow(tr("P&arameters:"), m_params);
    modelForm->addRow(tr("&Layers:"), m_layers);
    modelForm->addRow(tr("&Width:"), m_width);
    modelForm->addRow(tr("&Heads:"), m_heads);
    modelForm->addRow(tr("&KV heads:"), m_kvHeads);
    modelForm->addRow(tr("&Vocabulary:"), m_vocab);
    auto* use = new QGroupBox(tr("Use"));
    auto* useForm = new QFormLayout(use);
    auto* useRow = new QHBoxLayout;
    useRow->addWidget(m_inference);
    useRow->addWidget(m_training);
    useRow->addStretch(1);
    useForm->addRow(useRow);
    useForm->addRow(tr("P&recision:"), m_precision);
    useForm->addRow(tr("&Optimizer:"), m_optimizer);
    useForm->addRow(tr("&Batch (sequences):"), m_batch);
    useForm->addRow(tr("C&ontext (tokens):"), m_context);
    useForm->addRow(tr("Acc&umulate batches:"), m_accumulation);
    useForm->addRow(tr("Atte&ntion:"), m_attention);
    useForm->addRow(m_checkpointing);
    auto* controls = new QVBoxLayout;
    controls->addWidget(model);
    controls->addWidget(use);
    controls->addStretch(1);

    auto* results = new QVBoxLayout;
    results->addWidget(m_total);
    results->addWidget(m_fits);
    results->addWidget(m_chart, 1);
    results->addWidget(m_working);
    auto* body = new QHBoxLayout;
    body->addLayout(controls);
    body->addLayout(results, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(body, 1);
    layout->addWidget(buttons);

    connect(m_preset, &QComboBox::currentTextChanged, this,
            [this](const QString& name) { choosePreset(name); });
    for (QSpinBox* s : {m_layers, m_width, m_heads, m_kvHeads, m_vocab})
        connect(s, &QSpinBox::valueChanged, this, &LlmMemoryDialog::shapeEdited);
    connect(m_params, &QDoubleSpinBox::valueChanged, this, [this] {
        if (m_settingPreset)
            return;
        // A size of its own: the nearest preset's shape, scaled to it.
        const TransformerShape s = transformerOfParams(m_params->value() * 1e9);
        m_settingPreset = true;
        m_preset->setCurrentIndex(m_preset->count() - 1);
        m_layers->setValue(static_cast<int>(s.layers));
        m_width->setValue(static_cast<int>(s.width));
        m_heads->setValue(static_cast<int>(s.heads));
        m_kvHeads->setValue(static_cast<int>(s.kvHeads > 0 ? s.kvHeads : s.heads));
        m_settingPreset = false;
        recompute();
    });
    for (QSpinBox* s : {m_batch, m_context, m_accumulation})
        connect(s, &QSpinBox::valueChanged, this, &LlmMemoryDialog::recompute);
    connect(m_training, &QRadioButton::toggled, this, [this](bool training) {
        m_optimizer->setEnabled(training);
        m_accumulation->setEnabled(training);
        m_checkpointing->setEnabled(training);
        // Each use's default precision, as the CLI's: bf16 weights to run the model, f32
        // weights with bf16 activations to train it (quantised weights are for inference).
        const QString p = m_precision->currentText();
        if (training && (p == QLatin1String("bf16-true") || p == QLatin1String("int8") ||
                         p == QLatin1String("int4")))
            m_precision->setCurrentText(QStringLiteral("bf16-mixed"));
        else if (!training && p == QLatin1String("bf16-mixed"))
            m_precision->setCurrentText(QStringLiteral("bf16-true"));
        recompute();
    });
    connect(m_precision, &QComboBox::currentTextChanged, this, &LlmMemoryDialog::recompute);
    connect(m_optimizer, &QComboBox::currentTextChanged, this, &LlmMemoryDialog::recompute);
    connect(m_checkpointing, &QCheckBox::toggled, this, &LlmMemoryDialog::recompute);
    connect(m_attention, &QComboBox::currentIndexChanged, this, &LlmMemoryDialog::recompute);
    m_optimizer->setEnabled(false);
    m_accumulation->setEnabled(false);
    m_checkpointing->setEnabled(false);
    choosePreset(QStringLiteral("llama-7b"));
    resize(1100, 640);
}

bool LlmMemoryDialog::choosePreset(const QString& name) {
    if (m_settingPreset || name == tr("custom"))
        return name == tr("custom");
    TransformerShape s;
    try {
        s = transformerPreset(name.toStdString(), "preset");
    } catch (const ConfigError&) {
        return false;
    }
    m_settingPreset = true;
    m_preset->setCurrentText(name);
    m_params->setValue(s.params / 1e9);
    m_layers->setValue(static_cast<int>(s.layers));
    m_width->setValue(static_cast<int>(s.width));
    m_heads->setValue(static_cast<int>(s.heads));
    m_kvHeads->setValue(static_cast<int>(s.kvHeads > 0 ? s.kvHeads : s.heads));
    m_context->setValue(static_cast<int>(s.context));
    m_vocab->setValue(static_cast<int>(s.vocab));
    m_settingPreset = false;
    recompute();
    return true;
}

void LlmMemoryDialog::shapeEdited() {
    if (m_settingPreset)
        return;
    // The shape sets the size: GPT-2's count from layers, width and vocabulary.
    m_settingPreset = true;
    m_preset->setCurrentIndex(m_preset->count() - 1);
    m_params->setValue(gptParameterCount(m_layers->value(), m_width->value(), m_context->value(),
                                         m_vocab->value()) /
                       1e9);
    m_settingPreset = false;
    recompute();
}

void LlmMemoryDialog::setTraining(bool training) {
    (training ? m_training : m_inference)->setChecked(true);
}

void LlmMemoryDialog::setPrecision(const QString& precision) {
    m_precision->setCurrentText(precision);
}

void LlmMemoryDialog::setCheckpointing(bool on) {
    m_checkpointing->setChecked(on);
}

void LlmMemoryDialog::setAttention(const QString& kind) {
    m_attention->setCurrentIndex(m_attention->findData(kind));
}

void LlmMemoryDialog::setBatch(int batch) {
    m_batch->setValue(batch);
}

LlmMemoryQuery LlmMemoryDialog::query() const {
    LlmMemoryQuery q;
    q.model.name = m_preset->currentText().toStdString();
    q.model.params = m_params->value() * 1e9;
    q.model.layers = m_layers->value();
    q.model.width = m_width->value();
    q.model.heads = m_heads->value();
    q.model.kvHeads = m_kvHeads->value() == m_heads->value() ? 0 : m_kvHeads->value();
    q.model.context = m_context->value();
    q.model.vocab = m_vocab->value();
    q.training = m_training->isChecked();
    q.precision = m_precision->currentText().toStdString();
    q.optimizer = m_optimizer->currentText().toStdString();
    q.batch = m_batch->value();
    q.accumulation = m_accumulation->value();
    q.checkpointing = m_checkpointing->isChecked();
    q.attention = m_attention->currentData().toString().toStdString();
    return q;
}

QString LlmMemoryDialog::fitsText() const {
    return m_fits->text();
}

void LlmMemoryDialog::recompute() {
    if (m_settingPreset)
        return;
    try {
        m_estimate = estimateLlmMemory(query());
    } catch (const ConfigError& e) {
        m_total->setText(tr("Cannot estimate this: %1").arg(QString::fromUtf8(e.what())));
        m_fits->clear();
        m_working->clear();
        return;
    }
    const LlmMemoryQuery q = query();
    m_total->setText(
        tr("%1 for %2")
            .arg(QString::fromStdString(formatGigabytes(static_cast<double>(m_estimate.total()))))
            .arg(!q.training ? tr("inference")
                 : m_estimate.effectiveBatch == 1
                     ? tr("training, one sequence a step")
                     : tr("training, an effective batch of %1 sequences")
                           .arg(m_estimate.effectiveBatch)));
    QStringList fits, tooSmall;
    for (const GpuMemory& g : commonGpus())
        (m_estimate.total() <= g.bytes ? fits : tooSmall) << QString::fromStdString(g.name);
    m_fits->setText(fits.isEmpty()
                        ? tr("Fits on none of the common GPUs: it needs several, sharing the "
                             "weights and optimizer state (ZeRO, FSDP), or less memory per "
                             "parameter.")
                        : tr("Fits on one %1. Too large for %2.")
                              .arg(fits.join(tr(", ")),
                                   tooSmall.isEmpty() ? tr("none") : tooSmall.join(tr(", "))));
    QStringList lines;
    for (const std::string& line : m_estimate.working)
        lines << QStringLiteral("\u2022 ") + QString::fromStdString(line);
    m_working->setText(lines.join(QLatin1Char('\n')));
    m_chart->setEstimate(m_estimate);
}

} // namespace tb::ui
