// A Backend that only allocates, fills and copies host memory: enough to build a Graph from a
// spec and print its summary, which is all the model-spec fuzzer does (the CPU backend is not
// used because clang 14, the fuzz preset's compiler, cannot compile it), and a base for tests
// that watch the memory and stream calls a part of the engine makes. Any compute op traps, so
// a graph that computes while being built would be found.
#pragma once

#include "backend/backend.h"

#include <algorithm>
#include <cstring>

namespace tb::test {

class HostOnlyBackend : public Backend {
public:
    Device device() const override { return Device::cpu(); }
    std::string description() const override { return "host-only (fuzzing)"; }
    Tensor empty(const Shape& shape, DType dtype) override { return Tensor::host(shape, dtype); }
    Tensor emptyHost(const Shape& shape, DType dtype, bool) override {
        return Tensor::host(shape, dtype);
    }
    bool supportsPinnedMemory() const override { return false; }
    void copy(const Tensor& src, Tensor& dst) override {
        if (src.bytes() != dst.bytes())
            __builtin_trap();
        std::memcpy(dst.raw(), src.raw(), src.bytes());
    }
    void fill(Tensor& t, float value) override {
        if (t.dtype() != DType::F32)
            __builtin_trap();
        std::fill_n(t.data<float>(), t.numel(), value);
    }
    void synchronize() override {}
    std::unique_ptr<StreamEvent> recordEvent() override { __builtin_trap(); }
    MemoryStats memoryStats() const override { return {}; }
    void resetPeakMemory() override {}
    void releaseCachedMemory() override {}

    void linearForward(const Tensor&, const Tensor&, const Tensor*, Tensor&) override {
        __builtin_trap();
    }
    void linearBackward(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor&,
                        Tensor*) override {
        __builtin_trap();
    }
    void convForward(const ConvDesc&, const Tensor&, const Tensor&, const Tensor*,
                     Tensor&) override {
        __builtin_trap();
    }
    void convBackward(const ConvDesc&, const Tensor&, const Tensor&, const Tensor&, Tensor*,
                      Tensor&, Tensor*) override {
        __builtin_trap();
    }
    void poolForward(const PoolDesc&, const Tensor&, Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void poolBackward(const PoolDesc&, const Tensor&, const Tensor&, const Tensor&,
                      Tensor&) override {
        __builtin_trap();
    }
    void batchNormForwardTrain(const Tensor&, const Tensor&, const Tensor&, Tensor&, Tensor&, float,
                               float, Tensor&, Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void batchNormForwardInference(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                   const Tensor&, float, Tensor&) override {
        __builtin_trap();
    }
    void batchNormBackward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&, float, Tensor&, Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void activationForward(Activation, float, const Tensor&, Tensor&) override { __builtin_trap(); }
    void activationBackward(Activation, float, const Tensor&, const Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void dropoutForward(const Tensor&, float, uint64_t, Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void dropoutBackward(const Tensor&, const Tensor&, float, Tensor&) override {
        __builtin_trap();
    }
    void add(const Tensor&, const Tensor&, Tensor&) override { __builtin_trap(); }
    void cast(const Tensor&, Tensor&) override { __builtin_trap(); }
    void shortcutPadForward(const Tensor&, int64_t, int64_t, Tensor&) override { __builtin_trap(); }
    void shortcutPadBackward(const Tensor&, int64_t, int64_t, Tensor&) override {
        __builtin_trap();
    }
    void joinChannels(const std::vector<const Tensor*>&, Tensor&) override { __builtin_trap(); }
    void splitChannels(const Tensor&, const std::vector<Tensor*>&,
                       const std::vector<int64_t>&) override {
        __builtin_trap();
    }
    void upsampleNearestForward(const Tensor&, int64_t, Tensor&) override { __builtin_trap(); }
    void upsampleNearestBackward(const Tensor&, int64_t, Tensor&) override { __builtin_trap(); }
    void resizeBilinearForward(const Tensor&, Tensor&) override { __builtin_trap(); }
    void resizeBilinearBackward(const Tensor&, Tensor&) override { __builtin_trap(); }
    void embeddingForward(const Tensor&, const Tensor&, Tensor&) override { __builtin_trap(); }
    void embeddingBackward(const Tensor&, const Tensor&, Tensor&) override { __builtin_trap(); }
    void positionEmbeddingForward(const Tensor&, const Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void positionEmbeddingBackward(const Tensor&, Tensor&) override { __builtin_trap(); }
    void layerNormForward(const Tensor&, const Tensor&, const Tensor&, float, Tensor&, Tensor&,
                          Tensor&) override {
        __builtin_trap();
    }
    void layerNormBackward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&, float, Tensor&, Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void attentionForward(const AttentionDesc&, const Tensor&, Tensor&, Tensor&) override {
        __builtin_trap();
    }
    void attentionBackward(const AttentionDesc&, const Tensor&, const Tensor&, const Tensor&,
                           Tensor&) override {
        __builtin_trap();
    }
    void softmaxCrossEntropy(const Tensor&, const Tensor&, float, Tensor&, Tensor*, const Tensor*,
                             float) override {
        __builtin_trap();
    }
    void pixelCrossEntropy(const Tensor&, const Tensor&, int32_t, int64_t, Tensor&, Tensor*,
                           const Tensor*, float) override {
        __builtin_trap();
    }
    void checkFinite(const std::vector<Tensor*>&, Tensor&) override { __builtin_trap(); }
    void updateLossScale(Tensor&, const Tensor&, float, float, int) override { __builtin_trap(); }
    void clipGradNorm(const std::vector<Tensor*>&, float, const Tensor*, Tensor&) override {
        __builtin_trap();
    }
    void sgdStep(Tensor&, const Tensor&, Tensor*, const SgdParams&, const Tensor*,
                 const Tensor*) override {
        __builtin_trap();
    }
    void adamwStep(Tensor&, const Tensor&, Tensor&, Tensor&, const AdamWParams&, const Tensor*,
                   const Tensor*, const Tensor*) override {
        __builtin_trap();
    }
};

} // namespace tb::test
