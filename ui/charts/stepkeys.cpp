// StepKeys: keys per x-axis mode, each kept non-decreasing so the plot's data stays sorted.
#include "charts/stepkeys.h"

#include <algorithm>

namespace tb::ui {

void StepKeys::reset(double originUnixTime) {
    m_origin = originUnixTime;
    m_keys.clear();
    m_extents = {};
}

void StepKeys::append(const StepEvent& step) {
    Key k{static_cast<double>(step.step), static_cast<double>(step.samplesSeen),
          step.unixTime - m_origin};
    // A wall clock stepped back (NTP) must not unsort the series: time never runs backwards.
    if (!m_keys.empty())
        k.seconds = std::max(k.seconds, m_keys.back().seconds);
    m_keys.push_back(k);
    m_extents[index(XAxisMode::Step)].include(k.step);
    m_extents[index(XAxisMode::Samples)].include(k.samples);
    m_extents[index(XAxisMode::WallTime)].include(k.seconds);
}

double StepKeys::key(std::size_t i, XAxisMode mode) const {
    const Key& k = m_keys[i];
    switch (mode) {
    case XAxisMode::Step:
        return k.step;
    case XAxisMode::Samples:
        return k.samples;
    case XAxisMode::WallTime:
        return k.seconds;
    }
    return k.step;
}

std::optional<std::size_t> StepKeys::indexOfStep(int64_t step) const {
    const auto it = std::lower_bound(m_keys.begin(), m_keys.end(), static_cast<double>(step),
                                     [](const Key& k, double s) { return k.step < s; });
    if (it == m_keys.end())
        return std::nullopt;
    return static_cast<std::size_t>(it - m_keys.begin());
}

} // namespace tb::ui
