// The host's hardware facts that matter for training (CPU model, cores, SIMD extensions, RAM,
// the oneDNN in use, the NVIDIA kernel driver): what `doctor` prints and the window's hardware
// panel shows. Read once; the live numbers come from HostSampler.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct CpuFacts {
    std::string model = "unknown";
    int logicalCores = 0;
    int physicalCores = 0;
    std::vector<std::string> simd; // the extensions oneDNN and OpenBLAS kernels use, if present
};

struct MemoryFacts {
    uint64_t total = 0;
    uint64_t available = 0;
};

struct HostFacts {
    CpuFacts cpu;
    MemoryFacts memory;
    std::string onednnVersion;       // "3.0.0"; empty when oneDNN is not loaded
    std::string nvidiaDriverVersion; // the kernel module's, "580.65.06"; empty without it
};

// Reads procRoot's cpuinfo, meminfo and driver/nvidia/version ("/proc", or a folder with fake
// files for tests). What cannot be read stays at its default; never throws.
HostFacts readHostFacts(const std::string& procRoot = "/proc");

// {"cpu": {...}, "memory": {...}, "onednn": ..., "nvidiaDriver": ...}, as `doctor --json`.
nlohmann::json toJson(const HostFacts& facts);

} // namespace tb
