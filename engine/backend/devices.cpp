// Finds and loads the CUDA backend plugin (dlopen), reads what it probed, resolves device names
// and creates backends. When the GPU cannot be used, CudaStatus says exactly why and what to do.
#include "backend/devices.h"

#include "backend/cudaplugin.h"
#include "core/enginelocation.h"
#include "core/errors.h"
#include "io/jsontext.h"

#include <dlfcn.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tb {

namespace {

constexpr const char* kPluginFile = "libtrainbench_cuda.so";
constexpr const char* kPluginEnv = "TRAINBENCH_CUDA_PLUGIN";

using AbiFn = int (*)();
using ProbeFn = std::size_t (*)(char*, std::size_t, int);
using TextFn = int (*)(char*, std::size_t);
using CreateFn = Backend* (*)(int, char*, std::size_t);
using CollectivesIdFn = int (*)(char*, char*, std::size_t);
using CreateCollectivesFn = DeviceCollectives* (*)(Backend*, const char*, int, int, int, char*,
                                                   std::size_t);

// The loaded plugin's entry points (null when it did not load) and what it reported.
struct Plugin {
    CreateFn create = nullptr;
    CollectivesIdFn collectivesId = nullptr;
    CreateCollectivesFn createCollectives = nullptr;
    TextFn ncclVersion = nullptr;
    TextFn contextLost = nullptr;
    CudaStatus status;
    // The status once a CUDA error lost the context, made at most once (see current()).
    struct Lost {
        std::once_flag once;
        CudaStatus status;
    };
    std::shared_ptr<Lost> lost = std::make_shared<Lost>();

    // What holds now: the probe's status, or, after a context-losing error, the GPU unusable
    // for the rest of the process.
    const CudaStatus& current() const {
        if (!contextLost)
            return status;
        char why[1024] = {};
        if (!contextLost(why, sizeof why))
            return status;
        std::call_once(lost->once, [&] { lost->status = statusAfterContextLoss(status, why); });
        return lost->status;
    }
};

std::atomic<int> g_probeDevice{0};

// dlsym through one typed helper; memcpy avoids casting an object pointer to a function pointer.
template <typename Fn> Fn resolve(void* handle, const char* name) {
    void* sym = dlsym(handle, name);
    Fn fn = nullptr;
    static_assert(sizeof fn == sizeof sym);
    std::memcpy(&fn, &sym, sizeof fn);
    return fn;
}

// Where the plugin may be, in the order tried (duplicates removed): only TRAINBENCH_CUDA_PLUGIN
// when set; else next to the engine library (installed: <prefix>/lib/trainbench), the build
// tree's (for the build tree's engine only), the install prefix compiled in.
std::vector<std::string> candidatePaths() {
    std::vector<std::string> paths;
    auto addDir = [&](const std::filesystem::path& dir) {
        const std::string p = (dir / kPluginFile).lexically_normal().string();
        for (const std::string& q : paths)
            if (q == p)
                return;
        paths.push_back(p);
    };
    // An explicit override is the only place looked at, so its load error is the one reported.
    if (const char* env = std::getenv(kPluginEnv); env && *env) {
        const std::filesystem::path p(env);
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec))
            addDir(p);
        else
            paths.push_back(p.string());
        return paths;
    }
    if (const std::filesystem::path engineDir = engineLibraryDir(); !engineDir.empty())
        addDir(engineDir); // installed: both in lib/trainbench
    if (const std::filesystem::path build = buildTreePluginDir(); !build.empty())
        addDir(build);
    addDir(installedPluginDir());
    return paths;
}

