// Concept cards: short explanations of what each performance knob and advisor message is about
// (resources/concepts/concepts.json), opened from the "?" next to a control or a log line.
#pragma once

#include <QString>
#include <QVector>

class QWidget;

namespace tb::ui {

struct ConceptCard {
    QString id; // a config key ("pin_memory") or an advisor rule ("data-starved")
    QString title;
    QString body;   // rich text
    QString signal; // where the concept shows in the window
};

// All cards, loaded once from the resources.
const QVector<ConceptCard>& conceptCards();
// The card with this id, or nullptr.
const ConceptCard* findConceptCard(const QString& id);
// The card as rich text: title, body (its <b> kept, everything else escaped), where to see it.
QString conceptCardHtml(const ConceptCard& card);
// Opens the card in a non-modal dialog over `parent`; does nothing for an unknown id.
void showConceptCard(QWidget* parent, const QString& id);

} // namespace tb::ui
