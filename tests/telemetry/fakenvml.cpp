// A fake NVML for tests: two GPUs, the second supporting few metrics. Old entry points answer
// differently from the _v2 ones, so a test sees which the sampler used.
#include "telemetry/nvmlapi.h"

#include <cstdint>
#include <cstring>

using namespace tb::nvml;

namespace {

constexpr Return kErrorUnknown = 999;
constexpr Return kErrorArgumentVersionMismatch = 25;

int indexOf(Device dev) {
    return static_cast<int>(reinterpret_cast<std::uintptr_t>(dev)) - 1;
}

Return copyText(const char* text, char* buf, unsigned int length) {
    if (std::strlen(text) + 1 > length)
        return kErrorInsufficientSize;
    std::strcpy(buf, text);
    return kSuccess;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) Return nvmlInit() {
    return kErrorUnknown;
}
__attribute__((visibility("default"))) Return nvmlInit_v2() {
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlShutdown() {
    return kSuccess;
}
__attribute__((visibility("default"))) const char* nvmlErrorString(Return) {
    return "fake";
}

__attribute__((visibility("default"))) Return nvmlSystemGetDriverVersion(char* buf,
                                                                         unsigned int length) {
    return copyText("555.42.06", buf, length);
}
__attribute__((visibility("default"))) Return nvmlSystemGetCudaDriverVersion(int* v) {
    *v = 11000;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlSystemGetCudaDriverVersion_v2(int* v) {
    *v = 12040;
    return kSuccess;
}

__attribute__((visibility("default"))) Return nvmlDeviceGetCount(unsigned int* n) {
    *n = 1;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetCount_v2(unsigned int* n) {
    *n = 2;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetHandleByIndex_v2(unsigned int i,
                                                                            Device* dev) {
    *dev = reinterpret_cast<Device>(std::uintptr_t{i} + 1);
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetName(Device dev, char* buf,
                                                                unsigned int length) {
    return copyText(indexOf(dev) == 0 ? "Fake H200" : "Fake T4", buf, length);
}

__attribute__((visibility("default"))) Return nvmlDeviceGetUtilizationRates(Device dev,
                                                                            Utilization* u) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    *u = {87, 40};
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetMemoryInfo_v2(Device dev, MemoryV2* m) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    if (m->version != kMemoryV2Version)
        return kErrorArgumentVersionMismatch;
    m->total = 141ull << 30;
    m->reserved = 1ull << 30;
    m->used = 10ull << 30;
    m->free = m->total - m->reserved - m->used;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetMemoryInfo(Device, Memory* m) {
    *m = {16ull << 30, 15ull << 30, 1ull << 30};
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetTemperature(Device, int sensor,
                                                                       unsigned int* t) {
    if (sensor != kTemperatureGpu)
        return kErrorNotSupported;
    *t = 65;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetPowerUsage(Device dev,
                                                                      unsigned int* mw) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    *mw = 350500;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetEnforcedPowerLimit(Device dev,
                                                                              unsigned int* mw) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    *mw = 700000;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetClockInfo(Device dev, int type,
                                                                     unsigned int* mhz) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    *mhz = type == kClockSm ? 1980 : type == kClockMem ? 2619 : 0;
    return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetPcieThroughput(Device dev, int counter,
                                                                          unsigned int* kbps) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    *kbps = counter == kPcieUtilTxBytes ? 1200 : 34000;
    return kSuccess;
}
// Only the pre-12.2 name: the sampler must fall back to it.
__attribute__((visibility("default"))) Return
nvmlDeviceGetCurrentClocksThrottleReasons(Device dev, unsigned long long* reasons) {
    if (indexOf(dev) != 0)
        return kErrorNotSupported;
    *reasons = 0x4; // SW power cap
    return kSuccess;
}

} // extern "C"