// Advice for a plugin that exists but would not load, from the loader's message.
void explainLoadError(CudaStatus& s, const std::string& path, const std::string& error) {
    s.pluginPath = path;
    if (error.find("libcudart") != std::string::npos) {
        s.reason = "the CUDA 13 runtime (libcudart.so.13) was not found: " + error;
        s.advice = "Install the CUDA 13 runtime (Debian: cuda-cudart-13-0 from NVIDIA's "
                   "repository) or add /usr/local/cuda/lib64 to /etc/ld.so.conf.d and run "
                   "ldconfig.";
    } else if (error.find("libcudnn") != std::string::npos) {
        s.reason = "cuDNN 9 (libcudnn.so.9) was not found: " + error;
        s.advice = "Install cuDNN 9 for CUDA 13 (libcudnn9-cuda-13) and run ldconfig.";
    } else if (error.find("libcublas") != std::string::npos) {
        s.reason = "cuBLAS (libcublas.so.13) was not found: " + error;
        s.advice = "Install cuBLAS for CUDA 13 (libcublas-13-0) and run ldconfig.";
    } else {
        s.reason = "the CUDA plugin did not load: " + error;
        s.advice = "Reinstall TrainBench, or rebuild it with CUDA 13 and cuDNN 9.";
    }
}

void readProbe(CudaStatus& s, ProbeFn probe) {
    std::vector<char> buf(8192);
    const int device = g_probeDevice.load();
    std::size_t needed = probe(buf.data(), buf.size(), device);
    if (needed > buf.size()) {
        buf.resize(needed);
        needed = probe(buf.data(), buf.size(), device);
    }
    const nlohmann::json j = tryParseJson(buf.data()).value_or(nlohmann::json());
    if (!j.is_object()) {
        s.reason = "the CUDA plugin returned an unreadable probe";
        s.advice = "Reinstall TrainBench so engine and plugin come from one build.";
        return;
    }
    s.usable = j.value("usable", false);
    s.reason = j.value("reason", std::string());
    s.advice = j.value("advice", std::string());
    s.driverVersion = j.value("driverVersion", 0);
    s.runtimeVersion = j.value("runtimeVersion", 0);
    s.cudnnVersion = j.value("cudnnVersion", 0);
    s.cublasVersion = j.value("cublasVersion", 0);
    if (j.contains("gpus") && j["gpus"].is_array()) {
        for (const nlohmann::json& g : j["gpus"]) {
            GpuInfo info;
            info.index = g.value("index", 0);
            info.name = g.value("name", std::string());
            info.computeMajor = g.value("computeMajor", 0);
            info.computeMinor = g.value("computeMinor", 0);
            info.smCount = g.value("smCount", 0);
            info.cudaCores = g.value("cudaCores", 0);
            info.totalMemory = g.value("totalMemory", uint64_t{0});
            info.memoryBusWidthBits = g.value("memoryBusWidthBits", 0);
            info.memoryClockKHz = g.value("memoryClockKHz", 0);
            info.bandwidthGBps = g.value("bandwidthGBps", 0.0);
            info.pciBusId = g.value("pciBusId", std::string());
            s.gpus.push_back(std::move(info));
        }
    }
}

// Without the driver nothing can run, and loading the plugin would map cuDNN and cuBLAS
// (about 220 MB of resident memory) only to learn that. Training checks this first.
bool driverMissing(CudaStatus& s) {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver)
        return false; // kept loaded: the plugin needs it next
    const char* e = dlerror();
    s.reason = std::string("no NVIDIA driver: libcuda.so.1 could not be loaded (") +
               (e ? e : "not found") + ")";
    s.advice = "Install the NVIDIA driver (release 580 or newer for CUDA 13), reboot, and check "
               "that nvidia-smi lists the GPU. `trainbench-cli doctor` also reports the CUDA "
               "libraries it finds.";
    return true;
}

