// Axis labels of the x-axis modes.
#include "charts/xaxismode.h"

#include <QCoreApplication>

namespace tb::ui {

QString xAxisLabel(XAxisMode mode) {
    switch (mode) {
    case XAxisMode::Step:
        return QCoreApplication::translate("tb::XAxisMode", "step");
    case XAxisMode::Samples:
        return QCoreApplication::translate("tb::XAxisMode", "samples seen");
    case XAxisMode::WallTime:
        return QCoreApplication::translate("tb::XAxisMode", "time since start (s)");
    }
    return {};
}

} // namespace tb::ui
