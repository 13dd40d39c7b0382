// The ops that run on our own kernels: pooling, activations, dropout, add, cast, the ResNet
// shortcut, the fused loss, the inf/NaN check, the loss-scale update and the fused optimizers.
// Each checks its tensors, then launches on the compute stream.
#include "cudabackend.h"

#include "cudacheck.h"
#include "kernels.h"
#include "tensorchecks.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace tb::cuda {

namespace {

const float* optionalF32(const Tensor* t) {
    return t ? t->data<float>() : nullptr;
}

void requireNeckShapes(bool ok, const char* op, const Tensor& a, const Tensor& b) {
    if (!ok)
        throw Error(std::string(op) + ": shapes " + a.shape().toString() + " and " +
                    b.shape().toString() + " do not match");
}

} // namespace

void CudaBackend::poolForward(const PoolDesc& d, const Tensor& x, Tensor& y, Tensor& indices) {
    requireDevice(x, "poolForward");
    requireDevice(y, "poolForward");
    if (!d.valid())
        throw Error("poolForward: invalid pooling geometry");
    if (x.numel() != d.n * d.c * d.h * d.w || y.numel() != d.n * d.c * d.outH() * d.outW() ||
        x.dtype() != y.dtype())
        throw Error("poolForward: tensor sizes do not match the pooling");
    int32_t* idx = nullptr;
    if (d.kind == PoolKind::Max) {
        requireDevice(indices, "poolForward");
        requireDType(indices, DType::I32, "poolForward", "indices");
        if (indices.numel() != y.numel())
            throw Error("poolForward: indices must have the size of y");
        idx = indices.data<int32_t>();
    }
    DeviceScope scope(m_index);
    launchPoolForward(d, x.raw(), y.raw(), idx, x.dtype(), stream());
}

void CudaBackend::poolBackward(const PoolDesc& d, const Tensor& /*x: one layout here*/,
                               const Tensor& dy, const Tensor& indices, Tensor& dx) {
    requireDevice(dy, "poolBackward");
    requireDevice(dx, "poolBackward");
    if (!d.valid())
        throw Error("poolBackward: invalid pooling geometry");
    if (dx.numel() != d.n * d.c * d.h * d.w || dy.numel() != d.n * d.c * d.outH() * d.outW() ||
        dx.dtype() != dy.dtype())
        throw Error("poolBackward: tensor sizes do not match the pooling");
    const int32_t* idx = nullptr;
    if (d.kind == PoolKind::Max) {
        requireDevice(indices, "poolBackward");
        requireDType(indices, DType::I32, "poolBackward", "indices");
        if (indices.numel() != dy.numel())
            throw Error("poolBackward: indices must have the size of dy");
        idx = indices.data<int32_t>();
    }
    DeviceScope scope(m_index);
    launchPoolBackward(d, dy.raw(), idx, dx.raw(), dy.dtype(), stream());
}

void CudaBackend::activationForward(Activation a, float alpha, const Tensor& x, Tensor& y) {
    requireDevice(x, "activationForward");
    requireDevice(y, "activationForward");
    requireSameSize(x, y, "activationForward");
    DeviceScope scope(m_index);
    launchActivationForward(a, alpha, x.raw(), y.raw(), x.dtype(), x.numel(), stream());
}

void CudaBackend::activationBackward(Activation a, float alpha, const Tensor& x, const Tensor& dy,
                                     Tensor& dx) {
    requireDevice(x, "activationBackward");
    requireDevice(dy, "activationBackward");
    requireDevice(dx, "activationBackward");
    requireSameSize(x, dy, "activationBackward");
    requireSameSize(x, dx, "activationBackward");
    DeviceScope scope(m_index);
    launchActivationBackward(a, alpha, x.raw(), dy.raw(), dx.raw(), x.dtype(), x.numel(), stream());
}

