// The plugin's exported C entry points (backend/cudaplugin.h): ABI version, probe, factories.
#include "backend/cudaplugin.h"

#include "cudabackend.h"
#include "cudacheck.h"
#include "deviceinfo.h"
#ifdef TB_HAVE_NCCL
#include "ncclapi.h"
#include "ncclcollectives.h"
#endif

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>

namespace {

// Copies text into buf (always NUL-terminated when len > 0).
void copyOut(const std::string& text, char* buf, std::size_t len) {
    if (!buf || len == 0)
        return;
    const std::size_t n = std::min(text.size(), len - 1);
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
}

} // namespace

extern "C" {

int tb_cuda_plugin_abi() {
    return TB_CUDA_PLUGIN_ABI;
}

std::size_t tb_cuda_probe_json(char* buf, std::size_t len, int contextDevice) {
    // Probed once; the engine may call twice to size its buffer.
    static std::once_flag once;
    static std::string text;
    std::call_once(once, [contextDevice] {
        try {
            text = tb::cuda::probeJson(contextDevice).dump();
        } catch (const std::exception& e) {
            text = nlohmann::json{
                {"usable", false},
                {"reason", std::string("probe failed: ") + e.what()},
                {"advice",
                 ""}}.dump();
        } catch (...) { // nothing may cross the C boundary
            text = R"({"usable":false,"reason":"probe failed: unknown error","advice":""})";
        }
    });
    copyOut(text, buf, len);
    return text.size() + 1;
}

int tb_cuda_nccl_version(char* why, std::size_t whyLen) {
#ifdef TB_HAVE_NCCL
    std::string reason;
    const int version = tb::cuda::ncclVersionOrWhy(reason);
    copyOut(reason, why, whyLen);
    return version;
#else
    copyOut("this CUDA plugin was built without NCCL (nccl.h was not under /usr/local/cuda)", why,
            whyLen);
    return 0;
#endif
}

int tb_cuda_context_lost(char* buf, std::size_t len) {
    const std::string reason = tb::cuda::contextLostReason();
    copyOut(reason, buf, len);
    return reason.empty() ? 0 : 1;
}

tb::Backend* tb_cuda_create_backend(int index, char* err, std::size_t errLen) {
    try {
        if (const std::string lost = tb::cuda::contextLostReason(); !lost.empty())
            throw tb::Error("the GPU's CUDA context in this process was lost after " + lost +
                            "; restart TrainBench to train on the GPU again");
        return new tb::cuda::CudaBackend(index);
    } catch (const std::exception& e) {
        copyOut(e.what(), err, errLen);
    } catch (...) {
        copyOut("unknown error while creating the CUDA backend", err, errLen);
    }
    return nullptr;
}

int tb_cuda_collectives_id(char* id, char* err, std::size_t errLen) {
#ifdef TB_HAVE_NCCL
    try {
        const tb::DeviceCollectivesId made = tb::cuda::NcclCollectives::newId();
        std::memcpy(id, made.bytes, sizeof made.bytes);
        return 0;
    } catch (const std::exception& e) {
        copyOut(e.what(), err, errLen);
    } catch (...) {
        copyOut("unknown error while making the NCCL id", err, errLen);
    }
#else
    (void)id;
    copyOut("this CUDA plugin was built without NCCL (nccl.h was not under /usr/local/cuda)", err,
            errLen);
#endif
    return -1;
}

tb::DeviceCollectives* tb_cuda_create_collectives(tb::Backend* backend, const char* id, int rank,
                                                  int size, int timeoutMs, char* err,
                                                  std::size_t errLen) {
#ifdef TB_HAVE_NCCL
    try {
        auto* cuda = dynamic_cast<tb::cuda::CudaBackend*>(backend);
        if (!cuda)
            throw tb::Error("NCCL collectives need a backend of this plugin");
        tb::DeviceCollectivesId nid;
        std::memcpy(nid.bytes, id, sizeof nid.bytes);
        return new tb::cuda::NcclCollectives(cuda->index(), cuda->computeStream(), nid, rank, size,
                                             std::chrono::milliseconds(timeoutMs));
    } catch (const std::exception& e) {
        copyOut(e.what(), err, errLen);
    } catch (...) {
        copyOut("unknown error while connecting NCCL", err, errLen);
    }
#else
    (void)backend, (void)id, (void)rank, (void)size, (void)timeoutMs;
    copyOut("this CUDA plugin was built without NCCL (nccl.h was not under /usr/local/cuda)", err,
            errLen);
#endif
    return nullptr;
}

} // extern "C"
