// Concept cards from the Qt resource compiled into the UI library.
#include "conceptcards.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QVBoxLayout>

namespace tb::ui {

const QVector<ConceptCard>& conceptCards() {
    static const QVector<ConceptCard> cards = [] {
        QVector<ConceptCard> out;
        QFile file(QStringLiteral(":/concepts/concepts.json"));
        if (!file.open(QIODevice::ReadOnly))
            return out;
        for (const QJsonValue& v : QJsonDocument::fromJson(file.readAll()).array()) {
            const QJsonObject o = v.toObject();
            out.push_back({o[QLatin1String("id")].toString(), o[QLatin1String("title")].toString(),
                           o[QLatin1String("body")].toString(),
                           o[QLatin1String("signal")].toString()});
        }
        return out;
    }();
    return cards;
}

const ConceptCard* findConceptCard(const QString& id) {
    for (const ConceptCard& card : conceptCards())
        if (card.id == id)
            return &card;
    return nullptr;
}

QString conceptCardHtml(const ConceptCard& card) {
    QString body = card.body.toHtmlEscaped();
    // The texts use <b> for emphasis only; keep it, escape everything else.
    body.replace(QLatin1String("&lt;b&gt;"), QLatin1String("<b>"))
        .replace(QLatin1String("&lt;/b&gt;"), QLatin1String("</b>"))
        .replace(QLatin1String("\n\n"), QLatin1String("<p>"));
    return QStringLiteral("<h3>%1</h3><p>%2<p><i>%3: %4</i>")
        .arg(card.title.toHtmlEscaped(), body, QObject::tr("Where to see it"),
             card.signal.toHtmlEscaped());
}

void showConceptCard(QWidget* parent, const QString& id) {
    const ConceptCard* card = findConceptCard(id);
    if (!card)
        return;
    auto* dialog = new QDialog(parent);
    dialog->setObjectName(QStringLiteral("concept-") + id);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(card->title);
    auto* text = new QLabel(dialog);
    text->setTextFormat(Qt::RichText);
    text->setWordWrap(true);
    text->setText(conceptCardHtml(*card));
    text->setMinimumWidth(420);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    layout->addWidget(buttons);
    dialog->show();
}

} // namespace tb::ui
