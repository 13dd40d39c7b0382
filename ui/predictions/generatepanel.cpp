// GeneratePanel: a failed load or a prompt the vocabulary cannot spell says why in the status
// line, in the error colour; the last text stays until new text replaces it.
#include "predictions/generatepanel.h"
#include "predictions/filechoosers.h"

#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace tb::ui {

GeneratePanel::GeneratePanel(QWidget* parent)
    : QWidget(parent),
      m_loader(
          [](const QString& path) {
              // One thread: a token a forward pass is little work, and a run may be training.
              return std::shared_ptr<TextGenerator>(
                  TextGenerator::fromCheckpoint(path.toStdString(), Device::cpu(), 1));
          },
          [this](const CheckpointLoader<TextGenerator>::Outcome& o) { loaded(o); }),
      m_writing(new QFutureWatcher<Written>(this)), m_status(new QLabel(this)),
      m_prompt(new QLineEdit(this)), m_tokens(new QSpinBox(this)),
      m_temperature(new QDoubleSpinBox(this)), m_topK(new QSpinBox(this)),
      m_seed(new QSpinBox(this)), m_generate(new QPushButton(tr("Generate"), this)),
      m_output(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("generate"));
    m_status->setObjectName(QStringLiteral("generate-status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setText(tr("No model yet: train a GPT on text (its checkpoint is used after each "
                         "epoch) or choose a checkpoint."));
    m_prompt->setObjectName(QStringLiteral("generate-prompt"));
    m_prompt->setAccessibleName(tr("Prompt"));
    m_prompt->setPlaceholderText(tr("Text to continue (empty: start from nothing)"));
    m_tokens->setObjectName(QStringLiteral("generate-tokens"));
    m_tokens->setAccessibleName(tr("Tokens to generate"));
    m_tokens->setRange(1, 5000);
    m_tokens->setValue(300);
    m_temperature->setObjectName(QStringLiteral("generate-temperature"));
    m_temperature->setAccessibleName(tr("Temperature"));
    m_temperature->setRange(0.0, 5.0);
    m_temperature->setSpecialValueText(tr("0 (greedy)")); // the most likely token, every time
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(0.8);
    m_temperature->setToolTip(tr("Divides the logits before the softmax: below 1 the likely "
                                 "tokens win more often, above 1 the text gets wilder; 0 always "
                                 "takes the most likely token (greedy)"));
    m_topK->setObjectName(QStringLiteral("generate-top-k"));
    m_topK->setAccessibleName(tr("Top-k"));
    m_topK->setRange(0, 100000);
    m_topK->setSpecialValueText(tr("all tokens"));
    m_topK->setToolTip(tr("Draw only among the k most likely tokens"));
    m_seed->setObjectName(QStringLiteral("generate-seed"));
    m_seed->setAccessibleName(tr("Seed"));
    m_seed->setRange(0, 1'000'000);
    m_generate->setObjectName(QStringLiteral("generate-button"));
    m_generate->setEnabled(false);
    m_output->setObjectName(QStringLiteral("generate-output"));
    m_output->setAccessibleName(tr("Generated text"));
    m_output->setReadOnly(true);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* useCheckpoint = new QPushButton(tr("Use Checkpoint…"), this);
    useCheckpoint->setObjectName(QStringLiteral("generate-checkpoint"));

    // Two columns of settings, so the panel fits beside the samples at 1280 px.
    auto* form = new QGridLayout;
    const auto label = [this](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, this);
        l->setBuddy(buddy);
        return l;
    };
    form->addWidget(label(tr("&Prompt:"), m_prompt), 0, 0);
    form->addWidget(m_prompt, 0, 1, 1, 3);
    form->addWidget(label(tr("T&okens:"), m_tokens), 1, 0);
    form->addWidget(m_tokens, 1, 1);
    form->addWidget(label(tr("Te&mperature:"), m_temperature), 1, 2);
    form->addWidget(m_temperature, 1, 3);
    form->addWidget(label(tr("Top-&k:"), m_topK), 2, 0);
    form->addWidget(m_topK, 2, 1);
    form->addWidget(label(tr("S&eed:"), m_seed), 2, 2);
    form->addWidget(m_seed, 2, 3);
    form->setColumnStretch(1, 1);
    form->setColumnStretch(3, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_generate);
    buttons->addStretch(1);
    buttons->addWidget(useCheckpoint);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_output, 1);

    connect(m_generate, &QPushButton::clicked, this, &GeneratePanel::generate);
    connect(m_prompt, &QLineEdit::returnPressed, this, &GeneratePanel::generate);
    connect(useCheckpoint, &QPushButton::clicked, this, &GeneratePanel::chooseCheckpoint);
    connect(m_writing, &QFutureWatcher<Written>::finished, this, &GeneratePanel::written);
}

GeneratePanel::~GeneratePanel() {
    // The writer fills what its future owns and uses the shared model, not us.
    m_writing->waitForFinished();
}

bool GeneratePanel::busy() const {
    return m_loader.running() || m_writing->isRunning();
}

QString GeneratePanel::status() const {
    return m_status->text();
}

QString GeneratePanel::text() const {
    return m_output->toPlainText();
}

void GeneratePanel::setError(const QString& message) {
    m_status->setText(message);
    m_status->setStyleSheet(QStringLiteral("color: #d13438;"));
}

void GeneratePanel::setCheckpoint(const QString& path) {
    if (!m_loader.request(path))
        return;
    m_status->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    m_status->setStyleSheet({});
}

QString GeneratePanel::modelText() const {
    return tr("%1, context %2 tokens")
        .arg(QFileInfo(m_loader.path()).fileName())
        .arg(m_model ? m_model->blockSize() : 0);
}

void GeneratePanel::loaded(const CheckpointLoader<TextGenerator>::Outcome& result) {
    m_model = result.model;
    m_generate->setEnabled(m_model != nullptr);
    if (!m_model) {
        setError(tr("Cannot use %1: %2").arg(QFileInfo(result.path).fileName(), result.error));
        return;
    }
    m_status->setStyleSheet({});
    m_status->setText(modelText());
    emit modelLoaded();
}

void GeneratePanel::generate() {
    if (!m_model || busy())
        return;
    GenerateOptions o;
    o.prompt = m_prompt->text().toStdString();
    o.tokens = m_tokens->value();
    o.temperature = static_cast<float>(m_temperature->value());
    o.topK = m_topK->value();
    o.seed = static_cast<uint64_t>(m_seed->value());
    m_generate->setEnabled(false);
    m_status->setStyleSheet({});
    m_status->setText(tr("Writing %1 tokens…").arg(o.tokens));
    m_writing->setFuture(QtConcurrent::run([model = m_model, o] {
        Written out;
        try {
            out.text = QString::fromStdString(model->generate(o));
        } catch (const std::exception& e) {
            out.error = QString::fromUtf8(e.what());
        }
        return out;
    }));
}

void GeneratePanel::written() {
    const Written result = m_writing->result();
    m_generate->setEnabled(m_model != nullptr);
    if (!result.error.isEmpty()) {
        setError(result.error);
        return;
    }
    m_status->setText(modelText());
    m_output->setPlainText(result.text);
    emit generated();
}

void GeneratePanel::chooseCheckpoint() {
    setCheckpoint(askForCheckpoint(this, m_loader.path()));
}

} // namespace tb::ui
