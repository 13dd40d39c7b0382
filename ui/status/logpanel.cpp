// LogPanel: a read-only QTextBrowser; links of the form concept:ID open that concept card.
#include "logpanel.h"

#include "concepts/conceptcards.h"
#include "train/advisor.h"

#include <QDateTime>
#include <QScrollBar>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace tb::ui {

LogPanel::LogPanel(QWidget* parent) : QWidget(parent), m_view(new QTextBrowser(this)) {
    m_view->setObjectName(QStringLiteral("log"));
    m_view->setAccessibleName(tr("Log"));
    m_view->setAccessibleDescription(tr("What the runs said, newest last"));
    m_view->setOpenLinks(false);
    m_view->document()->setMaximumBlockCount(5000); // a long run's log stays cheap
    connect(m_view, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("concept"))
            showConceptCard(this, url.path());
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
}

void LogPanel::append(const QString& html) {
    QScrollBar* bar = m_view->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_view->append(QStringLiteral("<span style='color:gray'>%1</span> %2")
                       .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), html));
    if (atEnd) // follow the log unless the user scrolled back to read
        bar->setValue(bar->maximum());
}

void LogPanel::addMessage(LogLevel level, const QString& message) {
    if (level == LogLevel::Debug)
        return;
    const QString text = message.toHtmlEscaped();
    if (level == LogLevel::Error)
        append(QStringLiteral("<span style='color:#d13438'><b>%1</b> %2</span>")
                   .arg(tr("error:"), text));
    else if (level == LogLevel::Warning)
        append(QStringLiteral("<span style='color:#c27c0e'><b>%1</b> %2</span>")
                   .arg(tr("warning:"), text));
    else
        append(text);
}

void LogPanel::addAdvice(const AdviceEvent& advice) {
    const QString id = QString::fromStdString(conceptCardOfRule(advice.rule));
    QString html = QStringLiteral("<span style='color:#2b7bb9'><b>%1</b> %2</span>")
                       .arg(tr("advice:"), QString::fromStdString(advice.message).toHtmlEscaped());
    if (findConceptCard(id))
        html += QStringLiteral(" <a href='concept:%1'>%2</a>").arg(id, tr("Why?"));
    append(html);
}

void LogPanel::addRunEnding(const RunFinishedEvent& run, bool detector,
                            std::optional<double> bestMeanIoU) {
    const QString status = QString::fromStdString(toString(run.status));
    const RunSummary& s = run.summary;
    addMessage(LogLevel::Info,
               s.bestEpoch == 0 ? tr("run %1 before its first validation").arg(status)
               : detector       ? tr("run %1; best mAP50-95 %2 at epoch %3")
                                .arg(status)
                                .arg(s.bestValAcc, 0, 'f', 3)
                                .arg(s.bestEpoch)
               : bestMeanIoU ? tr("run %1; best mIoU %2 at epoch %3 (pixel accuracy %4%)")
                                   .arg(status)
                                   .arg(*bestMeanIoU, 0, 'f', 3)
                                   .arg(s.bestEpoch)
                                   .arg(s.bestValAcc * 100.0, 0, 'f', 2)
                             : tr("run %1; best validation accuracy %2% at epoch %3")
                                   .arg(status)
                                   .arg(s.bestValAcc * 100.0, 0, 'f', 2)
                                   .arg(s.bestEpoch));
}

void LogPanel::clear() {
    m_view->clear();
}

QString LogPanel::plainText() const {
    return m_view->toPlainText();
}

} // namespace tb::ui
