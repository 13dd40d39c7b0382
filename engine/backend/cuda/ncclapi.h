// NCCL's entry points, opened with dlopen the first time a data-parallel GPU job needs them: the
// plugin loads and trains on one GPU where no NCCL is installed (it is over 200 MB), and a job
// that needs it is told which library is missing and how to get it.
#pragma once

#include <nccl.h>

#include <string>

namespace tb::cuda {

struct NcclApi {
    decltype(&::ncclGetVersion) getVersion = nullptr;
    decltype(&::ncclGetUniqueId) getUniqueId = nullptr;
    decltype(&::ncclCommInitRank) commInitRank = nullptr;
    decltype(&::ncclCommDestroy) commDestroy = nullptr;
    decltype(&::ncclCommAbort) commAbort = nullptr;
    decltype(&::ncclCommGetAsyncError) commGetAsyncError = nullptr;
    decltype(&::ncclGetErrorString) getErrorString = nullptr;
    decltype(&::ncclAllReduce) allReduce = nullptr;
    decltype(&::ncclBroadcast) broadcast = nullptr;
};

// Opens libnccl.so.2 once (thread-safe) and resolves every entry point. Throws tb::Error naming
// the library, the loader's message and what to install when it cannot.
const NcclApi& nccl();

// Opens `library` and resolves NCCL's entry points in it: what nccl() does once, for tests.
// Returns the error nccl() would throw, or an empty string with `api` filled.
std::string openNccl(const char* library, NcclApi& api);

// NCCL's version (NCCL_VERSION code, e.g. 22809) for reports, or 0 with the reason in `why`;
// opens the library like nccl() but never throws.
int ncclVersionOrWhy(std::string& why);

} // namespace tb::cuda
