// Probes the driver, the CUDA runtime, cuDNN, cuBLAS and each device, and says in words what
// stands in the way when the GPU cannot be used.
#include "deviceinfo.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <library_types.h>

#include <string>

namespace tb::cuda {

namespace {

// The oldest architecture the plugin carries code for (sm_75 SASS); newer ones run the PTX.
constexpr int kMinComputeMajor = 7;
constexpr int kMinComputeMinor = 5;

std::string versionText(int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string errorText(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return value;
}

nlohmann::json gpuJson(int index) {
    nlohmann::json g;
    g["index"] = index;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, index) == cudaSuccess) {
        g["name"] = prop.name;
        g["totalMemory"] = static_cast<uint64_t>(prop.totalGlobalMem);
    } else {
        (void)cudaGetLastError();
        g["name"] = "unknown";
        g["totalMemory"] = 0;
    }
    // CUDA 13 dropped some cudaDeviceProp fields (memory clock); attributes still have them.
    const int major = attribute(cudaDevAttrComputeCapabilityMajor, index);
    const int minor = attribute(cudaDevAttrComputeCapabilityMinor, index);
    const int sms = attribute(cudaDevAttrMultiProcessorCount, index);
    const int busWidth = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
    const int clockKHz = attribute(cudaDevAttrMemoryClockRate, index);
    g["computeMajor"] = major;
    g["computeMinor"] = minor;
    g["smCount"] = sms;
    g["cudaCores"] = sms * coresPerSm(major, minor);
    g["memoryBusWidthBits"] = busWidth;
    g["memoryClockKHz"] = clockKHz;
    // Double data rate: 2 transfers per clock, bus width in bits / 8 bytes.
    g["bandwidthGBps"] = 2.0 * clockKHz * 1e3 * (busWidth / 8.0) / 1e9;
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, index) != cudaSuccess)
        (void)cudaGetLastError();
    g["pciBusId"] = pci;
    return g;
}

void fail(nlohmann::json& j, const std::string& reason, const std::string& advice) {
    j["usable"] = false;
    j["reason"] = reason;
    j["advice"] = advice;
}

} // namespace

int coresPerSm(int major, int minor) {
    switch (major) {
    case 6:
        return minor == 0 ? 64 : 128;
    case 7:
        return 64; // Volta 7.0, Turing 7.5
    case 8:
        return minor == 0 ? 64 : 128; // A100 8.0; 8.6 / 8.7 / 8.9 have 128
    case 9:
    case 10:
    case 11:
    case 12:
        return 128;
    default:
        return 0;
    }
}

bool driverRunsRuntime(int driver, int runtime) {
    return driver > 0 && driver / 1000 >= runtime / 1000;
}

nlohmann::json probeJson(int contextDevice) {
    nlohmann::json j;
    j["gpus"] = nlohmann::json::array();
    int runtime = 0, driver = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaDriverGetVersion(&driver);
    j["runtimeVersion"] = runtime;
    j["driverVersion"] = driver;
    j["cudnnVersion"] = static_cast<int>(cudnnGetVersion());
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
        j["cublasVersion"] = major * 10000 + minor * 100 + patch;
    else
        j["cublasVersion"] = 0;
    j["usable"] = false;
    j["reason"] = "";
    j["advice"] = "";

    if (driver == 0) {
        fail(j, "no NVIDIA driver: libcuda.so.1 could not be loaded",
             "Install the NVIDIA driver (Debian: nvidia-driver from non-free, or NVIDIA's "
             "packages), reboot, and check that nvidia-smi lists the GPU.");
        return j;
    }
    if (!driverRunsRuntime(driver, runtime)) {
        fail(j,
             "the driver supports CUDA " + versionText(driver) + ", older than the CUDA " +
                 versionText(runtime) + " runtime the plugin was built with",
             "Update the NVIDIA driver to one that supports CUDA " +
                 std::to_string(runtime / 1000) + " (release 580 or newer for CUDA 13).");
        return j;
    }
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        if (status == cudaErrorInsufficientDriver)
            fail(j,
                 "the NVIDIA driver is too old for the CUDA " + versionText(runtime) + " runtime",
                 "Update the NVIDIA driver (580 or newer for CUDA 13).");
        else if (status == cudaErrorNoDevice)
            fail(j, "no CUDA device: the driver is loaded but finds no GPU",
                 "Check nvidia-smi; in a container pass the GPU through (--gpus all); check "
                 "CUDA_VISIBLE_DEVICES.");
        else
            fail(j, "cannot query CUDA devices (" + errorText(status) + ")",
                 "Check nvidia-smi and the kernel log (dmesg) for driver errors.");
        return j;
    }
    if (count == 0) {
        fail(j, "no CUDA device", "Check nvidia-smi and CUDA_VISIBLE_DEVICES.");
        return j;
    }
    for (int i = 0; i < count; ++i)
        j["gpus"].push_back(gpuJson(i));

    const nlohmann::json& first = j["gpus"][0];
    const int cc = first["computeMajor"].get<int>() * 10 + first["computeMinor"].get<int>();
    if (cc < kMinComputeMajor * 10 + kMinComputeMinor) {
        fail(j,
             "GPU 0 (" + first["name"].get<std::string>() + ") has compute capability " +
                 std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
                 "; the plugin needs 7.5 (Turing) or newer",
             "Train on the CPU (device=cpu), or use a Turing or newer GPU.");
        return j;
    }
    // Creating the context catches busy/exclusive devices and broken installs early. Nothing
    // before this point creates one (cudaGetDeviceCount and the attributes do not).
    if (contextDevice >= 0 && contextDevice < count) {
        const cudaError_t ctx = cudaInitDevice(contextDevice, 0, 0);
        if (ctx != cudaSuccess) {
            (void)cudaGetLastError();
            fail(j,
                 "cannot create a CUDA context on GPU " + std::to_string(contextDevice) + " (" +
                     errorText(ctx) + ")",
                 "Another process may hold the GPU in exclusive mode; check nvidia-smi.");
            return j;
        }
    }
    j["usable"] = true;
    return j;
}

} // namespace tb::cuda
