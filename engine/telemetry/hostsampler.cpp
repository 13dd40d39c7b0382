// /proc/stat deltas, /proc/meminfo and /proc/self/status for the host sampler.
#include "telemetry/hostsampler.h"

#include "core/processmemory.h"

#include <fstream>
#include <sstream>

namespace tb {

HostSampler::HostSampler(std::string procRoot)
    : m_root(std::move(procRoot)), m_previous(readCpuTimes()) {}

std::vector<HostSampler::CpuTimes> HostSampler::readCpuTimes() const {
    std::vector<CpuTimes> times;
    std::ifstream in(m_root + "/stat");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, 3, "cpu") != 0)
            break; // the cpu lines come first
        std::istringstream fields(line);
        std::string label;
        fields >> label;
        // user nice system idle iowait irq softirq steal (guest time is already in user/nice).
        uint64_t v[8] = {};
        for (uint64_t& x : v)
            fields >> x;
        CpuTimes t;
        for (uint64_t x : v)
            t.total += x;
        t.busy = t.total - v[3] - v[4];
        times.push_back(t);
    }
    return times;
}

HostSample HostSampler::sample() {
    HostSample s;
    const std::vector<CpuTimes> now = readCpuTimes();
    if (!now.empty() && now.size() == m_previous.size()) {
        auto percent = [](const CpuTimes& a, const CpuTimes& b) -> std::optional<double> {
            if (b.total <= a.total || b.busy < a.busy)
                return std::nullopt;
            const double p = 100.0 * double(b.busy - a.busy) / double(b.total - a.total);
            return p > 100.0 ? 100.0 : p;
        };
        s.cpuPercent = percent(m_previous[0], now[0]);
        if (s.cpuPercent) {
            for (std::size_t i = 1; i < now.size(); ++i)
                s.perCorePercent.push_back(percent(m_previous[i], now[i]).value_or(0.0));
        }
    }
    // Keep the old counters when no time passed, so the next call spans a real interval.
    if (s.cpuPercent || now.size() != m_previous.size())
        m_previous = now;

    const auto total = procKibField(m_root + "/meminfo", "MemTotal");
    const auto available = procKibField(m_root + "/meminfo", "MemAvailable");
    s.ramTotalBytes = total;
    if (total && available && *available <= *total)
        s.ramUsedBytes = *total - *available;
    s.processRssBytes = procKibField(m_root + "/self/status", "VmRSS");
    s.processPeakRssBytes = procKibField(m_root + "/self/status", "VmHWM");
    return s;
}

} // namespace tb
