// FailureBanner: the text comes from the engine's error; the kind alone decides the buttons.
#include "failurebanner.h"

#include "concepts/conceptcards.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace tb::ui {

FailureBanner::FailureBanner(QWidget* parent)
    : QFrame(parent), m_text(new QLabel(this)), m_retry(new QPushButton(this)) {
    setObjectName(QStringLiteral("failure-banner"));
    setFrameShape(QFrame::StyledPanel);
    setTone("#d13438", "rgba(209, 52, 56, 0.08)");
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    m_text->setObjectName(QStringLiteral("failure-text"));
    connect(m_text, &QLabel::linkActivated, this, [this](const QString& link) {
        showConceptCard(this, link.section(QLatin1Char(':'), 1));
    });
    m_retry->setObjectName(QStringLiteral("failure-retry"));
    connect(m_retry, &QPushButton::clicked, this, [this] {
        hide();
        emit retryRequested(m_failure.retryChanges);
    });
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("×"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_retry, 0, Qt::AlignTop);
    layout->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void FailureBanner::setTone(const char* border, const char* background) {
    setStyleSheet(QStringLiteral("#failure-banner { border: 1px solid %1; border-radius: 4px; "
                                 "background: %2; }")
                      .arg(QLatin1String(border), QLatin1String(background)));
}

void FailureBanner::showRecording(const QString& runId, RecordingNotice::Kind kind,
                                  const QString& message) {
    // A failure stays up until dismissed; a resolved wait of another run changes nothing.
    if (kind == RecordingNotice::Kind::Recorded &&
        (m_recordingRun != runId || !m_showing.startsWith(QLatin1String("recording"))))
        return;
    QString html;
    switch (kind) {
    case RecordingNotice::Kind::Waiting:
        setTone("#c19c00", "rgba(193, 156, 0, 0.10)");
        html = tr("<b>Run %1 is not being recorded right now.</b> Training goes on; its steps "
                  "are held in memory and written as soon as the run store can take them. "
                  "Closing the window before then gives them up. %2");
        m_showing = QStringLiteral("recording-waiting");
        break;
    case RecordingNotice::Kind::Lost:
        setTone("#d13438", "rgba(209, 52, 56, 0.08)");
        html = tr("<b>Part of run %1 was not recorded.</b> Training went on, but what is missing "
                  "from the run store stays missing. %2");
        m_showing = QStringLiteral("recording-lost");
        break;
    case RecordingNotice::Kind::Recorded:
        setTone("#107c10", "rgba(16, 124, 16, 0.08)");
        html = tr("<b>Run %1 is recorded now:</b> every step held during the wait was written. %2");
        m_showing = QStringLiteral("recording-recorded");
        break;
    }
    m_recordingRun = runId;
    m_text->setText(html.arg(runId.toHtmlEscaped(), message.toHtmlEscaped()));
    m_retry->hide();
    show();
}

void FailureBanner::showFailure(const RunFinishedEvent& event) {
    m_failure = event.failure;
    m_showing = QStringLiteral("failure");
    setTone("#d13438", "rgba(209, 52, 56, 0.08)");
    QString html =
        QStringLiteral("<b>%1</b> %2")
            .arg(tr("The run failed:"), QString::fromStdString(event.error).toHtmlEscaped());
    if (m_failure.kind == FailureKind::OutOfMemory)
        html += QStringLiteral(" <a href='concept:out-of-memory'>%1</a>").arg(tr("Why?"));
    else if (m_failure.kind == FailureKind::NonFiniteLoss)
        html += QStringLiteral(" <a href='concept:nan-loss'>%1</a>").arg(tr("Why?"));
    m_text->setText(html);
    QStringList changes;
    for (const auto& [key, value] : m_failure.retryChanges)
        changes << QStringLiteral("%1=%2").arg(QString::fromStdString(key),
                                               QString::fromStdString(value));
    m_retry->setText(tr("Retry with %1").arg(changes.join(QStringLiteral(", "))));
    m_retry->setToolTip(tr("Half the batch and twice the accumulation: the same effective batch "
                           "in half the activation memory"));
    m_retry->setVisible(!m_failure.retryChanges.empty());
    show();
}

} // namespace tb::ui
