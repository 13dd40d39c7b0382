// Host facts from /proc/cpuinfo, /proc/meminfo, /proc/driver/nvidia/version and the loaded
// oneDNN.
#include "telemetry/hostinfo.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace tb {

namespace {

// The SIMD extensions that matter for oneDNN / OpenBLAS kernels, in the order shown.
constexpr const char* kSimdFlags[] = {"sse4_2",      "avx",         "avx2",     "fma",
                                      "f16c",        "avx512f",     "avx512bw", "avx512vl",
                                      "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16"};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

CpuFacts readCpu(const std::string& procRoot) {
    CpuFacts cpu;
    std::ifstream in(procRoot + "/cpuinfo");
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

MemoryFacts readMemory(const std::string& procRoot) {
    MemoryFacts m;
    std::ifstream in(procRoot + "/meminfo");
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

// The kernel module's version, or empty without the NVIDIA driver.
std::string nvidiaDriverVersion(const std::string& procRoot) {
    std::ifstream in(procRoot + "/driver/nvidia/version");
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

} // namespace

HostFacts readHostFacts(const std::string& procRoot) {
    HostFacts facts;
    facts.cpu = readCpu(procRoot);
    facts.memory = readMemory(procRoot);
    facts.onednnVersion = onednnVersion();
    facts.nvidiaDriverVersion = nvidiaDriverVersion(procRoot);
    return facts;
}

nlohmann::json toJson(const HostFacts& f) {
    return {{"cpu",
             {{"model", f.cpu.model},
              {"logicalCores", f.cpu.logicalCores},
              {"physicalCores", f.cpu.physicalCores},
              {"simd", f.cpu.simd}}},
            {"memory", {{"total", f.memory.total}, {"available", f.memory.available}}},
            {"onednn", f.onednnVersion},
            {"nvidiaDriver", f.nvidiaDriverVersion}};
}

} // namespace tb
