// NVML through dlopen: one typed symbol resolver, _v2 entry points first, optional metrics.
#include "telemetry/nvmlsampler.h"

#include "telemetry/nvmlapi.h"

#include <dlfcn.h>

#include <cstring>

namespace tb {

namespace {

// The first of names the library exports, cast to the declared function type; nullptr if none.
template <typename Fn> Fn* resolve(void* lib, std::initializer_list<const char*> names) {
    for (const char* name : names)
        if (void* sym = dlsym(lib, name))
            return reinterpret_cast<Fn*>(sym);
    return nullptr;
}

// The value when the call succeeded; "not supported" and any other failure read as missing.
template <typename T, typename Fn, typename... A>
std::optional<T> query(Fn* fn, nvml::Device dev, A... args) {
    if (!fn)
        return std::nullopt;
    T value{};
    if (fn(dev, args..., &value) != nvml::kSuccess)
        return std::nullopt;
    return value;
}

} // namespace

struct NvmlSampler::Api {
    void* lib = nullptr;
    bool initialised = false;
    nvml::ShutdownFn* shutdown = nullptr;
    nvml::ErrorStringFn* errorString = nullptr;
    nvml::SystemGetDriverVersionFn* driverVersion = nullptr;
    nvml::SystemGetCudaDriverVersionFn* cudaDriverVersion = nullptr;
    nvml::DeviceGetNameFn* name = nullptr;
    nvml::DeviceGetUtilizationRatesFn* utilization = nullptr;
    nvml::DeviceGetMemoryInfoFn* memory = nullptr;
    nvml::DeviceGetMemoryInfoV2Fn* memoryV2 = nullptr;
    nvml::DeviceGetTemperatureFn* temperature = nullptr;
    nvml::DeviceGetPowerFn* power = nullptr;
    nvml::DeviceGetPowerFn* powerLimit = nullptr;
    nvml::DeviceGetClockInfoFn* clock = nullptr;
    nvml::DeviceGetPcieThroughputFn* pcie = nullptr;
    nvml::DeviceGetThrottleReasonsFn* throttle = nullptr;
    std::vector<nvml::Device> devices;
    std::vector<std::string> names;

