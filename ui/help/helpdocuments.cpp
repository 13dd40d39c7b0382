// HelpDocuments: Markdown read from :/docs, headings found by their "#" lines (outside code).
#include "help/helpdocuments.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <algorithm>

namespace tb::ui {

namespace {

// The guides in the order they are listed; the other pages follow by title.
const QStringList kGuides = {QStringLiteral("user-guide.md"), QStringLiteral("teaching.md"),
                             QStringLiteral("developer-guide.md")};

HelpDocument read(const QString& file) {
    HelpDocument d;
    d.file = file;
    QFile f(QStringLiteral(":/docs/") + file);
    if (f.open(QIODevice::ReadOnly | QIODevice::Text))
        d.markdown = QString::fromUtf8(f.readAll());
    static const QRegularExpression heading(QStringLiteral("^(#{1,6})\\s+(.*\\S)\\s*$"));
    bool inCode = false;
    for (const QString& line : d.markdown.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("```"))) {
            inCode = !inCode;
            continue;
        }
        if (const auto m = heading.match(line); !inCode && m.hasMatch())
            d.headings.push_back({static_cast<int>(m.capturedLength(1)), m.captured(2)});
    }
    d.title = d.headings.isEmpty() ? file : d.headings.front().text;
    return d;
}

} // namespace

HelpDocuments::HelpDocuments() {
    QStringList others = QDir(QStringLiteral(":/docs")).entryList({QStringLiteral("*.md")});
    for (const QString& guide : kGuides) {
        others.removeAll(guide);
        m_documents.push_back(read(guide));
    }
    QVector<HelpDocument> rest;
    for (const QString& file : others)
        rest.push_back(read(file));
    std::sort(rest.begin(), rest.end(),
              [](const HelpDocument& a, const HelpDocument& b) { return a.title < b.title; });
    m_documents += rest;
}

int HelpDocuments::indexOf(const QString& file) const {
    for (int i = 0; i < m_documents.size(); ++i)
        if (m_documents[i].file == file)
            return i;
    return -1;
}

QVector<HelpMatch> HelpDocuments::search(const QString& query, int limit) const {
    const QStringList words = query.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QVector<HelpMatch> matches;
    if (words.isEmpty())
        return matches;
    static const QRegularExpression heading(QStringLiteral("^#{1,6}\\s+(.*\\S)\\s*$"));
    for (int d = 0; d < m_documents.size(); ++d) {
        QString under;
        for (const QString& line : m_documents[d].markdown.split(QLatin1Char('\n'))) {
            if (const auto m = heading.match(line); m.hasMatch())
                under = m.captured(1);
            const bool all = std::all_of(words.begin(), words.end(), [&](const QString& w) {
                return line.contains(w, Qt::CaseInsensitive);
            });
            if (!all)
                continue;
            matches.push_back({d, under, line.trimmed()});
            if (matches.size() >= limit)
                return matches;
        }
    }
    return matches;
}

} // namespace tb::ui
