// One reading of the machine: host CPU and memory, and each GPU. Any metric may be missing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

struct GpuSample {
    int index = 0;
    std::string name;
    std::optional<double> utilPercent;
    std::optional<double> memUtilPercent;
    std::optional<uint64_t> memUsedBytes;
    std::optional<uint64_t> memTotalBytes;
    std::optional<double> temperatureC;
    std::optional<double> powerW;
    std::optional<double> powerLimitW;
    std::optional<double> smClockMHz;
    std::optional<double> memClockMHz;
    std::optional<double> pcieTxMBps;
    std::optional<double> pcieRxMBps;
    std::optional<uint64_t> throttleReasons; // NVML bit mask
};

struct HostSample {
    std::optional<double> cpuPercent;   // all cores, 0-100
    std::vector<double> perCorePercent; // empty when unknown
    std::optional<uint64_t> ramUsedBytes;
    std::optional<uint64_t> ramTotalBytes;
    std::optional<uint64_t> processRssBytes;
    std::optional<uint64_t> processPeakRssBytes; // VmHWM: the most this process ever held
};

struct SystemSample {
    double unixTime = 0.0; // seconds since the epoch
    HostSample host;
    std::vector<GpuSample> gpus;
};

} // namespace tb