Plugin loadPlugin(bool evenWithoutDriver) {
    Plugin plugin;
    CudaStatus& s = plugin.status;
    if (!evenWithoutDriver && driverMissing(s))
        return plugin;
    const std::vector<std::string> paths = candidatePaths();
    std::string firstError, firstErrorPath;
    void* handle = nullptr;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
            continue;
        // RTLD_LOCAL: the CUDA libraries stay private to the plugin. Never dlclose'd: backends
        // and their tensors' release functions live in it until exit.
        handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            s.pluginPath = path;
            break;
        }
        if (firstError.empty()) {
            const char* e = dlerror();
            firstError = e ? e : "unknown dlopen error";
            firstErrorPath = path;
        }
    }
    if (!handle) {
        if (!firstError.empty()) {
            explainLoadError(s, firstErrorPath, firstError);
        } else {
            std::string tried;
            for (const std::string& p : paths)
                tried += (tried.empty() ? "" : ", ") + p;
            s.reason = "the CUDA plugin (" + std::string(kPluginFile) +
                       ") is not built or not installed; looked in: " + tried;
            s.advice = "Build with CUDA 13 and cuDNN 9 installed (cmake -DTB_CUDA=ON), or set " +
                       std::string(kPluginEnv) + " to the plugin's path.";
            s.pluginPath = tried;
        }
        return plugin;
    }
    const auto abi = resolve<AbiFn>(handle, "tb_cuda_plugin_abi");
    const auto probe = resolve<ProbeFn>(handle, "tb_cuda_probe_json");
    const auto create = resolve<CreateFn>(handle, "tb_cuda_create_backend");
    const auto collectivesId = resolve<CollectivesIdFn>(handle, "tb_cuda_collectives_id");
    const auto createCollectives =
        resolve<CreateCollectivesFn>(handle, "tb_cuda_create_collectives");
    const auto ncclVersion = resolve<TextFn>(handle, "tb_cuda_nccl_version");
    const auto contextLost = resolve<TextFn>(handle, "tb_cuda_context_lost");
    if (!abi || !probe || !create || !collectivesId || !createCollectives || !ncclVersion ||
        !contextLost) {
        s.reason = "the CUDA plugin at " + s.pluginPath + " lacks its entry points";
        s.advice = "Reinstall TrainBench so engine and plugin come from one build.";
        return plugin;
    }
    if (const int version = abi(); version != TB_CUDA_PLUGIN_ABI) {
        s.reason = "the CUDA plugin at " + s.pluginPath + " has ABI " + std::to_string(version) +
                   " but this engine needs ABI " + std::to_string(TB_CUDA_PLUGIN_ABI);
        s.advice = "The plugin comes from another TrainBench build: reinstall or rebuild both.";
        return plugin;
    }
    readProbe(s, probe);
    plugin.ncclVersion = ncclVersion;
    plugin.contextLost = contextLost;
    if (s.usable) {
        plugin.create = create;
        plugin.collectivesId = collectivesId;
        plugin.createCollectives = createCollectives;
    }
    return plugin;
}

Plugin tryLoadPlugin(bool evenWithoutDriver) {
    try {
        return loadPlugin(evenWithoutDriver);
    } catch (const std::exception& e) { // probeCuda() never throws
        Plugin p;
        p.status.reason = std::string("probing the GPU failed: ") + e.what();
        return p;
    }
}

const Plugin& plugin() {
    static const Plugin loaded = tryLoadPlugin(false);
    return loaded;
}

// The plugin, or BackendUnavailable saying why it cannot be used.
const Plugin& usablePlugin() {
    const Plugin& p = plugin();
    const CudaStatus& s = p.current();
    if (!s.usable || !p.create)
        throw BackendUnavailable(s.reason + (s.advice.empty() ? "" : ". " + s.advice));
    return p;
}

std::string lower(std::string text) {
    for (char& ch : text)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return text;
}

} // namespace

void setCudaProbeDevice(int index) {
    g_probeDevice.store(index);
}

int cudaProbeDevice() {
    return g_probeDevice.load();
}

CudaStatus statusAfterContextLoss(const CudaStatus& probed, const std::string& error) {
    CudaStatus s = probed;
    s.usable = false;
    s.reason = "the GPU's CUDA context in this process was lost after " + error;
    s.advice = "Restart TrainBench to train on the GPU again; until then runs train on the CPU "
               "(device=auto picks it). If it happens again, run `trainbench-cli doctor` and "
               "check the kernel log (dmesg) for Xid errors.";
    return s;
}

const CudaStatus& probeCuda() {
    return plugin().current();
}

const CudaStatus& probeCudaLibraries() {
    static const Plugin loaded = [] {
        Plugin p = tryLoadPlugin(true);
        if (p.ncclVersion) {
            char why[1024] = {};
            p.status.ncclVersion = p.ncclVersion(why, sizeof why);
            p.status.ncclReason = why;
        }
        return p;
    }();
    return loaded.current();
}

