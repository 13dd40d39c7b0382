// LearnPanel: the Learn tab. Every concept card in one browsable list (filtered as you type),
// the chosen card beside it with the experiment that shows it, started from the card; above
// them, the open lesson (its cards listed first).
#pragma once

#include "experiments/lesson.h"

#include <QWidget>

#include <optional>

class QGroupBox;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTextBrowser;

namespace tb::ui {

class LessonView;

class LearnPanel : public QWidget {
    Q_OBJECT

public:
    explicit LearnPanel(QWidget* parent = nullptr);

    // Shows the lesson above the cards (its cards first); see LessonView::setLesson.
    void setLesson(const Lesson& lesson, const QStringList& experimentSources);
    void clearLesson();
    bool hasLesson() const { return m_lesson.has_value(); }

    // Selects and shows a card; false for an unknown id.
    bool showCard(const QString& id);
    QString shownCard() const;
    // The experiment preset of the shown card, "" when it has none.
    QString shownExperiment() const { return m_experiment; }

    QListWidget* cardList() const { return m_cards; }
    QTextBrowser* cardView() const { return m_view; }
    QPushButton* experimentButton() const { return m_run; }
    LessonView* lessonView() const { return m_lessonView; }

signals:
    void experimentRequested(const QString& idOrPath);
    void leaveLessonRequested();

private:
    void fillCards();
    void filter(const QString& text);
    void showItem();

    std::optional<Lesson> m_lesson;
    QString m_experiment;
    QGroupBox* m_lessonBox;
    LessonView* m_lessonView;
    QLineEdit* m_search;
    QListWidget* m_cards;
    QTextBrowser* m_view;
    QPushButton* m_run;
};

} // namespace tb::ui
