// A backend that plans and computes nothing: its tensors have shapes but no memory (PyTorch's
// "meta" device). Building a Graph on it yields the parameter counts, activation shapes and
// gradient-buffer plan of a model before anything is allocated, so a model too large for the
// machine fails at once with its memory estimate instead of halfway through allocating it.
#pragma once

#include "backend/backend.h"

namespace tb {

class MetaBackend final : public Backend {
public:
    Device device() const override { return Device::meta(); }
    std::string description() const override { return "meta: shapes only, no memory"; }

    // Tensors without storage: raw() is null and must not be read.
    Tensor empty(const Shape& shape, DType dtype) override;
    Tensor emptyHost(const Shape& shape, DType dtype, bool pinned) override;
    bool supportsPinnedMemory() const override { return false; }
    // Memory and stream calls that layer set-up makes do nothing; compute ops throw Error.
    void copy(const Tensor&, Tensor&) override {}
    void fill(Tensor&, float) override {}
    void synchronize() override {}
    std::unique_ptr<StreamEvent> recordEvent() override;
    MemoryStats memoryStats() const override { return {}; }
    void resetPeakMemory() override {}
    void releaseCachedMemory() override {}

    void linearForward(const Tensor&, const Tensor&, const Tensor*, Tensor&) override;
    void linearBackward(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor&,
                        Tensor*) override;
    void convForward(const ConvDesc&, const Tensor&, const Tensor&, const Tensor*,
                     Tensor&) override;
    void convBackward(const ConvDesc&, const Tensor&, const Tensor&, const Tensor&, Tensor*,
                      Tensor&, Tensor*) override;
    void poolForward(const PoolDesc&, const Tensor&, Tensor&, Tensor&) override;
    void poolBackward(const PoolDesc&, const Tensor&, const Tensor&, const Tensor&,
                      Tensor&) override;
    void batchNormForwardTrain(const Tensor&, const Tensor&, const Tensor&, Tensor&, Tensor&, float,
                               float, Tensor&, Tensor&, Tensor&) override;
    void batchNormForwardInference(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                   const Tensor&, float, Tensor&) override;
    void batchNormBackward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&, float, Tensor&, Tensor&, Tensor&) override;
    void activationForward(Activation, float, const Tensor&, Tensor&) override;
    void activationBackward(Activation, float, const Tensor&, const Tensor&, Tensor&) override;
    void dropoutForward(const Tensor&, float, uint64_t, Tensor&, Tensor&) override;
    void dropoutBackward(const Tensor&, const Tensor&, float, Tensor&) override;
    void add(const Tensor&, const Tensor&, Tensor&) override;
    void cast(const Tensor&, Tensor&) override;
    void shortcutPadForward(const Tensor&, int64_t, int64_t, Tensor&) override;
    void shortcutPadBackward(const Tensor&, int64_t, int64_t, Tensor&) override;
    void joinChannels(const std::vector<const Tensor*>&, Tensor&) override;
    void splitChannels(const Tensor&, const std::vector<Tensor*>&,
                       const std::vector<int64_t>&) override;
    void upsampleNearestForward(const Tensor&, int64_t, Tensor&) override;
    void upsampleNearestBackward(const Tensor&, int64_t, Tensor&) override;
    void resizeBilinearForward(const Tensor&, Tensor&) override;
    void resizeBilinearBackward(const Tensor&, Tensor&) override;
    void embeddingForward(const Tensor&, const Tensor&, Tensor&) override;
    void embeddingBackward(const Tensor&, const Tensor&, Tensor&) override;
    void positionEmbeddingForward(const Tensor&, const Tensor&, Tensor&) override;
    void positionEmbeddingBackward(const Tensor&, Tensor&) override;
    void layerNormForward(const Tensor&, const Tensor&, const Tensor&, float, Tensor&, Tensor&,
                          Tensor&) override;
    void layerNormBackward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&, float, Tensor&, Tensor&, Tensor&) override;
    void attentionForward(const AttentionDesc&, const Tensor&, Tensor&, Tensor&) override;
    void attentionBackward(const AttentionDesc&, const Tensor&, const Tensor&, const Tensor&,
                           Tensor&) override;
    void softmaxCrossEntropy(const Tensor&, const Tensor&, float, Tensor&, Tensor*, const Tensor*,
                             float) override;
    void pixelCrossEntropy(const Tensor&, const Tensor&, int32_t, int64_t, Tensor&, Tensor*,
                           const Tensor*, float) override;
    void checkFinite(const std::vector<Tensor*>&, Tensor&) override;
    void updateLossScale(Tensor&, const Tensor&, float, float, int) override;
    void clipGradNorm(const std::vector<Tensor*>&, float, const Tensor*, Tensor&) override;
    void sgdStep(Tensor&, const Tensor&, Tensor*, const SgdParams&, const Tensor*,
                 const Tensor*) override;
    void adamwStep(Tensor&, const Tensor&, Tensor&, Tensor&, const AdamWParams&, const Tensor*,
                   const Tensor*, const Tensor*) override;
};

} // namespace tb