void CudaBackend::dropoutForward(const Tensor& x, float p, uint64_t seed, Tensor& y, Tensor& mask) {
    requireDevice(x, "dropoutForward");
    requireDevice(y, "dropoutForward");
    requireDevice(mask, "dropoutForward");
    requireSameSize(x, y, "dropoutForward");
    requireDType(mask, DType::U8, "dropoutForward", "mask");
    if (mask.numel() != x.numel())
        throw Error("dropoutForward: mask must have the size of x");
    if (!(p >= 0.0f && p < 1.0f))
        throw Error("dropoutForward: p must be in [0, 1)");
    DeviceScope scope(m_index);
    launchDropoutForward(x.raw(), y.raw(), mask.data<uint8_t>(), x.dtype(), x.numel(), p, seed,
                         stream());
}

void CudaBackend::dropoutBackward(const Tensor& dy, const Tensor& mask, float p, Tensor& dx) {
    requireDevice(dy, "dropoutBackward");
    requireDevice(mask, "dropoutBackward");
    requireDevice(dx, "dropoutBackward");
    requireSameSize(dy, dx, "dropoutBackward");
    requireDType(mask, DType::U8, "dropoutBackward", "mask");
    if (mask.numel() != dy.numel())
        throw Error("dropoutBackward: mask must have the size of dy");
    DeviceScope scope(m_index);
    launchDropoutBackward(dy.raw(), mask.data<uint8_t>(), dx.raw(), dy.dtype(), dy.numel(), p,
                          stream());
}

void CudaBackend::add(const Tensor& a, const Tensor& b, Tensor& y) {
    requireDevice(a, "add");
    requireDevice(b, "add");
    requireDevice(y, "add");
    requireSameSize(a, b, "add");
    requireSameSize(a, y, "add");
    DeviceScope scope(m_index);
    launchAdd(a.raw(), b.raw(), y.raw(), a.dtype(), a.numel(), stream());
}

void CudaBackend::cast(const Tensor& src, Tensor& dst) {
    requireDevice(src, "cast");
    requireDevice(dst, "cast");
    if (src.numel() != dst.numel())
        throw Error("cast: element counts differ");
    DeviceScope scope(m_index);
    if (src.dtype() == dst.dtype()) {
        copy(src, dst);
        return;
    }
    launchCast(src.raw(), src.dtype(), dst.raw(), dst.dtype(), src.numel(), stream());
}

void CudaBackend::shortcutPadForward(const Tensor& x, int64_t stride, int64_t padC, Tensor& y) {
    requireDevice(x, "shortcutPadForward");
    requireDevice(y, "shortcutPadForward");
    if (x.shape().rank() != 4 || y.shape().rank() != 4 || stride <= 0 || padC < 0 ||
        y.dim(0) != x.dim(0) || y.dim(1) != x.dim(1) + 2 * padC || x.dtype() != y.dtype() ||
        y.dim(2) != (x.dim(2) + stride - 1) / stride ||
        y.dim(3) != (x.dim(3) + stride - 1) / stride)
        throw Error("shortcutPadForward: shapes " + x.shape().toString() + " -> " +
                    y.shape().toString() + " do not match");
    const ShortcutGeometry g{x.dim(0), x.dim(1), x.dim(2), x.dim(3),
                             y.dim(2), y.dim(3), stride,   padC};
    DeviceScope scope(m_index);
    launchShortcutPadForward(x.raw(), y.raw(), x.dtype(), g, stream());
}

void CudaBackend::shortcutPadBackward(const Tensor& dy, int64_t stride, int64_t padC, Tensor& dx) {
    requireDevice(dy, "shortcutPadBackward");
    requireDevice(dx, "shortcutPadBackward");
    if (dx.shape().rank() != 4 || dy.shape().rank() != 4 || stride <= 0 || padC < 0 ||
        dy.dim(0) != dx.dim(0) || dy.dim(1) != dx.dim(1) + 2 * padC || dx.dtype() != dy.dtype() ||
        dy.dim(2) != (dx.dim(2) + stride - 1) / stride ||
        dy.dim(3) != (dx.dim(3) + stride - 1) / stride)
        throw Error("shortcutPadBackward: shapes " + dy.shape().toString() + " -> " +
                    dx.shape().toString() + " do not match");
    const ShortcutGeometry g{dx.dim(0), dx.dim(1), dx.dim(2), dx.dim(3),
                             dy.dim(2), dy.dim(3), stride,    padC};
    DeviceScope scope(m_index);
    launchShortcutPadBackward(dy.raw(), dx.raw(), dy.dtype(), g, stream());
}

