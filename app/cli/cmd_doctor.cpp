// trainbench-cli doctor: what this machine offers for training (CPU, memory, oneDNN, NVIDIA
// driver, CUDA, cuDNN, each GPU) and, when the GPU backend cannot be used, why and what to do.
#include "args.h"
#include "commands.h"

#include "backend/cpu/cpuisa.h"
#include "backend/devices.h"
#include "core/errors.h"
#include "core/floatenv.h"
#include "telemetry/hostinfo.h"
#include "train/runconfig.h"
#include "telemetry/nvmlsampler.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace tb::cli {

namespace {

std::string cudaVersionText(int v) {
    return v == 0 ? "none" : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string cudnnVersionText(int v) {
    return v == 0 ? "none"
                  : std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                        std::to_string(v % 100);
}

const char* nativeText(bool native) {
    return native ? "native" : "emulated";
}

// {"isa": ..., "bf16": "native"|"emulated", "f16": ...}: what oneDNN computes these types in.
nlohmann::json lowPrecisionJson(const CpuLowPrecisionSupport& s) {
    return {{"isa", s.isa}, {"bf16", nativeText(s.bf16Native)}, {"f16", nativeText(s.f16Native)}};
}

// How runs treat denormal floats on this CPU (flush_denormals, core/floatenv.h).
std::string denormalText() {
    if (!denormalControlAvailable())
        return "kept (this CPU has no flush-to-zero control TrainBench can set; "
               "flush_denormals has no effect)";
    return "flushed to zero (FTZ+DAZ) on every CPU thread of a run by default "
           "(flush_denormals=true); GPU kernels keep them at full speed";
}

std::string gib(uint64_t bytes) {
    return formatBytes(bytes);
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

void printText(const HostFacts& host, const CpuLowPrecisionSupport& lowPrecision,
               const NvmlFacts& nvml, const CudaStatus& s) {
    const CpuFacts& cpu = host.cpu;
    std::printf("TrainBench doctor\n\n");
    std::printf("CPU            %s\n", cpu.model.c_str());
    std::printf("  cores        %d logical, %d physical\n", cpu.logicalCores, cpu.physicalCores);
    std::string simd;
    for (const std::string& f : cpu.simd)
        simd += (simd.empty() ? "" : " ") + f;
    std::printf("  SIMD         %s\n", simd.empty() ? "(none of interest)" : simd.c_str());
    std::printf("  bf16 / f16   %s / %s (oneDNN ISA %s)\n", nativeText(lowPrecision.bf16Native),
                nativeText(lowPrecision.f16Native), lowPrecision.isa.c_str());
    std::printf("  denormals    %s\n", denormalText().c_str());
    std::printf("RAM            %s total, %s available\n", gib(host.memory.total).c_str(),
                gib(host.memory.available).c_str());
    std::printf("oneDNN         %s\n\n",
                host.onednnVersion.empty() ? "not loaded" : host.onednnVersion.c_str());

    const std::string& driver = host.nvidiaDriverVersion;
    std::printf("NVIDIA driver  %s\n", driver.empty() ? "not loaded" : driver.c_str());
    std::printf("NVML           %s\n", nvmlText(nvml).c_str());
    std::printf("CUDA           driver API %s, runtime %s\n",
                cudaVersionText(s.driverVersion).c_str(),
                cudaVersionText(s.runtimeVersion).c_str());
    std::printf("cuDNN          %s\n", cudnnVersionText(s.cudnnVersion).c_str());
    std::printf("cuBLAS         %s\n", cudnnVersionText(s.cublasVersion).c_str());
    std::printf("plugin         %s\n", s.pluginPath.empty() ? "-" : s.pluginPath.c_str());
    for (const GpuInfo& g : s.gpus) {
        std::printf("\nGPU %d          %s (%s)\n", g.index, g.name.c_str(), g.pciBusId.c_str());
        std::printf("  compute      %d.%d, %d SMs, %d CUDA cores\n", g.computeMajor, g.computeMinor,
                    g.smCount, g.cudaCores);
        std::printf("  memory       %s, %d-bit bus, %.0f GB/s\n", gib(g.totalMemory).c_str(),
                    g.memoryBusWidthBits, g.bandwidthGBps);
    }
    if (s.usable) {
        std::printf("\nGPU backend    usable: training with device=auto runs on cuda:0\n");
    } else {
        std::printf("\nGPU backend    NOT usable: %s\n", s.reason.c_str());
        std::printf("  what to do   %s\n", s.advice.c_str());
        std::printf("  meanwhile    TrainBench trains on the CPU (device=auto picks it).\n");
    }
}

} // namespace

int cmdDoctor(const Argv& argv) {
    const Args args(argv, {{}, {"json"}});
    if (args.flag("help")) {
        std::puts(
            "usage: trainbench-cli doctor [--json]\n\n"
            "Reports CPU, memory, oneDNN, NVIDIA driver, CUDA, cuDNN and GPUs, and why the GPU\n"
            "backend cannot be used when it cannot.");
        return 0;
    }
    const HostFacts host = readHostFacts();
    const CudaStatus& status = probeCudaLibraries();
    const NvmlFacts nvml = NvmlSampler().facts();
    const CpuLowPrecisionSupport lowPrecision = cpuLowPrecisionSupport();
    if (args.flag("json")) {
        nlohmann::json j = toJson(host);
        j["cpu"]["compute"] = lowPrecisionJson(lowPrecision);
        j["cpu"]["compute"]["flush_denormals"] = {
            {"available", denormalControlAvailable()},
            {"default", findConfigField("flush_denormals")->defaultValue}};
        j["nvml"] = {{"available", nvml.available},
                     {"error", nvml.error},
                     {"driverVersion", nvml.driverVersion},
                     {"cudaDriverVersion", nvml.cudaDriverVersion.value_or(0)},
                     {"gpus", nvml.gpuNames}};
        j["cuda"] = toJson(status);
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    printText(host, lowPrecision, nvml, status);
    return 0;
}

} // namespace tb::cli
