// HelpDocuments: the guides shipped in the program (resources/docs/, Markdown, built into its
// resources): their titles, their headings for a table of contents, and a search over their text.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

namespace tb::ui {

struct HelpHeading {
    int level = 1; // 1 for "#", 2 for "##", ...
    QString text;
};

struct HelpDocument {
    QString file;  // "user-guide.md", under :/docs
    QString title; // its first heading
    QString markdown;
    QVector<HelpHeading> headings;
};

struct HelpMatch {
    int document = 0; // index into documents()
    QString heading;  // the heading the match falls under ("" before the first)
    QString excerpt;  // the line it was found on
};

class HelpDocuments {
public:
    // Reads every guide from the resources, the user guide first, then the teaching and
    // developer guides, then the reference pages by title.
    HelpDocuments();

    const QVector<HelpDocument>& documents() const { return m_documents; }
    int indexOf(const QString& file) const;
    // Lines holding every word of `query` (case-insensitive), at most `limit`, in document order.
    QVector<HelpMatch> search(const QString& query, int limit = 200) const;

private:
    QVector<HelpDocument> m_documents;
};

} // namespace tb::ui