void CudaBackend::joinChannels(const std::vector<const Tensor*>& parts, Tensor& whole) {
    requireDevice(whole, "joinChannels");
    int64_t first = 0;
    DeviceScope scope(m_index);
    for (const Tensor* part : parts) {
        requireDevice(*part, "joinChannels");
        requireNeckShapes(part->shape().rank() == 4 && whole.shape().rank() == 4 &&
                              part->dim(0) == whole.dim(0) && part->dim(2) == whole.dim(2) &&
                              part->dim(3) == whole.dim(3) && part->dtype() == whole.dtype() &&
                              first + part->dim(1) <= whole.dim(1),
                          "joinChannels", *part, whole);
        launchChannelCopy(part->raw(), part->dim(1), 0, whole.raw(), whole.dim(1), first,
                          whole.dim(0), part->dim(1), whole.dim(2) * whole.dim(3), whole.dtype(),
                          stream());
        first += part->dim(1);
    }
    if (first != whole.dim(1))
        throw Error("joinChannels: the parts hold " + std::to_string(first) +
                    " channels, the whole " + std::to_string(whole.dim(1)));
}

void CudaBackend::splitChannels(const Tensor& whole, const std::vector<Tensor*>& parts,
                                const std::vector<int64_t>& channels) {
    requireDevice(whole, "splitChannels");
    int64_t total = 0;
    for (int64_t c : channels)
        total += c;
    if (channels.size() != parts.size() || whole.shape().rank() != 4 || total != whole.dim(1))
        throw Error("splitChannels: the channels do not add up to " + whole.shape().toString());
    int64_t first = 0;
    DeviceScope scope(m_index);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (Tensor* part = parts[k]) {
            requireDevice(*part, "splitChannels");
            requireNeckShapes(part->shape().rank() == 4 && part->dim(0) == whole.dim(0) &&
                                  part->dim(1) == channels[k] && part->dim(2) == whole.dim(2) &&
                                  part->dim(3) == whole.dim(3) && part->dtype() == whole.dtype(),
                              "splitChannels", whole, *part);
            launchChannelCopy(whole.raw(), whole.dim(1), first, part->raw(), channels[k], 0,
                              whole.dim(0), channels[k], whole.dim(2) * whole.dim(3), whole.dtype(),
                              stream());
        }
        first += channels[k];
    }
}

void CudaBackend::upsampleNearestForward(const Tensor& x, int64_t scale, Tensor& y) {
    requireDevice(x, "upsampleNearestForward");
    requireDevice(y, "upsampleNearestForward");
    requireNeckShapes(scale >= 1 && x.shape().rank() == 4 && y.shape().rank() == 4 &&
                          y.dim(0) == x.dim(0) && y.dim(1) == x.dim(1) &&
                          y.dim(2) == x.dim(2) * scale && y.dim(3) == x.dim(3) * scale &&
                          x.dtype() == y.dtype(),
                      "upsampleNearestForward", x, y);
    DeviceScope scope(m_index);
    launchUpsampleNearestForward(x.raw(), y.raw(), x.dtype(), x.dim(0) * x.dim(1), x.dim(2),
                                 x.dim(3), scale, stream());
}

