#include "learn/lessonview.h"

#include "experiments/experimentpreset.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace tb::ui {

LessonView::LessonView(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_goal(new QLabel(this)),
      m_steps(new QLabel(this)), m_buttonRow(new QHBoxLayout) {
    setObjectName(QStringLiteral("lesson-view"));
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setObjectName(QStringLiteral("lesson-title"));
    m_goal->setWordWrap(true);
    m_steps->setWordWrap(true);
    m_steps->setObjectName(QStringLiteral("lesson-steps"));
    m_steps->setTextFormat(Qt::RichText);
    m_steps->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* leave = new QPushButton(tr("Leave Lesson"), this);
    leave->setObjectName(QStringLiteral("lesson-leave"));
    connect(leave, &QPushButton::clicked, this, &LessonView::leaveRequested);
    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(leave);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_goal);
    layout->addWidget(m_steps);
    layout->addLayout(m_buttonRow);
}

void LessonView::setLesson(const Lesson& lesson, const QStringList& experimentSources) {
    m_title->setText(QString::fromStdString(lesson.title));
    m_goal->setText(QString::fromStdString(lesson.goal));
    m_goal->setVisible(!lesson.goal.empty());
    QString steps = QStringLiteral("<ol>");
    for (const std::string& step : lesson.steps)
        steps += QStringLiteral("<li style='margin-bottom: 4px;'>%1</li>")
                     .arg(QString::fromStdString(step).toHtmlEscaped());
    m_steps->setText(steps + QStringLiteral("</ol>"));
    qDeleteAll(m_buttons);
    m_buttons.clear();
    while (QLayoutItem* item = m_buttonRow->takeAt(0))
        delete item;
    for (const QString& source : experimentSources) {
        QString title = source;
        try {
            title = QString::fromStdString(findExperiment(source.toStdString()).title);
        } catch (const std::exception&) {
            // The lesson was checked when it opened; a file removed since fails when run.
        }
        auto* button = new QPushButton(tr("Run Experiment: %1").arg(title), this);
        button->setObjectName(QStringLiteral("lesson-experiment"));
        connect(button, &QPushButton::clicked, this,
                [this, source] { emit experimentRequested(source); });
        m_buttonRow->addWidget(button);
        m_buttons << button;
    }
    m_buttonRow->addStretch(1);
}

} // namespace tb::ui
