// Check macros for CUDA runtime, cuDNN and cuBLAS calls: a failure becomes a tb::Error naming the
// call, file and line, and an allocation failure inside a library becomes a CudaAllocFailed. An
// error that loses the process's CUDA context (a kernel faulted) becomes BackendUnavailable
// saying to restart, and is remembered: no backend is created on the device afterwards.
#pragma once

#include "core/errors.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

namespace tb::cuda {

// A library (cuDNN, cuBLAS) or the runtime could not allocate device memory. The backend turns it
// into OutOfMemoryError after one retry with the cache released (see CudaBackend::withOomRetry).
class CudaAllocFailed : public Error {
public:
    using Error::Error;
};

[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCudnnError(cudnnStatus_t status, const char* call, const char* file,
                                  int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* call, const char* file,
                                   int line);

const char* cublasStatusName(cublasStatus_t status);

// Whether `status` is one of the "sticky" errors after which every call in this process's CUDA
// context fails with it (an illegal address, a faulted or timed-out kernel, an uncorrectable
// ECC error): only a new process can use the GPU again.
bool losesContext(cudaError_t status);
// The first such error this process met (the call and place), empty when none.
std::string contextLostReason();
// Throws the lost context as BackendUnavailable when the runtime holds a sticky error now
// (cuDNN and cuBLAS report one only as their own EXECUTION_FAILED).
void throwIfContextLost(const char* call, const char* file, int line);

} // namespace tb::cuda

#define TB_CUDA_CHECK(call)                                                                        \
    do {                                                                                           \
        const cudaError_t tbStatus_ = (call);                                                      \
        if (tbStatus_ != cudaSuccess)                                                              \
            ::tb::cuda::throwCudaError(tbStatus_, #call, __FILE__, __LINE__);                      \
    } while (0)

#define TB_CUDNN_CHECK(call)                                                                       \
    do {                                                                                           \
        const cudnnStatus_t tbStatus_ = (call);                                                    \
        if (tbStatus_ != CUDNN_STATUS_SUCCESS)                                                     \
            ::tb::cuda::throwCudnnError(tbStatus_, #call, __FILE__, __LINE__);                     \
    } while (0)

#define TB_CUBLAS_CHECK(call)                                                                      \
    do {                                                                                           \
        const cublasStatus_t tbStatus_ = (call);                                                   \
        if (tbStatus_ != CUBLAS_STATUS_SUCCESS)                                                    \
            ::tb::cuda::throwCublasError(tbStatus_, #call, __FILE__, __LINE__);                    \
    } while (0)

// After a kernel launch: reports launch-configuration errors with the kernel's name and place.
#define TB_KERNEL_CHECK(name) ::tb::cuda::checkLaunch(name, __FILE__, __LINE__)

namespace tb::cuda {
inline void checkLaunch(const char* name, const char* file, int line) {
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
        throwCudaError(status, name, file, line);
}
} // namespace tb::cuda
