// HelpWindow: the guides, browsable from the Help menu: a table of contents (each guide and its
// headings), a search over all of them (results by guide and heading), and the page, rendered
// from Markdown with its screenshots. Links between guides open here; web links in a browser.
#pragma once

#include "help/helpdocuments.h"

#include <QWidget>

class QLineEdit;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace tb::ui {

class HelpWindow : public QWidget {
    Q_OBJECT

public:
    explicit HelpWindow(QWidget* parent = nullptr);

    // Shows a guide ("user-guide.md"), at a heading when one is given.
    void showDocument(const QString& file, const QString& heading = {});
    // Lists where the words occur (what typing in the search field does); empty: the contents.
    void search(const QString& text);

    QString currentFile() const;
    QTextBrowser* page() const { return m_page; }
    QTreeWidget* contents() const { return m_contents; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fillContents();
    void fitImages();
    void openItem(QTreeWidgetItem* item);
    void openLink(const QUrl& url);
    // Scrolls the page to the first occurrence of `text` after the start (or after `after`).
    void reveal(const QString& text, const QString& after = {});

    HelpDocuments m_documents;
    QLineEdit* m_search;
    QTreeWidget* m_contents;
    QTextBrowser* m_page;
    int m_current = -1;
};

} // namespace tb::ui
