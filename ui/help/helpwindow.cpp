// HelpWindow: a search field over a contents tree, beside a QTextBrowser showing Markdown with
// :/docs as its search path (so "images/x.png" in a guide is its screenshot).
#include "help/helpwindow.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tb::ui {

namespace {
constexpr int kDocumentRole = Qt::UserRole;
constexpr int kHeadingRole = Qt::UserRole + 1;
constexpr int kFindRole = Qt::UserRole + 2; // a search result: the words to show on the page
} // namespace

HelpWindow::HelpWindow(QWidget* parent)
    : QWidget(parent, Qt::Window), m_search(new QLineEdit(this)), m_contents(new QTreeWidget(this)),
      m_page(new QTextBrowser(this)) {
    setWindowTitle(tr("TrainBench Help"));
    setObjectName(QStringLiteral("help-window"));
    m_search->setObjectName(QStringLiteral("help-search"));
    m_search->setPlaceholderText(tr("Search the guides"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search the guides"));
    m_contents->setObjectName(QStringLiteral("help-contents"));
    m_contents->setHeaderHidden(true);
    m_contents->setAccessibleName(tr("Contents"));
    m_page->setObjectName(QStringLiteral("help-page"));
    m_page->setSearchPaths({QStringLiteral(":/docs")});
    m_page->setOpenLinks(false);
    m_page->setAccessibleName(tr("Help page"));
    connect(m_search, &QLineEdit::textChanged, this, &HelpWindow::search);
    connect(m_contents, &QTreeWidget::itemActivated, this, &HelpWindow::openItem);
    connect(m_contents, &QTreeWidget::itemClicked, this, &HelpWindow::openItem);
    connect(m_page, &QTextBrowser::anchorClicked, this, &HelpWindow::openLink);

    auto* left = new QWidget(this);
    auto* column = new QVBoxLayout(left);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_search);
    column->addWidget(m_contents, 1);
    auto* split = new QSplitter(this);
    split->addWidget(left);
    split->addWidget(m_page);
    split->setStretchFactor(1, 1);
    split->setSizes({260, 740});
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(split);
    resize(1100, 760);
    fillContents();
    if (!m_documents.documents().isEmpty())
        showDocument(m_documents.documents().front().file);
}

QString HelpWindow::currentFile() const {
    return m_current < 0 ? QString() : m_documents.documents()[m_current].file;
}

void HelpWindow::fillContents() {
    m_contents->clear();
    const auto& docs = m_documents.documents();
    for (int d = 0; d < docs.size(); ++d) {
        auto* top = new QTreeWidgetItem(m_contents, {docs[d].title});
        top->setData(0, kDocumentRole, d);
        // Sections (##) under the guide, their subsections (###) under them.
        QTreeWidgetItem* section = nullptr;
        for (const HelpHeading& h : docs[d].headings.mid(1)) { // the first is the title
            if (h.level < 2 || h.level > 3 || (h.level == 3 && !section))
                continue;
            auto* item = new QTreeWidgetItem(h.level == 2 ? top : section, {h.text});
            item->setData(0, kDocumentRole, d);
            item->setData(0, kHeadingRole, h.text);
            if (h.level == 2)
                section = item;
        }
    }
}

void HelpWindow::search(const QString& text) {
    if (m_search->text() != text)
        m_search->setText(text); // calls back here through textChanged
    if (text.trimmed().isEmpty()) {
        fillContents();
        return;
    }
    m_contents->clear();
    const auto& docs = m_documents.documents();
    const QVector<HelpMatch> matches = m_documents.search(text);
    QTreeWidgetItem* top = nullptr;
    int topDocument = -1;
    for (const HelpMatch& m : matches) {
        if (m.document != topDocument) {
            top = new QTreeWidgetItem(m_contents, {docs[m.document].title});
            top->setData(0, kDocumentRole, m.document);
            top->setExpanded(true);
            topDocument = m.document;
        }
        QString excerpt = m.excerpt;
        excerpt.remove(QLatin1Char('*')).remove(QLatin1Char('`'));
        auto* item = new QTreeWidgetItem(
            top, {m.heading.isEmpty() ? excerpt : m.heading + QStringLiteral(": ") + excerpt});
        item->setToolTip(0, excerpt);
        item->setData(0, kDocumentRole, m.document);
        item->setData(0, kHeadingRole, m.heading);
        item->setData(0, kFindRole, text.simplified().section(QLatin1Char(' '), 0, 0));
    }
    if (matches.isEmpty())
        new QTreeWidgetItem(m_contents, {tr("Nothing found for \"%1\"").arg(text.trimmed())});
}

void HelpWindow::openItem(QTreeWidgetItem* item) {
    if (!item || !item->data(0, kDocumentRole).isValid())
        return;
    const int d = item->data(0, kDocumentRole).toInt();
    const QString heading = item->data(0, kHeadingRole).toString();
    showDocument(m_documents.documents()[d].file, heading);
    if (const QString words = item->data(0, kFindRole).toString(); !words.isEmpty())
        reveal(words, heading);
}

void HelpWindow::showDocument(const QString& file, const QString& heading) {
    const int d = m_documents.indexOf(file);
    if (d < 0)
        return;
    if (d != m_current) {
        m_current = d;
        m_page->setMarkdown(m_documents.documents()[d].markdown);
        fitImages();
        setWindowTitle(tr("%1 - TrainBench Help").arg(m_documents.documents()[d].title));
    }
    if (heading.isEmpty())
        m_page->verticalScrollBar()->setValue(0);
    else
        reveal(heading);
}

// Screenshots are as wide as the window they show: each is drawn at most as wide as the page.
void HelpWindow::fitImages() {
    const int width = m_page->viewport()->width() - 2 * int(m_page->document()->documentMargin());
    QTextDocument* doc = m_page->document();
    for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.charFormat().isImageFormat())
                continue;
            QTextImageFormat image = fragment.charFormat().toImageFormat();
            const QImage natural =
                doc->resource(QTextDocument::ImageResource, QUrl(image.name())).value<QImage>();
            if (natural.isNull() || width <= 0)
                continue;
            const double scale = std::min(1.0, double(width) / natural.width());
            image.setWidth(natural.width() * scale);
            image.setHeight(natural.height() * scale);
            QTextCursor cursor(doc);
            cursor.setPosition(fragment.position());
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
            cursor.setCharFormat(image);
        }
}

void HelpWindow::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitImages();
}

void HelpWindow::reveal(const QString& text, const QString& after) {
    QTextCursor start(m_page->document());
    if (!after.isEmpty())
        start = m_page->document()->find(after, start);
    const QTextCursor found =
        m_page->document()->find(text, start.isNull() ? QTextCursor(m_page->document()) : start);
    if (found.isNull())
        return;
    m_page->setTextCursor(found);
    // Put it at the top of the page, not wherever ensureCursorVisible leaves it.
    m_page->verticalScrollBar()->setValue(m_page->verticalScrollBar()->value() +
                                          m_page->cursorRect().top());
}

void HelpWindow::openLink(const QUrl& url) {
    // A heading's anchor ("#lesson-plans") is its words: found on the page, whatever the case.
    const QString heading = url.fragment().replace(QLatin1Char('-'), QLatin1Char(' '));
    if (url.scheme().isEmpty() && url.path().endsWith(QLatin1String(".md"))) {
        showDocument(url.path().section(QLatin1Char('/'), -1), heading);
        return;
    }
    if (url.scheme().isEmpty() && url.path().isEmpty()) {
        reveal(heading);
        return;
    }
    QDesktopServices::openUrl(url);
}

} // namespace tb::ui
