// The few NVML types, constants and function signatures TrainBench calls, declared here (as
// nvtop does) so nothing needs nvml.h at build time. Values and layouts follow nvml.h.
#pragma once

namespace tb::nvml {

using Return = int; // nvmlReturn_t (a C enum)
struct DeviceSt;
using Device = DeviceSt*; // nvmlDevice_t

constexpr Return kSuccess = 0;
constexpr Return kErrorNotSupported = 3;
constexpr Return kErrorInsufficientSize = 7;
constexpr Return kErrorGpuIsLost = 15;

constexpr int kTemperatureGpu = 0;                // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;                       // NVML_CLOCK_SM
constexpr int kClockMem = 2;                      // NVML_CLOCK_MEM
constexpr int kPcieUtilTxBytes = 0;               // NVML_PCIE_UTIL_TX_BYTES (KB/s)
constexpr int kPcieUtilRxBytes = 1;               // NVML_PCIE_UTIL_RX_BYTES (KB/s)
constexpr unsigned kDriverVersionBufferSize = 80; // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned kDeviceNameBufferSize = 96;    // NVML_DEVICE_NAME_V2_BUFFER_SIZE

struct Utilization { // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};
static_assert(sizeof(Utilization) == 8);

struct Memory { // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
static_assert(sizeof(Memory) == 24);

struct MemoryV2 { // nvmlMemory_v2_t: `used` excludes memory the driver reserves
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
};
static_assert(sizeof(MemoryV2) == 40);
constexpr unsigned int kMemoryV2Version = sizeof(MemoryV2) | (2u << 24); // nvmlMemory_v2

extern "C" {
using InitFn = Return();
using ShutdownFn = Return();
using ErrorStringFn = const char*(Return);
using SystemGetDriverVersionFn = Return(char*, unsigned int);
using SystemGetCudaDriverVersionFn = Return(int*);
using DeviceGetCountFn = Return(unsigned int*);
using DeviceGetHandleByIndexFn = Return(unsigned int, Device*);
using DeviceGetNameFn = Return(Device, char*, unsigned int);
using DeviceGetUtilizationRatesFn = Return(Device, Utilization*);
using DeviceGetMemoryInfoFn = Return(Device, Memory*);
using DeviceGetMemoryInfoV2Fn = Return(Device, MemoryV2*);
using DeviceGetTemperatureFn = Return(Device, int, unsigned int*);
using DeviceGetPowerFn = Return(Device, unsigned int*); // milliwatts
using DeviceGetClockInfoFn = Return(Device, int, unsigned int*);
using DeviceGetPcieThroughputFn = Return(Device, int, unsigned int*);
using DeviceGetThrottleReasonsFn = Return(Device, unsigned long long*);
}

} // namespace tb::nvml