void CudaBackend::upsampleNearestBackward(const Tensor& dy, int64_t scale, Tensor& dx) {
    requireDevice(dy, "upsampleNearestBackward");
    requireDevice(dx, "upsampleNearestBackward");
    requireNeckShapes(scale >= 1 && dx.shape().rank() == 4 && dy.shape().rank() == 4 &&
                          dy.dim(0) == dx.dim(0) && dy.dim(1) == dx.dim(1) &&
                          dy.dim(2) == dx.dim(2) * scale && dy.dim(3) == dx.dim(3) * scale &&
                          dx.dtype() == dy.dtype(),
                      "upsampleNearestBackward", dy, dx);
    DeviceScope scope(m_index);
    launchUpsampleNearestBackward(dy.raw(), dx.raw(), dy.dtype(), dx.dim(0) * dx.dim(1), dx.dim(2),
                                  dx.dim(3), scale, stream());
}

void CudaBackend::resizeBilinearForward(const Tensor& x, Tensor& y) {
    requireDevice(x, "resizeBilinearForward");
    requireDevice(y, "resizeBilinearForward");
    requireNeckShapes(x.shape().rank() == 4 && y.shape().rank() == 4 && y.dim(0) == x.dim(0) &&
                          y.dim(1) == x.dim(1) && x.dtype() == y.dtype(),
                      "resizeBilinearForward", x, y);
    DeviceScope scope(m_index);
    launchResizeBilinearForward(x.raw(), y.raw(), x.dtype(), x.dim(0) * x.dim(1), x.dim(2),
                                x.dim(3), y.dim(2), y.dim(3), stream());
}

void CudaBackend::resizeBilinearBackward(const Tensor& dy, Tensor& dx) {
    requireDevice(dy, "resizeBilinearBackward");
    requireDevice(dx, "resizeBilinearBackward");
    requireNeckShapes(dx.shape().rank() == 4 && dy.shape().rank() == 4 && dy.dim(0) == dx.dim(0) &&
                          dy.dim(1) == dx.dim(1) && dx.dtype() == dy.dtype(),
                      "resizeBilinearBackward", dy, dx);
    DeviceScope scope(m_index);
    launchResizeBilinearBackward(dy.raw(), dx.raw(), dy.dtype(), dx.dim(0) * dx.dim(1), dx.dim(2),
                                 dx.dim(3), dy.dim(2), dy.dim(3), stream());
}

void CudaBackend::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float smoothing,
                                      Tensor& lossSum, Tensor* dlogits, const Tensor* gradScale,
                                      float divisor) {
    requireDevice(logits, "softmaxCrossEntropy");
    requireDevice(labels, "softmaxCrossEntropy");
    requireDevice(lossSum, "softmaxCrossEntropy");
    requireDType(labels, DType::I32, "softmaxCrossEntropy", "labels");
    requireDType(lossSum, DType::F32, "softmaxCrossEntropy", "lossSum");
    if (logits.shape().rank() < 2 || lossSum.numel() < 2)
        throw Error("softmaxCrossEntropy: logits must be (n, classes) and lossSum hold 2 floats");
    const int64_t n = logits.dim(0);
    const int64_t classes = n > 0 ? logits.numel() / n : 0;
    if (labels.numel() != n)
        throw Error("softmaxCrossEntropy: labels must have n entries");
    if (dlogits) {
        requireDevice(*dlogits, "softmaxCrossEntropy");
        if (dlogits->numel() != logits.numel())
            throw Error("softmaxCrossEntropy: dlogits must have the size of logits");
    }
    if (gradScale) {
        requireDevice(*gradScale, "softmaxCrossEntropy");
        requireF32Scalars(*gradScale, 1, "softmaxCrossEntropy", "gradScale");
    }
    if (!(divisor > 0.0f))
        throw Error("softmaxCrossEntropy: divisor must be positive");
    DeviceScope scope(m_index);
    Tensor rowScratch = empty({2 * std::max<int64_t>(n, 1)}, DType::F32);
    launchSoftmaxCrossEntropy(logits.raw(), logits.dtype(), labels.data<int32_t>(), n, classes,
                              smoothing, lossSum.data<float>(), dlogits ? dlogits->raw() : nullptr,
                              dlogits ? dlogits->dtype() : logits.dtype(), optionalF32(gradScale),
                              divisor, rowScratch.data<float>(), stream());
}

