// StepKeys: the three x positions (step, samples seen, seconds since the start) of each logged
// step, kept so a chart can switch its x axis without the events.
#pragma once

#include "charts/dataextent.h"
#include "charts/xaxismode.h"
#include "events/events.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tb::ui {

class StepKeys {
public:
    // Forgets all keys; wall time is measured from originUnixTime.
    void reset(double originUnixTime);
    void append(const StepEvent& step);

    std::size_t size() const { return m_keys.size(); }
    double key(std::size_t i, XAxisMode mode) const;
    // The index of the logged step `step`, or of the first one after it; none past the end.
    std::optional<std::size_t> indexOfStep(int64_t step) const;
    const Extent& extent(XAxisMode mode) const { return m_extents[index(mode)]; }

private:
    struct Key {
        double step;
        double samples;
        double seconds;
    };
    static std::size_t index(XAxisMode mode) { return static_cast<std::size_t>(mode); }

    double m_origin = 0.0;
    std::vector<Key> m_keys;
    std::array<Extent, 3> m_extents;
};

} // namespace tb::ui
