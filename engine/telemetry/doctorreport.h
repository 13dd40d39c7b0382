// The environment check behind `trainbench-cli doctor` and the window's Hardware tab: the CPU,
// memory and oneDNN, the NVIDIA driver, CUDA, cuDNN and cuBLAS, each GPU, and whether (and why
// not) the GPU backend can be used, as labelled rows that both print, so they say the same.
#pragma once

#include "core/cudastatus.h"
#include "telemetry/hostinfo.h"
#include "telemetry/nvmlsampler.h"

#include <string>
#include <vector>

namespace tb {

struct CpuLowPrecisionSupport;

struct DoctorRow {
    std::string section; // "CPU", "NVIDIA", "GPU 0", "GPU backend"
    std::string label;   // "bf16 / f16", "driver", ...
    std::string value;
    bool problem = false; // shown as a warning (the GPU backend unusable)
};

// Everything the check says, in order. Never throws.
std::vector<DoctorRow> doctorReport(const HostFacts& host, const CpuLowPrecisionSupport& cpu,
                                    const NvmlFacts& nvml, const CudaStatus& cuda);

// The report of this machine: every probe run now (NVML loaded and released again).
std::vector<DoctorRow> doctorReportOfThisMachine();

// "13.0" for 13000, "none" for 0 (CUDA's version numbers); "9.1.0" for cuDNN's 90100.
std::string cudaVersionText(int version);
std::string cudnnVersionText(int version);

} // namespace tb
