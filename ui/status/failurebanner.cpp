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
    setStyleSheet(QStringLiteral("#failure-banner { border: 1px solid #d13438; border-radius: 4px; "
                                 "background: rgba(209, 52, 56, 0.08); }"));
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

void FailureBanner::showFailure(const RunFinishedEvent& event) {
    m_failure = event.failure;
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
