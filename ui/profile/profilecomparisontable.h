// ProfileComparisonTable: two profiles row by row (train/profilecomparison.h): each layer's and
// phase's time in A and in B, B's time over A's (tinted: faster, slower), and its bound in each.
// Sorts by any column; the largest time saved first.
#pragma once

#include "train/profilecomparison.h"

#include <QTableWidget>

namespace tb::ui {

class ProfileComparisonTable : public QTableWidget {
    Q_OBJECT

public:
    enum Column { Layer, Pass, MsA, MsB, Ratio, Saved, Bounds, Columns };
    explicit ProfileComparisonTable(QWidget* parent = nullptr);

    void setComparison(const ProfileComparison& comparison);
};

} // namespace tb::ui
