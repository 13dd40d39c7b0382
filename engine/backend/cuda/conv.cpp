// Convolution on cuDNN: plans (descriptors + ranked algorithms) cached per shape, dtype and
// determinism; each pass runs down its ranking when cuDNN refuses an algorithm at run time; one
// workspace grown on demand; f32 master weights cast for f16/bf16 activations.
#include "cudabackend.h"

#include "cudacheck.h"
#include "kernels.h"
#include "tensorchecks.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tb::cuda {

namespace {

void checkConv(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor& y,
               const char* op) {
    // The stride first: outH() divides by it.
    if (d.stride <= 0 || d.dilation <= 0 || d.pad < 0 || d.r <= 0 || d.s <= 0 || d.groups <= 0 ||
        d.c % d.groups || d.k % d.groups || d.outH() <= 0 || d.outW() <= 0)
        throw Error(std::string(op) + ": invalid convolution geometry");
    if (x.numel() != d.n * d.c * d.h * d.w || w.numel() != d.weightCount() ||
        y.numel() != d.n * d.k * d.outH() * d.outW())
        throw Error(std::string(op) + ": tensor sizes do not match the convolution");
    if (w.dtype() != DType::F32 || x.dtype() != y.dtype())
        throw Error(std::string(op) + ": weights must be f32 and x, y of one dtype");
}

// Largest workspace an algorithm may ask for: half of what the device has free when the plan is
// made, between 64 MiB and 1 GiB (the block is held for good). Deterministic mode uses a fixed
// limit so that the algorithms, and therefore the bits, do not depend on memory pressure.
std::size_t workspaceLimit(bool deterministic) {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    if (deterministic)
        return 256 * kMiB;
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return 64 * kMiB;
    }
    return std::clamp(freeBytes / 2, 64 * kMiB, 1024 * kMiB);
}

// TRAINBENCH_CUDNN_REFUSE_FIRST=1 treats the first-ranked algorithm of every pass that has a
// second as refused, so a GPU check exercises the fallback on a machine where nothing fails.
bool refuseFirstForCheck() {
    static const bool on = [] {
        const char* v = std::getenv("TRAINBENCH_CUDNN_REFUSE_FIRST");
        return v && *v && *v != '0';
    }();
    return on;
}

} // namespace

void CudaBackend::runConvPass(
    legacy::ConvPlan& plan, legacy::ConvPass pass,
    const std::function<std::optional<std::string>(const RankedAlgo&, void* workspace)>& run) {
    const std::vector<RankedAlgo>& ranked = legacy::convRanking(plan, pass);
    runRanked(
        ranked, legacy::convCurrent(plan, pass), legacy::convPassName(pass),
        [&](const RankedAlgo& a) -> std::optional<std::string> {
            if (refuseFirstForCheck() && &a == &ranked.front() && ranked.size() > 1)
                return std::string("refused by TRAINBENCH_CUDNN_REFUSE_FIRST");
            void* ws = workspace(a.workspaceBytes);
            std::optional<std::string> refused;
            withOomRetry([&] { refused = run(a, ws); });
            return refused;
        },
        [&](const RankedAlgo& from, const RankedAlgo& to, const std::string& why) {
            // Once per shape and pass (the plan keeps the algorithm that ran): rare enough for
            // stderr, where the CLI's and the window's logs of the process go.
            std::fprintf(stderr,
                         "trainbench: %s: cuDNN refused convolution %s algorithm %d (%s); "
                         "running the next ranked, algorithm %d (workspace %zu bytes)\n",
                         m_label.c_str(), legacy::convPassName(pass), from.algo, why.c_str(),
                         to.algo, to.workspaceBytes);
        });
}

legacy::ConvPlan& CudaBackend::convPlan(const ConvDesc& d, DType dtype) {
    const ConvKey key{d, dtype, m_deterministic};
    auto it = m_convPlans.find(key);
    if (it == m_convPlans.end()) {
        legacy::ConvPlanPtr plan;
        withOomRetry([&] {
            plan = legacy::createConvPlan(m_cudnn, d, dtype, m_deterministic,
                                          workspaceLimit(m_deterministic));
        });
        it = m_convPlans.emplace(key, std::move(plan)).first;
    }
    return *it->second;
}

