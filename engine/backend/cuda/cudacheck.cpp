// Turns failed CUDA, cuDNN and cuBLAS status codes into tb::Error with the call, file and line.
#include "cudacheck.h"

#include <mutex>
#include <string>

namespace tb::cuda {

namespace {

std::string where(const char* call, const char* file, int line) {
    return std::string(call) + " at " + file + ":" + std::to_string(line);
}

std::mutex g_lostMutex;
std::string g_lostReason; // the first context-losing error, for every later backend

[[noreturn]] void throwContextLost(cudaError_t status, const char* call, const char* file,
                                   int line) {
    std::string reason;
    {
        std::lock_guard lock(g_lostMutex);
        if (g_lostReason.empty())
            g_lostReason = std::string(cudaGetErrorName(status)) + " (" +
                           cudaGetErrorString(status) + ") in " + where(call, file, line);
        reason = g_lostReason;
    }
    throw BackendUnavailable("the GPU's CUDA context in this process is lost after " + reason +
                             ". Restart TrainBench to train on the GPU again (every later call "
                             "in this process would fail the same way); the CPU still trains "
                             "meanwhile (device=cpu)");
}

} // namespace

bool losesContext(cudaError_t status) {
    switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

std::string contextLostReason() {
    std::lock_guard lock(g_lostMutex);
    return g_lostReason;
}

void throwIfContextLost(const char* call, const char* file, int line) {
    const cudaError_t status = cudaPeekAtLastError();
    if (losesContext(status))
        throwContextLost(status, call, file, line);
}

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
    if (losesContext(status))
        throwContextLost(status, call, file, line);
    // Clear the sticky-free error so the next call does not report it again.
    (void)cudaGetLastError();
    const std::string message = std::string("CUDA error ") + cudaGetErrorName(status) + " (" +
                                cudaGetErrorString(status) + ") in " + where(call, file, line);
    if (status == cudaErrorMemoryAllocation)
        throw CudaAllocFailed(message);
    throw Error(message);
}

void throwCudnnError(cudnnStatus_t status, const char* call, const char* file, int line) {
    throwIfContextLost(call, file, line);
    const std::string message = std::string("cuDNN error ") + cudnnGetErrorString(status) + " (" +
                                std::to_string(static_cast<int>(status)) + ") in " +
                                where(call, file, line);
    if (status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
        status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
        throw CudaAllocFailed(message);
    throw Error(message);
}

const char* cublasStatusName(cublasStatus_t status) {
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
        return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
        return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
        return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line) {
    throwIfContextLost(call, file, line);
    const std::string message =
        std::string("cuBLAS error ") + cublasStatusName(status) + " in " + where(call, file, line);
    if (status == CUBLAS_STATUS_ALLOC_FAILED)
        throw CudaAllocFailed(message);
    throw Error(message);
}

} // namespace tb::cuda