    std::string describe(nvml::Return rc) const {
        const char* text = errorString ? errorString(rc) : nullptr;
        return text ? text : "NVML error " + std::to_string(rc);
    }
};

std::string formatCudaVersion(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

NvmlSampler::NvmlSampler(const std::string& library) : m_api(std::make_unique<Api>()) {
    Api& a = *m_api;
    a.lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!a.lib) {
        const char* why = dlerror();
        if (why && std::strstr(why, "No such file"))
            m_error = "NVML not available: " + library + " not found";
        else
            m_error = "NVML not available: cannot load " + library + ": " + (why ? why : "?");
        return;
    }
    auto* init = resolve<nvml::InitFn>(a.lib, {"nvmlInit_v2", "nvmlInit"});
    a.shutdown = resolve<nvml::ShutdownFn>(a.lib, {"nvmlShutdown"});
    auto* count =
        resolve<nvml::DeviceGetCountFn>(a.lib, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
    auto* handle = resolve<nvml::DeviceGetHandleByIndexFn>(
        a.lib, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
    a.errorString = resolve<nvml::ErrorStringFn>(a.lib, {"nvmlErrorString"});
    if (!init || !a.shutdown || !count || !handle) {
        m_error = "NVML not available: " + library +
                  " lacks nvmlInit, nvmlDeviceGetCount or "
                  "nvmlDeviceGetHandleByIndex";
        return;
    }
    if (const nvml::Return rc = init(); rc != nvml::kSuccess) {
        m_error = "NVML not available: nvmlInit failed: " + a.describe(rc);
        return;
    }
    a.initialised = true;
    a.driverVersion =
        resolve<nvml::SystemGetDriverVersionFn>(a.lib, {"nvmlSystemGetDriverVersion"});
    a.cudaDriverVersion = resolve<nvml::SystemGetCudaDriverVersionFn>(
        a.lib, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
    a.name = resolve<nvml::DeviceGetNameFn>(a.lib, {"nvmlDeviceGetName"});
    a.utilization =
        resolve<nvml::DeviceGetUtilizationRatesFn>(a.lib, {"nvmlDeviceGetUtilizationRates"});
    a.memoryV2 = resolve<nvml::DeviceGetMemoryInfoV2Fn>(a.lib, {"nvmlDeviceGetMemoryInfo_v2"});
    a.memory = resolve<nvml::DeviceGetMemoryInfoFn>(a.lib, {"nvmlDeviceGetMemoryInfo"});
    a.temperature = resolve<nvml::DeviceGetTemperatureFn>(a.lib, {"nvmlDeviceGetTemperature"});
    a.power = resolve<nvml::DeviceGetPowerFn>(a.lib, {"nvmlDeviceGetPowerUsage"});
    a.powerLimit = resolve<nvml::DeviceGetPowerFn>(
        a.lib, {"nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"});
    a.clock = resolve<nvml::DeviceGetClockInfoFn>(a.lib, {"nvmlDeviceGetClockInfo"});
    a.pcie = resolve<nvml::DeviceGetPcieThroughputFn>(a.lib, {"nvmlDeviceGetPcieThroughput"});
    a.throttle = resolve<nvml::DeviceGetThrottleReasonsFn>(
        a.lib,
        {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});

    unsigned int n = 0;
    if (const nvml::Return rc = count(&n); rc != nvml::kSuccess) {
        m_error = "NVML: nvmlDeviceGetCount failed: " + a.describe(rc);
        return;
    }
    for (unsigned int i = 0; i < n; ++i) {
        nvml::Device dev = nullptr;
        if (const nvml::Return rc = handle(i, &dev); rc != nvml::kSuccess) {
            // Keep the index so GPU numbers match nvidia-smi; its metrics stay missing.
            m_error = "NVML: GPU " + std::to_string(i) + ": " + a.describe(rc);
            dev = nullptr;
        }
        char buf[nvml::kDeviceNameBufferSize] = {};
        if (!dev || !a.name || a.name(dev, buf, sizeof buf) != nvml::kSuccess)
            std::strcpy(buf, "GPU");
        a.devices.push_back(dev);
        a.names.emplace_back(buf);
    }
}

NvmlSampler::~NvmlSampler() {
    if (m_api->initialised)
        m_api->shutdown();
    if (m_api->lib)
        dlclose(m_api->lib);
}

bool NvmlSampler::available() const {
    return m_api->initialised;
}

NvmlFacts NvmlSampler::facts() const {
    const Api& a = *m_api;
    NvmlFacts f;
    f.available = a.initialised;
    f.error = m_error;
    if (!a.initialised)
        return f;
    char buf[nvml::kDriverVersionBufferSize] = {};
    if (a.driverVersion && a.driverVersion(buf, sizeof buf) == nvml::kSuccess)
        f.driverVersion = buf;
    int cuda = 0;
    if (a.cudaDriverVersion && a.cudaDriverVersion(&cuda) == nvml::kSuccess)
        f.cudaDriverVersion = cuda;
    f.gpuNames = a.names;
    for (nvml::Device dev : a.devices) {
        std::optional<uint64_t> total;
        if (const auto m = query<nvml::Memory>(dev ? a.memory : nullptr, dev))
            total = m->total;
        f.gpuMemoryBytes.push_back(total);
    }
    return f;
}

std::vector<GpuSample> NvmlSampler::sample() {
    const Api& a = *m_api;
    std::vector<GpuSample> out;
    if (!a.initialised)
        return out;
    for (std::size_t i = 0; i < a.devices.size(); ++i) {
        GpuSample g;
        g.index = static_cast<int>(i);
        g.name = a.names[i];
        const nvml::Device dev = a.devices[i];
        if (!dev) {
            out.push_back(g);
            continue;
        }
        if (a.utilization) {
            nvml::Utilization u{};
            const nvml::Return rc = a.utilization(dev, &u);
            if (rc == nvml::kSuccess) {
                g.utilPercent = u.gpu;
                g.memUtilPercent = u.memory;
            } else if (rc == nvml::kErrorGpuIsLost) {
                m_error = "NVML: GPU " + std::to_string(i) + ": " + a.describe(rc);
            }
        }
        nvml::MemoryV2 m2{};
        m2.version = nvml::kMemoryV2Version;
        if (a.memoryV2 && a.memoryV2(dev, &m2) == nvml::kSuccess) {
            g.memUsedBytes = m2.used;
            g.memTotalBytes = m2.total;
        } else if (const auto m = query<nvml::Memory>(a.memory, dev)) {
            g.memUsedBytes = m->used;
            g.memTotalBytes = m->total;
        }
        if (const auto t = query<unsigned int>(a.temperature, dev, nvml::kTemperatureGpu))
            g.temperatureC = *t;
        if (const auto p = query<unsigned int>(a.power, dev))
            g.powerW = *p / 1000.0;
        if (const auto p = query<unsigned int>(a.powerLimit, dev))
            g.powerLimitW = *p / 1000.0;
        if (const auto c = query<unsigned int>(a.clock, dev, nvml::kClockSm))
            g.smClockMHz = *c;
        if (const auto c = query<unsigned int>(a.clock, dev, nvml::kClockMem))
            g.memClockMHz = *c;
        // NVML samples PCIe over ~20 ms per counter and reports KB/s.
        if (const auto tx = query<unsigned int>(a.pcie, dev, nvml::kPcieUtilTxBytes))
            g.pcieTxMBps = *tx / 1000.0;
        if (const auto rx = query<unsigned int>(a.pcie, dev, nvml::kPcieUtilRxBytes))
            g.pcieRxMBps = *rx / 1000.0;
        if (const auto r = query<unsigned long long>(a.throttle, dev))
            g.throttleReasons = *r;
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace tb