void CudaBackend::pixelCrossEntropy(const Tensor& logits, const Tensor& labels, int32_t ignoreIndex,
                                    int64_t counted, Tensor& lossSum, Tensor* dlogits,
                                    const Tensor* gradScale, float divisor) {
    requireDevice(logits, "pixelCrossEntropy");
    requireDevice(labels, "pixelCrossEntropy");
    requireDevice(lossSum, "pixelCrossEntropy");
    requireDType(labels, DType::I32, "pixelCrossEntropy", "labels");
    requireDType(lossSum, DType::F32, "pixelCrossEntropy", "lossSum");
    if (logits.shape().rank() != 4 || lossSum.numel() < 2 ||
        labels.numel() != logits.dim(0) * logits.dim(2) * logits.dim(3))
        throw Error("pixelCrossEntropy: logits " + logits.shape().toString() +
                    " need (n, classes, h, w), labels n x h x w and lossSum 2 floats");
    if (dlogits) {
        requireDevice(*dlogits, "pixelCrossEntropy");
        if (dlogits->numel() != logits.numel())
            throw Error("pixelCrossEntropy: dlogits must have the size of logits");
    }
    if (gradScale) {
        requireDevice(*gradScale, "pixelCrossEntropy");
        requireF32Scalars(*gradScale, 1, "pixelCrossEntropy", "gradScale");
    }
    if (!(divisor > 0.0f) || counted < 0)
        throw Error("pixelCrossEntropy: divisor must be positive and counted not negative");
    const int64_t pixels = labels.numel();
    DeviceScope scope(m_index);
    Tensor pixelScratch = empty({2 * std::max<int64_t>(pixels, 1)}, DType::F32);
    launchPixelCrossEntropy(logits.raw(), logits.dtype(), labels.data<int32_t>(), logits.dim(0),
                            logits.dim(1), logits.dim(2) * logits.dim(3), ignoreIndex, counted,
                            lossSum.data<float>(), dlogits ? dlogits->raw() : nullptr,
                            dlogits ? dlogits->dtype() : logits.dtype(), optionalF32(gradScale),
                            divisor, pixelScratch.data<float>(), stream());
}

void CudaBackend::checkFinite(const std::vector<Tensor*>& tensors, Tensor& foundInf) {
    requireDevice(foundInf, "checkFinite");
    requireF32Scalars(foundInf, 1, "checkFinite", "foundInf");
    DeviceScope scope(m_index);
    for (const Tensor* t : tensors) {
        if (!t || !t->defined())
            continue;
        requireDevice(*t, "checkFinite");
        launchCheckFinite(t->raw(), t->dtype(), t->numel(), foundInf.data<float>(), stream());
    }
}

void CudaBackend::clipGradNorm(const std::vector<Tensor*>& grads, float maxNorm,
                               const Tensor* scaleState, Tensor& stats) {
    requireDevice(stats, "clipGradNorm");
    requireF32Scalars(stats, 2, "clipGradNorm", "stats");
    if (scaleState)
        requireF32Scalars(*scaleState, 1, "clipGradNorm", "scaleState");
    DeviceScope scope(m_index);
    // Once: [the summed squares as a double, the factor, padding, a double per block's partial].
    if (!m_clipScratch.defined()) {
        m_clipScratch = empty({4 + 2 * int64_t{kMaxSumSquaresBlocks}}, DType::F32);
        fill(m_clipScratch, 0.0f);
    }
    auto* sum = reinterpret_cast<double*>(m_clipScratch.data<float>());
    float* factor = m_clipScratch.data<float>() + 2;
    auto* partials = reinterpret_cast<double*>(m_clipScratch.data<float>() + 4);
    for (const Tensor* g : grads) {
        if (!g || !g->defined())
            continue;
        requireDevice(*g, "clipGradNorm");
        requireDType(*g, DType::F32, "clipGradNorm", "a gradient");
        launchSumSquares(g->data<float>(), g->numel(), partials, sum, stream());
    }
    launchClipFactor(sum, optionalF32(scaleState), maxNorm, stats.data<float>(), factor, stream());
    for (Tensor* g : grads)
        if (g && g->defined())
            launchScaleBy(g->data<float>(), g->numel(), factor, stream());
}

