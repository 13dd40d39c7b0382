// LessonView: the open lesson at the top of the Learn tab: its title and goal, the steps as a
// numbered list, a button per experiment and one to leave the lesson.
#pragma once

#include "experiments/lesson.h"

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QPushButton;

namespace tb::ui {

class LessonView : public QWidget {
    Q_OBJECT

public:
    explicit LessonView(QWidget* parent = nullptr);

    // `experimentSources` resolves each of the lesson's experiments to what findExperiment()
    // takes (a built-in id, or the path of a preset beside the lesson file).
    void setLesson(const Lesson& lesson, const QStringList& experimentSources);
    // The experiment buttons, in the lesson's order.
    QList<QPushButton*> experimentButtons() const { return m_buttons; }

signals:
    void experimentRequested(const QString& idOrPath);
    void leaveRequested();

private:
    QLabel* m_title;
    QLabel* m_goal;
    QLabel* m_steps;
    QHBoxLayout* m_buttonRow;
    QList<QPushButton*> m_buttons;
};

} // namespace tb::ui
