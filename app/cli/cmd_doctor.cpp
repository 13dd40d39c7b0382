// trainbench-cli doctor: what this machine offers for training (CPU, memory, oneDNN, NVIDIA
// driver, CUDA, cuDNN, each GPU) and, when the GPU backend cannot be used, why and what to do.
#include "args.h"
#include "commands.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "telemetry/nvmlsampler.h"

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tb::cli {

namespace {

// The SIMD extensions that matter for oneDNN / OpenBLAS kernels, in the order shown.
constexpr const char* kSimdFlags[] = {"sse4_2",      "avx",         "avx2",     "fma",
                                      "f16c",        "avx512f",     "avx512bw", "avx512vl",
                                      "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16"};

struct CpuFacts {
    std::string model = "unknown";
    int logicalCores = 0;
    int physicalCores = 0;
    std::vector<std::string> simd;
};

struct MemoryFacts {
    uint64_t total = 0;
    uint64_t available = 0;
};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

CpuFacts readCpu() {
    CpuFacts cpu;
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    std::set<std::string> flags;
    std::set<std::string> physicalIds;
    int coresPerSocket = 0;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        const std::string key = trim(line.substr(0, colon));
        const std::string value = trim(line.substr(colon + 1));
        if (key == "processor")
            ++cpu.logicalCores;
        else if (key == "model name" && cpu.model == "unknown")
            cpu.model = value;
        else if (key == "physical id")
            physicalIds.insert(value);
        else if (key == "cpu cores")
            coresPerSocket = std::atoi(value.c_str());
        else if (key == "flags" && flags.empty()) {
            std::istringstream words(value);
            for (std::string w; words >> w;)
                flags.insert(w);
        }
    }
    if (cpu.logicalCores == 0)
        cpu.logicalCores = static_cast<int>(std::thread::hardware_concurrency());
    cpu.physicalCores =
        coresPerSocket * static_cast<int>(std::max<std::size_t>(physicalIds.size(), 1));
    for (const char* f : kSimdFlags)
        if (flags.count(f))
            cpu.simd.emplace_back(f);
    return cpu;
}

MemoryFacts readMemory() {
    MemoryFacts m;
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemTotal:")
            m.total = kib * 1024;
        else if (key == "MemAvailable:")
            m.available = kib * 1024;
    }
    return m;
}

// The kernel module's version line ("580.65.06"), or empty without the NVIDIA driver.
std::string nvidiaDriverVersion() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(in, line))
        return {};
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..."
    std::istringstream words(line);
    for (std::string w; words >> w;)
        if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) &&
            w.find('.') != std::string::npos)
            return w;
    return {};
}

// oneDNN's version through the already loaded library (the engine links it); empty if absent.
std::string onednnVersion() {
    struct DnnlVersion { // leading fields of dnnl_version_t
        int major, minor, patch;
    };
    void* sym = dlsym(RTLD_DEFAULT, "dnnl_version");
    if (!sym)
        return {};
    const DnnlVersion* (*fn)() = nullptr;
    static_assert(sizeof fn == sizeof sym);
    std::memcpy(&fn, &sym, sizeof fn);
    const DnnlVersion* v = fn();
    return v ? std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                   std::to_string(v->patch)
             : std::string();
}

std::string cudaVersionText(int v) {
    return v == 0 ? "none" : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string cudnnVersionText(int v) {
    return v == 0 ? "none"
                  : std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                        std::to_string(v % 100);
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

void printText(const CpuFacts& cpu, const MemoryFacts& mem, const std::string& dnnl,
               const std::string& driver, const NvmlFacts& nvml, const CudaStatus& s) {
    std::printf("TrainBench doctor\n\n");
    std::printf("CPU            %s\n", cpu.model.c_str());
    std::printf("  cores        %d logical, %d physical\n", cpu.logicalCores, cpu.physicalCores);
    std::string simd;
    for (const std::string& f : cpu.simd)
        simd += (simd.empty() ? "" : " ") + f;
    std::printf("  SIMD         %s\n", simd.empty() ? "(none of interest)" : simd.c_str());
    std::printf("RAM            %s total, %s available\n", gib(mem.total).c_str(),
                gib(mem.available).c_str());
    std::printf("oneDNN         %s\n\n", dnnl.empty() ? "not loaded" : dnnl.c_str());

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
    const CpuFacts cpu = readCpu();
    const MemoryFacts mem = readMemory();
    const std::string dnnl = onednnVersion();
    const std::string driver = nvidiaDriverVersion();
    const CudaStatus& status = probeCudaLibraries();
    const NvmlFacts nvml = NvmlSampler().facts();
    if (args.flag("json")) {
        nlohmann::json j;
        j["cpu"] = {{"model", cpu.model},
                    {"logicalCores", cpu.logicalCores},
                    {"physicalCores", cpu.physicalCores},
                    {"simd", cpu.simd}};
        j["memory"] = {{"total", mem.total}, {"available", mem.available}};
        j["onednn"] = dnnl;
        j["nvidiaDriver"] = driver;
        j["nvml"] = {{"available", nvml.available},
                     {"error", nvml.error},
                     {"driverVersion", nvml.driverVersion},
                     {"cudaDriverVersion", nvml.cudaDriverVersion.value_or(0)},
                     {"gpus", nvml.gpuNames}};
        j["cuda"] = toJson(status);
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    printText(cpu, mem, dnnl, driver, nvml, status);
    return 0;
}

} // namespace tb::cli
