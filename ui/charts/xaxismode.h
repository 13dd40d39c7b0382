// The x axis the training charts share: optimizer step, samples seen or wall time, as
// TensorBoard's "step / relative / wall" and Lightning's step vs samples.
#pragma once

#include <QString>

namespace tb::ui {

enum class XAxisMode { Step, Samples, WallTime };

// The axis label with its unit, e.g. "time since start (s)".
QString xAxisLabel(XAxisMode mode);

} // namespace tb::ui
