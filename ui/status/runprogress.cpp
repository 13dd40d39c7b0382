// RunProgress: the ETA is the engine's RemainingTime, as the CLI's progress line's is.
#include "runprogress.h"

#include "core/textformat.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>

#include <cmath>

namespace tb::ui {

namespace {

QString durationText(double seconds) {
    return QString::fromStdString(formatDuration(seconds));
}

} // namespace

RunProgress::RunProgress(QWidget* parent)
    : QWidget(parent), m_state(new QLabel(tr("Ready"), this)), m_bar(new QProgressBar(this)),
      m_details(new QLabel(this)) {
    m_state->setObjectName(QStringLiteral("run-state"));
    m_bar->setObjectName(QStringLiteral("run-progress"));
    m_bar->setRange(0, 1);
    m_bar->setValue(0);
    m_bar->setTextVisible(true);
    m_bar->setFormat(tr("no run yet"));
    m_bar->setMinimumWidth(160);
    m_details->setObjectName(QStringLiteral("run-details"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_state);
    layout->addWidget(m_bar, 1);
    layout->addWidget(m_details);
}

void RunProgress::begin(const RunStartedEvent& event) {
    m_total = std::max<int64_t>(event.totalSteps, 1);
    m_perEpoch = std::max<int64_t>(event.stepsPerEpoch, 1);
    m_startStep = m_step = event.resumedFromStep;
    m_bar->setRange(0, static_cast<int>(std::min<int64_t>(m_total, INT32_MAX)));
    m_bar->setValue(static_cast<int>(m_step));
    m_bar->setFormat(tr("step %v / %m"));
    m_details->setText(
        tr("run %1 on %2")
            .arg(QString::fromStdString(event.runId), QString::fromStdString(event.device)));
    m_remaining.begin(m_total, m_startStep);
    m_tokens = tokenMetricsOf(event.config);
}

void RunProgress::update(const StepEvent& last) {
    m_step = last.step;
    m_bar->setValue(static_cast<int>(std::min<int64_t>(last.step, m_total)));
    const double eta = m_remaining.seconds(last.step);
    const int64_t epochs = (m_total + m_perEpoch - 1) / m_perEpoch;
    const QString speed =
        m_tokens.languageModel()
            ? tr("%L1 tokens/s").arg(m_tokens.tokensPerSec(last.samplesPerSec), 0, 'f', 0)
            : tr("%L1 samples/s").arg(last.samplesPerSec, 0, 'f', 0);
    m_details->setText(tr("epoch %1/%2  ·  %3  ·  ETA %4")
                           .arg(last.epoch)
                           .arg(epochs)
                           .arg(speed, durationText(eta)));
}

void RunProgress::finish(const RunFinishedEvent& event) {
    m_details->setText(tr("%1 after %2, %3 steps")
                           .arg(QString::fromStdString(toString(event.status)))
                           .arg(durationText(event.summary.durationSec))
                           .arg(event.summary.steps));
}

void RunProgress::setStateText(const QString& text) {
    m_state->setText(text);
}

} // namespace tb::ui
