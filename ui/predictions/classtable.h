// What the Predictions tab's detection and segmentation pages share around their figures: the
// per-class table (a class column, then right-aligned figures; "all" first), and the titled
// boxes the page's parts sit in.
#pragma once

#include <QString>
#include <QStringList>

#include <map>

class QGroupBox;
class QTableWidget;
class QTableWidgetItem;
class QWidget;

namespace tb::ui {

// A read-only table with these column headers (the first, the class's name, takes the spare
// width), `tips` on the headers by column, whole rows selected one at a time.
QTableWidget* makeClassTable(const QString& objectName, const QStringList& headers,
                             const std::map<int, QString>& tips, QWidget* parent);
// A figure's cell: its text right-aligned.
QTableWidgetItem* figureItem(const QString& text);
// `content` in a group box titled `title`.
QGroupBox* boxed(const QString& title, QWidget* content);

} // namespace tb::ui
