// doctorReport: the facts each probe gathered, as rows.
#include "telemetry/doctorreport.h"

#include "backend/cpu/cpuisa.h"
#include "backend/devices.h"
#include "core/errors.h"
#include "core/floatenv.h"

namespace tb {

namespace {

const char* nativeText(bool native) {
    return native ? "native" : "emulated";
}

std::string denormalText() {
    if (!denormalControlAvailable())
        return "kept (this CPU has no flush-to-zero control TrainBench can set; "
               "flush_denormals has no effect)";
    return "flushed to zero (FTZ+DAZ) on every CPU thread of a run by default "
           "(flush_denormals=true); GPU kernels keep them at full speed";
}

// What NVML (nvidia-smi's library) says: the driver, its CUDA version and the GPUs it sees.
std::string nvmlText(const NvmlFacts& f) {
    if (!f.available)
        return f.error; // already says "NVML not available: ..."
    std::string text = "driver " + f.driverVersion;
    if (f.cudaDriverVersion)
        text += ", CUDA " + formatCudaVersion(*f.cudaDriverVersion);
    text += ", " + std::to_string(f.gpuNames.size()) + " GPU(s)";
    for (const std::string& name : f.gpuNames)
        text += "; " + name;
    return text;
}

} // namespace

std::string cudaVersionText(int v) {
    return v == 0 ? "none" : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string cudnnVersionText(int v) {
    return v == 0 ? "none"
                  : std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                        std::to_string(v % 100);
}

std::vector<DoctorRow> doctorReport(const HostFacts& host, const CpuLowPrecisionSupport& lp,
                                    const NvmlFacts& nvml, const CudaStatus& s) {
    std::vector<DoctorRow> rows;
    const auto add = [&](const std::string& section, const std::string& label,
                         const std::string& value, bool problem = false) {
        rows.push_back({section, label, value, problem});
    };
    std::string simd;
    for (const std::string& f : host.cpu.simd)
        simd += (simd.empty() ? "" : " ") + f;
    add("CPU", "model", host.cpu.model);
    add("CPU", "cores",
        std::to_string(host.cpu.logicalCores) + " logical, " +
            std::to_string(host.cpu.physicalCores) + " physical");
    add("CPU", "SIMD", simd.empty() ? "(none of interest)" : simd);
    add("CPU", "bf16 / f16",
        std::string(nativeText(lp.bf16Native)) + " / " + nativeText(lp.f16Native) +
            " (oneDNN ISA " + lp.isa + ")");
    add("CPU", "denormals", denormalText());
    add("CPU", "RAM",
        formatBytes(host.memory.total) + " total, " + formatBytes(host.memory.available) +
            " available");
    add("CPU", "oneDNN", host.onednnVersion.empty() ? "not loaded" : host.onednnVersion);

    add("NVIDIA", "driver",
        host.nvidiaDriverVersion.empty() ? "not loaded" : host.nvidiaDriverVersion);
    add("NVIDIA", "NVML", nvmlText(nvml));
    add("NVIDIA", "CUDA",
        "driver API " + cudaVersionText(s.driverVersion) + ", runtime " +
            cudaVersionText(s.runtimeVersion));
    add("NVIDIA", "cuDNN", cudnnVersionText(s.cudnnVersion));
    add("NVIDIA", "cuBLAS", cudnnVersionText(s.cublasVersion));
    add("NVIDIA", "NCCL",
        s.ncclVersion
            ? cudnnVersionText(s.ncclVersion)
            : "none" + (s.ncclReason.empty() ? std::string() : " (" + s.ncclReason + ")"));
    add("NVIDIA", "plugin", s.pluginPath.empty() ? "-" : s.pluginPath);
    for (const GpuInfo& g : s.gpus) {
        const std::string section = "GPU " + std::to_string(g.index);
        add(section, "device", g.name + " (" + g.pciBusId + ")");
        add(section, "compute",
            std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor) + ", " +
                std::to_string(g.smCount) + " SMs, " + std::to_string(g.cudaCores) + " CUDA cores");
        char bandwidth[32];
        std::snprintf(bandwidth, sizeof bandwidth, "%.0f GB/s", g.bandwidthGBps);
        add(section, "memory",
            formatBytes(g.totalMemory) + ", " + std::to_string(g.memoryBusWidthBits) +
                "-bit bus, " + bandwidth);
    }
    if (s.usable) {
        add("GPU backend", "status", "usable: training with device=auto runs on cuda:0");
    } else {
        add("GPU backend", "status", "NOT usable: " + s.reason, true);
        add("GPU backend", "what to do", s.advice, true);
        add("GPU backend", "meanwhile", "TrainBench trains on the CPU (device=auto picks it).");
    }
    return rows;
}

std::vector<DoctorRow> doctorReportOfThisMachine() {
    return doctorReport(readHostFacts(), cpuLowPrecisionSupport(), NvmlSampler().facts(),
                        probeCudaLibraries());
}

} // namespace tb
