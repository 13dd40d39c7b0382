// The plugin's exported C entry points (backend/cudaplugin.h): ABI version, probe, factories.
#include "backend/cudaplugin.h"

#include "cudabackend.h"
#include "deviceinfo.h"
#ifdef TB_HAVE_NCCL
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

std::size_t tb_cuda_probe_json(char* buf, std::size_t len) {
    // Probed once; the engine may call twice to size its buffer.
    static std::once_flag once;
    static std::string text;
    std::call_once(once, [] {
        try {
            text = tb::cuda::probeJson().dump();
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

tb::Backend* tb_cuda_create_backend(int index, char* err, std::size_t errLen) {
    try {
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