void CudaBackend::updateLossScale(Tensor& state, const Tensor& foundInf, float growth,
                                  float backoff, int growthInterval) {
    requireDevice(state, "updateLossScale");
    requireDevice(foundInf, "updateLossScale");
    requireDType(state, DType::F32, "updateLossScale", "state");
    requireF32Scalars(foundInf, 1, "updateLossScale", "foundInf");
    if (state.numel() < 2 || growthInterval <= 0)
        throw Error("updateLossScale: state needs [scale, tracker] and growthInterval > 0");
    DeviceScope scope(m_index);
    launchUpdateLossScale(state.data<float>(), foundInf.data<float>(), growth, backoff,
                          growthInterval, stream());
}

void CudaBackend::sgdStep(Tensor& param, const Tensor& grad, Tensor* momentumBuf,
                          const SgdParams& p, const Tensor* scaleState, const Tensor* foundInf) {
    requireDevice(param, "sgdStep");
    requireDevice(grad, "sgdStep");
    requireDType(param, DType::F32, "sgdStep", "param");
    requireSameSize(param, grad, "sgdStep");
    if (momentumBuf) {
        requireDevice(*momentumBuf, "sgdStep");
        requireSameSize(param, *momentumBuf, "sgdStep");
    }
    if (scaleState) {
        requireDevice(*scaleState, "sgdStep");
        requireF32Scalars(*scaleState, 1, "sgdStep", "scaleState");
    }
    if (foundInf) {
        requireDevice(*foundInf, "sgdStep");
        requireF32Scalars(*foundInf, 1, "sgdStep", "foundInf");
    }
    DeviceScope scope(m_index);
    launchSgdStep(param.data<float>(), grad.data<float>(),
                  momentumBuf ? momentumBuf->data<float>() : nullptr, param.numel(), p,
                  optionalF32(scaleState), optionalF32(foundInf), stream());
}

void CudaBackend::adamwStep(Tensor& param, const Tensor& grad, Tensor& expAvg, Tensor& expAvgSq,
                            const AdamWParams& p, const Tensor* scaleState, const Tensor* foundInf,
                            const Tensor* skippedSteps) {
    for (const Tensor* t :
         std::initializer_list<const Tensor*>{&param, &grad, &expAvg, &expAvgSq}) {
        requireDevice(*t, "adamwStep");
        requireDType(*t, DType::F32, "adamwStep", "param, grad and moments");
        requireSameSize(param, *t, "adamwStep");
    }
    if (scaleState) {
        requireDevice(*scaleState, "adamwStep");
        requireF32Scalars(*scaleState, 1, "adamwStep", "scaleState");
    }
    if (foundInf) {
        requireDevice(*foundInf, "adamwStep");
        requireF32Scalars(*foundInf, 1, "adamwStep", "foundInf");
    }
    if (skippedSteps) {
        requireDevice(*skippedSteps, "adamwStep");
        requireF32Scalars(*skippedSteps, 1, "adamwStep", "skippedSteps");
    }
    if (p.step < 1)
        throw Error("adamwStep: step counts from 1");
    DeviceScope scope(m_index);
    launchAdamwStep(param.data<float>(), grad.data<float>(), expAvg.data<float>(),
                    expAvgSq.data<float>(), param.numel(), p, optionalF32(scaleState),
                    optionalF32(foundInf), optionalF32(skippedSteps), stream());
}

} // namespace tb::cuda
