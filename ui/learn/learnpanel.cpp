// LearnPanel: a card's experiment is the built-in preset whose "concept" names the card.
#include "learn/learnpanel.h"

#include "concepts/conceptcards.h"
#include "experiments/experimentpreset.h"
#include "learn/lessonview.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace tb::ui {

namespace {
const ExperimentPreset* experimentOf(const QString& cardId) {
    for (const ExperimentPreset& p : builtinExperiments())
        if (QString::fromStdString(p.conceptCard) == cardId)
            return &p;
    return nullptr;
}
} // namespace

LearnPanel::LearnPanel(QWidget* parent)
    : QWidget(parent), m_lessonBox(new QGroupBox(tr("Lesson"), this)),
      m_lessonView(new LessonView(m_lessonBox)), m_search(new QLineEdit(this)),
      m_cards(new QListWidget(this)), m_view(new QTextBrowser(this)), m_run(new QPushButton(this)) {
    setObjectName(QStringLiteral("learn-panel"));
    auto* lessonLayout = new QVBoxLayout(m_lessonBox);
    lessonLayout->addWidget(m_lessonView);
    m_lessonBox->hide();
    m_search->setObjectName(QStringLiteral("learn-search"));
    m_search->setPlaceholderText(tr("Search the concepts"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search the concepts"));
    m_cards->setObjectName(QStringLiteral("learn-cards"));
    m_cards->setAccessibleName(tr("Concepts"));
    m_cards->setWordWrap(true);
    m_cards->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_cards->setMinimumWidth(200);
    m_view->setObjectName(QStringLiteral("learn-card"));
    m_view->setAccessibleName(tr("Concept card"));
    m_view->setOpenLinks(false);
    m_run->setObjectName(QStringLiteral("learn-run-experiment"));

    auto* listColumn = new QWidget(this);
    auto* listLayout = new QVBoxLayout(listColumn);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addWidget(m_search);
    listLayout->addWidget(m_cards, 1);
    auto* cardColumn = new QWidget(this);
    auto* cardLayout = new QVBoxLayout(cardColumn);
    cardLayout->setContentsMargins(0, 0, 0, 0);
    cardLayout->addWidget(m_view, 1);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_run);
    runRow->addStretch(1);
    cardLayout->addLayout(runRow);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(listColumn);
    split->addWidget(cardColumn);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_lessonBox);
    layout->addWidget(split, 1);

    connect(m_search, &QLineEdit::textChanged, this, &LearnPanel::filter);
    connect(m_cards, &QListWidget::currentItemChanged, this, &LearnPanel::showItem);
    connect(m_run, &QPushButton::clicked, this, [this] {
        if (!m_experiment.isEmpty())
            emit experimentRequested(m_experiment);
    });
    connect(m_lessonView, &LessonView::experimentRequested, this, &LearnPanel::experimentRequested);
    connect(m_lessonView, &LessonView::leaveRequested, this, &LearnPanel::leaveLessonRequested);
    fillCards();
    m_cards->setCurrentRow(0);
}

void LearnPanel::setLesson(const Lesson& lesson, const QStringList& experimentSources) {
    m_lesson = lesson;
    m_lessonBox->setTitle(tr("Lesson"));
    m_lessonView->setLesson(lesson, experimentSources);
    m_lessonBox->show();
    fillCards();
    if (!lesson.cards.empty())
        showCard(QString::fromStdString(lesson.cards.front()));
}

void LearnPanel::clearLesson() {
    m_lesson.reset();
    m_lessonBox->hide();
    const QString shown = shownCard();
    fillCards();
    showCard(shown);
}

// The lesson's cards first (bold), then every other card in the file's order.
void LearnPanel::fillCards() {
    const QSignalBlocker block(m_cards);
    m_cards->clear();
    QStringList first;
    if (m_lesson)
        for (const std::string& id : m_lesson->cards)
            first << QString::fromStdString(id);
    const auto add = [this](const ConceptCard& card, bool inLesson) {
        auto* item = new QListWidgetItem(card.title, m_cards);
        item->setData(Qt::UserRole, card.id);
        QFont font = item->font();
        font.setBold(inLesson);
        item->setFont(font);
        item->setToolTip(inLesson ? tr("part of this lesson") : QString());
    };
    for (const QString& id : first)
        if (const ConceptCard* card = findConceptCard(id))
            add(*card, true);
    for (const ConceptCard& card : conceptCards())
        if (!first.contains(card.id))
            add(card, false);
    filter(m_search->text());
}

void LearnPanel::filter(const QString& text) {
    for (int i = 0; i < m_cards->count(); ++i) {
        QListWidgetItem* item = m_cards->item(i);
        const ConceptCard* card = findConceptCard(item->data(Qt::UserRole).toString());
        const bool match = text.isEmpty() || item->text().contains(text, Qt::CaseInsensitive) ||
                           (card && card->body.contains(text, Qt::CaseInsensitive));
        item->setHidden(!match);
    }
}

bool LearnPanel::showCard(const QString& id) {
    for (int i = 0; i < m_cards->count(); ++i)
        if (m_cards->item(i)->data(Qt::UserRole).toString() == id) {
            m_cards->setCurrentRow(i);
            showItem();
            return true;
        }
    return false;
}

QString LearnPanel::shownCard() const {
    const QListWidgetItem* item = m_cards->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

void LearnPanel::showItem() {
    const ConceptCard* card = findConceptCard(shownCard());
    if (!card) {
        m_view->clear();
        m_run->hide();
        return;
    }
    m_view->setHtml(conceptCardHtml(*card));
    const ExperimentPreset* preset = experimentOf(card->id);
    m_experiment = preset ? QString::fromStdString(preset->id) : QString();
    m_run->setVisible(preset != nullptr);
    if (preset) {
        m_run->setText(tr("Run Experiment: %1").arg(QString::fromStdString(preset->title)));
        m_run->setToolTip(QString::fromStdString(preset->question));
    }
}

} // namespace tb::ui
