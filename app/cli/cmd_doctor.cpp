// trainbench-cli doctor: what this machine offers for training (CPU, memory, oneDNN, NVIDIA
// driver, CUDA, cuDNN, each GPU) and, when the GPU backend cannot be used, why and what to do.
#include "args.h"
#include "commands.h"

#include "backend/cpu/cpuisa.h"
#include "backend/devices.h"
#include "core/floatenv.h"
#include "telemetry/doctorreport.h"
#include "telemetry/hostinfo.h"
#include "telemetry/nvmlsampler.h"
#include "train/runconfig.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace tb::cli {

namespace {

const char* nativeText(bool native) {
    return native ? "native" : "emulated";
}

// {"isa": ..., "bf16": "native"|"emulated", "f16": ...}: what oneDNN computes these types in.
nlohmann::json lowPrecisionJson(const CpuLowPrecisionSupport& s) {
    return {{"isa", s.isa}, {"bf16", nativeText(s.bf16Native)}, {"f16", nativeText(s.f16Native)}};
}

// The report's rows under their sections, labels padded into one column.
void printText(const std::vector<DoctorRow>& rows) {
    std::printf("TrainBench doctor\n");
    std::string section;
    for (const DoctorRow& row : rows) {
        if (row.section != section) {
            section = row.section;
            std::printf("\n%s\n", section.c_str());
        }
        std::printf("  %-12s %s\n", row.label.c_str(), row.value.c_str());
    }
}

} // namespace

int cmdDoctor(const Argv& argv) {
    const Args args(argv, specOf("doctor"));
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
    printText(doctorReport(host, lowPrecision, nvml, status));
    return 0;
}

} // namespace tb::cli
