#include "profile/profiletable.h"

#include "charts/chartstyle.h"
#include "profile/numberitem.h"

#include <QHeaderView>
#include <QPainter>
#include <QStyledItemDelegate>

#include <algorithm>

namespace tb::ui {

namespace {

// The bar's length: the row's share of the step over the largest row's.
constexpr int kBarRole = Qt::UserRole + 1;

// The share of the step as a bar behind its number: the step's largest rows stand out.
class ShareBarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        const double share = std::clamp(index.data(kBarRole).toDouble(), 0.0, 1.0);
        QRectF bar = QRectF(option.rect).adjusted(2, 3, -2, -3);
        bar.setWidth(bar.width() * share);
        painter->fillRect(bar,
                          mixColors(seriesColor(0), option.palette.color(QPalette::Base), 0.45));
        QStyledItemDelegate::paint(painter, option, index);
    }
};

QString number(double v, int decimals) {
    return QString::number(v, 'f', decimals);
}

} // namespace

ProfileTable::ProfileTable(QWidget* parent) : QTableWidget(0, Columns, parent) {
    setHorizontalHeaderLabels({tr("Layer"), tr("Pass"), tr("ms"), tr("% of step"), tr("GFLOP/s"),
                               tr("GB/s"), tr("FLOP/byte"), tr("% of roof"), tr("Bound")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(Layer, QHeaderView::Stretch);
    horizontalHeader()->setSectionResizeMode(Share, QHeaderView::Fixed);
    setColumnWidth(Share, 110);
    setItemDelegateForColumn(Share, new ShareBarDelegate(this));
    verticalHeader()->hide();
    setEditTriggers(NoEditTriggers);
    setSelectionBehavior(SelectRows);
    setAlternatingRowColors(true);
}

void ProfileTable::setReport(const ProfileReport& r) {
    setSortingEnabled(false);
    setRowCount(0);
    const double step = r.stepMs > 0 ? r.stepMs : 1.0;
    const auto addRow = [&](const QString& name, const QString& pass, double ms,
                            const LayerProfile* p) {
        const int i = rowCount();
        insertRow(i);
        setItem(i, Layer, new QTableWidgetItem(name));
        setItem(i, Pass, new QTableWidgetItem(pass));
        setItem(i, Ms, new NumberItem(number(ms, 3), ms));
        const double share = ms / step;
        auto* shareItem = new NumberItem(number(100.0 * share, 1) + QLatin1Char('%'), share);
        setItem(i, Share, shareItem);
        if (p && p->bound != Bound::Unknown) {
            setItem(i, Gflops, new NumberItem(number(p->gflops, 1), p->gflops));
            setItem(i, Gbs, new NumberItem(number(p->gbs, 1), p->gbs));
            setItem(i, Intensity,
                    new NumberItem(QString::number(p->intensity, 'g', 3), p->intensity));
            setItem(i, Roof,
                    new NumberItem(number(100.0 * p->roofFraction, 0) + QLatin1Char('%'),
                                   p->roofFraction));
            setItem(i, BoundColumn,
                    new QTableWidgetItem(QString::fromStdString(toString(p->bound))));
        }
    };
    if (r.dataWaitMs > 0.0)
        addRow(tr("data wait"), tr("loader"), r.dataWaitMs, nullptr);
    for (const LayerProfile& p : r.rows)
        addRow(QString::fromStdString(p.name), QString::fromStdString(p.pass), p.ms, &p);
    addRow(tr("other"), QString(), r.otherMs, nullptr);
    double largest = 0.0;
    for (int i = 0; i < rowCount(); ++i)
        largest = std::max(largest, item(i, Share)->data(Qt::UserRole).toDouble());
    for (int i = 0; i < rowCount(); ++i)
        item(i, Share)->setData(
            kBarRole, largest > 0 ? item(i, Share)->data(Qt::UserRole).toDouble() / largest : 0.0);
    setSortingEnabled(true);
    sortByColumn(Ms, Qt::DescendingOrder); // where the step goes, the largest first
}

} // namespace tb::ui
