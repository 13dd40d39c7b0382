#include "profile/profilecomparisontable.h"

#include "charts/chartstyle.h"
#include "profile/numberitem.h"

#include <QHeaderView>

namespace tb::ui {

ProfileComparisonTable::ProfileComparisonTable(QWidget* parent) : QTableWidget(0, Columns, parent) {
    setHorizontalHeaderLabels({tr("Layer"), tr("Pass"), tr("A ms"), tr("B ms"), tr("B / A"),
                               tr("Saved ms"), tr("Bound A \u2192 B")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(Layer, QHeaderView::Stretch);
    verticalHeader()->hide();
    setEditTriggers(NoEditTriggers);
    setSelectionBehavior(SelectRows);
    setAlternatingRowColors(true);
}

void ProfileComparisonTable::setComparison(const ProfileComparison& c) {
    setSortingEnabled(false);
    setRowCount(0);
    const QColor faster = seriesColor(2), slower = seriesColor(3);
    const auto ms = [](bool present, double value) {
        return present ? new NumberItem(QString::number(value, 'f', 3), value)
                       : new NumberItem(QStringLiteral("\u2013"), -1.0);
    };
    for (const ProfileRowChange& r : c.rows) {
        const int i = rowCount();
        insertRow(i);
        setItem(i, Layer, new QTableWidgetItem(QString::fromStdString(r.name)));
        setItem(i, Pass, new QTableWidgetItem(QString::fromStdString(r.pass)));
        setItem(i, MsA, ms(r.inA, r.msA));
        setItem(i, MsB, ms(r.inB, r.msB));
        const double ratio = r.ratio();
        auto* ratioItem =
            new NumberItem(ratio > 0.0 ? QString::number(ratio, 'f', 2) + QStringLiteral("\u00d7")
                                       : QStringLiteral("\u2013"),
                           ratio);
        // Tinted only where the change is beyond a profile's noise of a few percent.
        if (ratio > 0.0 && (ratio < 0.9 || ratio > 1.1))
            ratioItem->setForeground(ratio < 1.0 ? faster : slower);
        setItem(i, Ratio, ratioItem);
        const double saved = (r.inA ? r.msA : 0.0) - (r.inB ? r.msB : 0.0);
        setItem(i, Saved, new NumberItem(QString::number(saved, 'f', 3), saved));
        const auto bound = [](bool present, Bound value) {
            return present && value != Bound::Unknown ? QString::fromStdString(toString(value))
                                                      : QStringLiteral("\u2013");
        };
        const QString bounds =
            bound(r.inA, r.boundA) + QStringLiteral(" \u2192 ") + bound(r.inB, r.boundB);
        auto* boundItem = new QTableWidgetItem(bounds);
        if (r.inA && r.inB && r.boundA != r.boundB) {
            QFont bold = boundItem->font();
            bold.setBold(true);
            boundItem->setFont(bold);
        }
        setItem(i, Bounds, boundItem);
    }
    setSortingEnabled(true);
    sortByColumn(Saved, Qt::DescendingOrder);
}

} // namespace tb::ui