Device resolveDevice(const std::string& text) {
    const std::string t = lower(text);
    if (t == "cpu")
        return Device::cpu();
    if (t == "auto")
        return probeCuda().usable ? Device::cuda(0) : Device::cpu();
    int index = -1;
    if (t == "cuda") {
        index = 0;
    } else if (t.rfind("cuda:", 0) == 0 && t.size() > 5 && t.size() <= 8) {
        index = 0;
        for (std::size_t i = 5; i < t.size(); ++i) {
            if (!std::isdigit(static_cast<unsigned char>(t[i])))
                throw ConfigError("device", "'" + text + "' is not cpu, auto or cuda:N");
            index = index * 10 + (t[i] - '0');
        }
    } else {
        throw ConfigError("device", "'" + text + "' is not cpu, auto or cuda:N");
    }
    const CudaStatus& s = probeCuda();
    if (!s.usable)
        throw BackendUnavailable(s.reason + (s.advice.empty() ? "" : ". " + s.advice));
    if (index >= static_cast<int>(s.gpus.size()))
        throw BackendUnavailable("cuda:" + std::to_string(index) +
                                 " does not exist; this machine has " +
                                 std::to_string(s.gpus.size()) + " GPU(s)");
    return Device::cuda(index);
}

std::unique_ptr<Backend> createBackend(const Device& device, int threads) {
    if (!device.isCuda())
        return createCpuBackend(threads);
    const Plugin& p = usablePlugin();
    if (device.index < 0 || device.index >= static_cast<int>(p.status.gpus.size()))
        throw BackendUnavailable(device.toString() + " does not exist; this machine has " +
                                 std::to_string(p.status.gpus.size()) + " GPU(s)");
    char err[1024] = {};
    Backend* backend = p.create(device.index, err, sizeof err);
    if (!backend)
        throw BackendUnavailable("creating the CUDA backend on " + device.toString() +
                                 " failed: " + err);
    return std::unique_ptr<Backend>(backend);
}

DeviceCollectivesId newDeviceCollectivesId() {
    DeviceCollectivesId id;
    char err[1024] = {};
    if (usablePlugin().collectivesId(id.bytes, err, sizeof err) != 0)
        throw DistributedError(0, std::string("rank 0: NCCL: ") + err);
    return id;
}

std::unique_ptr<DeviceCollectives> createDeviceCollectives(Backend& backend,
                                                           const DeviceCollectivesId& id, int rank,
                                                           int size,
                                                           std::chrono::milliseconds timeout) {
    char err[1024] = {};
    DeviceCollectives* made = usablePlugin().createCollectives(
        &backend, id.bytes, rank, size, static_cast<int>(timeout.count()), err, sizeof err);
    if (!made)
        throw DistributedError(-1, "rank " + std::to_string(rank) + ": NCCL: " + err);
    return std::unique_ptr<DeviceCollectives>(made);
}

nlohmann::json toJson(const CudaStatus& s) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const GpuInfo& g : s.gpus) {
        gpus.push_back({{"index", g.index},
                        {"name", g.name},
                        {"computeCapability",
                         std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor)},
                        {"computeMajor", g.computeMajor},
                        {"computeMinor", g.computeMinor},
                        {"smCount", g.smCount},
                        {"cudaCores", g.cudaCores},
                        {"totalMemory", g.totalMemory},
                        {"memoryBusWidthBits", g.memoryBusWidthBits},
                        {"memoryClockKHz", g.memoryClockKHz},
                        {"bandwidthGBps", g.bandwidthGBps},
                        {"pciBusId", g.pciBusId}});
    }
    return {{"usable", s.usable},
            {"reason", s.reason},
            {"advice", s.advice},
            {"pluginPath", s.pluginPath},
            {"driverVersion", s.driverVersion},
            {"runtimeVersion", s.runtimeVersion},
            {"cudnnVersion", s.cudnnVersion},
            {"cublasVersion", s.cublasVersion},
            {"ncclVersion", s.ncclVersion},
            {"ncclReason", s.ncclReason},
            {"gpus", gpus}};
}

} // namespace tb
