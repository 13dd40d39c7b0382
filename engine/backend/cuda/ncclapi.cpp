// nccl(): dlopen and dlsym of NCCL through one typed helper, one failure message.
#include "ncclapi.h"

#include "core/errors.h"

#include <dlfcn.h>

#include <cstring>

namespace tb::cuda {

namespace {

constexpr const char* kLibrary = "libnccl.so.2";

template <typename Fn> void resolve(void* handle, const char* name, Fn& fn, std::string& missing) {
    void* sym = dlsym(handle, name);
    static_assert(sizeof fn == sizeof sym);
    std::memcpy(&fn, &sym, sizeof fn);
    if (!sym)
        missing += (missing.empty() ? "" : ", ") + std::string(name);
}

struct Loaded {
    NcclApi api;
    std::string error; // empty when every entry point resolved
};

const Loaded& loaded() {
    static const Loaded l = [] {
        Loaded made;
        made.error = openNccl(kLibrary, made.api);
        return made;
    }();
    return l;
}

} // namespace

std::string openNccl(const char* library, NcclApi& a) {
    // RTLD_LOCAL as the plugin's other libraries; never closed (communicators live until exit).
    void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        return std::string("NCCL (") + library + ") could not be loaded: " + (e ? e : "not found") +
               ". Data-parallel training on GPUs needs it: install libnccl2 from NVIDIA's "
               "repository (or the nvidia-nccl-cu13 wheel) and run ldconfig, or set "
               "ddp.backend=mpi to average gradients through host memory instead";
    }
    std::string missing;
    resolve(handle, "ncclGetVersion", a.getVersion, missing);
    resolve(handle, "ncclGetUniqueId", a.getUniqueId, missing);
    resolve(handle, "ncclCommInitRank", a.commInitRank, missing);
    resolve(handle, "ncclCommDestroy", a.commDestroy, missing);
    resolve(handle, "ncclCommAbort", a.commAbort, missing);
    resolve(handle, "ncclCommGetAsyncError", a.commGetAsyncError, missing);
    resolve(handle, "ncclGetErrorString", a.getErrorString, missing);
    resolve(handle, "ncclAllReduce", a.allReduce, missing);
    resolve(handle, "ncclBroadcast", a.broadcast, missing);
    if (!missing.empty())
        return std::string("the NCCL found (") + library + ") lacks " + missing +
               ": it is older than the NCCL 2.x this build needs; install a current libnccl2";
    return {};
}

const NcclApi& nccl() {
    const Loaded& l = loaded();
    if (!l.error.empty())
        throw Error(l.error);
    return l.api;
}

int ncclVersionOrWhy(std::string& why) {
    const Loaded& l = loaded();
    if (!l.error.empty()) {
        why = l.error;
        return 0;
    }
    int version = 0;
    if (l.api.getVersion(&version) != ncclSuccess) {
        why = "ncclGetVersion failed";
        return 0;
    }
    return version;
}

} // namespace tb::cuda
