// ProfileTable: a profile's rows, one per layer and pass (and the loader's wait and the rest of
// the step): time, its share of the step drawn as a bar, achieved GFLOP/s and GB/s, arithmetic
// intensity, the fraction of the roofline reached and what bounds it. Sorts by any column.
#pragma once

#include "events/profilereport.h"

#include <QTableWidget>

namespace tb::ui {

class ProfileTable : public QTableWidget {
    Q_OBJECT

public:
    enum Column { Layer, Pass, Ms, Share, Gflops, Gbs, Intensity, Roof, BoundColumn, Columns };
    explicit ProfileTable(QWidget* parent = nullptr);

    void setReport(const ProfileReport& report);
};

} // namespace tb::ui