// y(n, k, oh, ow) = conv(x(n, c, h, w), w(k, c, r, s)) + b(k).
void CudaBackend::convForward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor* b,
                              Tensor& y) {
    requireDevice(x, "convForward");
    requireDevice(w, "convForward");
    requireDevice(y, "convForward");
    checkConv(d, x, w, y, "convForward");
    if (b) {
        requireDevice(*b, "convForward");
        requireF32Vector(*b, d.k, "convForward", "bias");
    }
    DeviceScope scope(m_index);
    if (y.numel() == 0)
        return;
    const DType dtype = x.dtype();
    legacy::ConvPlan& plan = convPlan(d, dtype);
    const Tensor wc = weightsAs(w, dtype);
    runConvPass(plan, legacy::ConvPass::Forward, [&](const RankedAlgo& a, void* ws) {
        return legacy::convForward(m_cudnn, plan, a, x.raw(), wc.raw(), y.raw(), ws);
    });
    if (b)
        launchAddBias(y.raw(), b->data<float>(), dtype, d.n, d.k, d.outH() * d.outW(), stream());
}

// dx = backward-data (overwritten, optional); dw += backward-filter; db += sum of dy per k.
void CudaBackend::convBackward(const ConvDesc& d, const Tensor& x, const Tensor& w,
                               const Tensor& dy, Tensor* dx, Tensor& dw, Tensor* db) {
    requireDevice(x, "convBackward");
    requireDevice(w, "convBackward");
    requireDevice(dy, "convBackward");
    requireDevice(dw, "convBackward");
    checkConv(d, x, w, dy, "convBackward");
    if (dw.numel() != w.numel() || dw.dtype() != DType::F32)
        throw Error("convBackward: dw must be f32 and the size of w");
    if (db) {
        requireDevice(*db, "convBackward");
        requireF32Vector(*db, d.k, "convBackward", "db");
    }
    DeviceScope scope(m_index);
    if (dy.numel() == 0)
        return;
    const DType dtype = x.dtype();
    legacy::ConvPlan& plan = convPlan(d, dtype);
    if (dx) {
        requireDevice(*dx, "convBackward");
        if (dx->numel() != x.numel() || dx->dtype() != dtype)
            throw Error("convBackward: dx does not match x");
        const Tensor wc = weightsAs(w, dtype);
        runConvPass(plan, legacy::ConvPass::BackwardData, [&](const RankedAlgo& a, void* ws) {
            return legacy::convBackwardData(m_cudnn, plan, a, wc.raw(), dy.raw(), dx->raw(), ws);
        });
    }
    if (dtype == DType::F32) {
        // beta 1 accumulates; a refused algorithm wrote nothing, so the next one may too.
        runConvPass(plan, legacy::ConvPass::BackwardFilter, [&](const RankedAlgo& a, void* ws) {
            return legacy::convBackwardFilter(m_cudnn, plan, a, x.raw(), dy.raw(), dw.raw(), 1.0f,
                                              ws);
        });
    } else {
        // cuDNN wants the filter gradient in the activation dtype: compute it there (as autocast
        // does) and accumulate into the f32 master gradient.
        Tensor partial = empty(w.shape(), dtype);
        runConvPass(plan, legacy::ConvPass::BackwardFilter, [&](const RankedAlgo& a, void* ws) {
            return legacy::convBackwardFilter(m_cudnn, plan, a, x.raw(), dy.raw(), partial.raw(),
                                              0.0f, ws);
        });
        launchAccumulate(partial.raw(), dtype, dw.data<float>(), dw.numel(), stream());
    }
    if (db)
        launchBiasGrad(dy.raw(), db->data<float>(), dtype, d.n, d.k, d.outH() * d.outW(), stream());
}

} // namespace tb::cuda
