// MetaBackend: storage-less tensors, and compute ops that refuse to run.
#include "backend/metabackend.h"

#include "core/errors.h"

namespace tb {

namespace {

[[noreturn]] void cannotCompute(const char* op) {
    throw Error(std::string("the meta backend plans shapes only and cannot run ") + op);
}

class MetaEvent final : public StreamEvent {
public:
    bool completed() override { return true; }
    void wait() override {}
    float elapsedMs(const StreamEvent&) override { return 0.0f; }
};

} // namespace

Tensor MetaBackend::empty(const Shape& shape, DType dtype) {
    const std::size_t bytes = static_cast<std::size_t>(shape.numel()) * dtypeSize(dtype);
    return Tensor(std::make_shared<Buffer>(nullptr, bytes, Device::meta(), false, nullptr), shape,
                  dtype);
}

Tensor MetaBackend::emptyHost(const Shape& shape, DType dtype, bool) {
    return empty(shape, dtype);
}

std::unique_ptr<StreamEvent> MetaBackend::recordEvent() {
    return std::make_unique<MetaEvent>();
}

void MetaBackend::linearForward(const Tensor&, const Tensor&, const Tensor*, Tensor&) {
    cannotCompute("linearForward");
}
void MetaBackend::linearBackward(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor&,
                                 Tensor*) {
    cannotCompute("linearBackward");
}
void MetaBackend::convForward(const ConvDesc&, const Tensor&, const Tensor&, const Tensor*,
                              Tensor&) {
    cannotCompute("convForward");
}
void MetaBackend::convBackward(const ConvDesc&, const Tensor&, const Tensor&, const Tensor&,
                               Tensor*, Tensor&, Tensor*) {
    cannotCompute("convBackward");
}
void MetaBackend::poolForward(const PoolDesc&, const Tensor&, Tensor&, Tensor&) {
    cannotCompute("poolForward");
}
void MetaBackend::poolBackward(const PoolDesc&, const Tensor&, const Tensor&, const Tensor&,
                               Tensor&) {
    cannotCompute("poolBackward");
}
void MetaBackend::batchNormForwardTrain(const Tensor&, const Tensor&, const Tensor&, Tensor&,
                                        Tensor&, float, float, Tensor&, Tensor&, Tensor&) {
    cannotCompute("batchNormForwardTrain");
}
void MetaBackend::batchNormForwardInference(const Tensor&, const Tensor&, const Tensor&,
                                            const Tensor&, const Tensor&, float, Tensor&) {
    cannotCompute("batchNormForwardInference");
}
void MetaBackend::batchNormBackward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                    const Tensor&, float, Tensor&, Tensor&, Tensor&) {
    cannotCompute("batchNormBackward");
}
void MetaBackend::activationForward(Activation, float, const Tensor&, Tensor&) {
    cannotCompute("activationForward");
}
void MetaBackend::activationBackward(Activation, float, const Tensor&, const Tensor&, Tensor&) {
    cannotCompute("activationBackward");
}
void MetaBackend::dropoutForward(const Tensor&, float, uint64_t, Tensor&, Tensor&) {
    cannotCompute("dropoutForward");
}
void MetaBackend::dropoutBackward(const Tensor&, const Tensor&, float, Tensor&) {
    cannotCompute("dropoutBackward");
}
void MetaBackend::add(const Tensor&, const Tensor&, Tensor&) {
    cannotCompute("add");
}
void MetaBackend::cast(const Tensor&, Tensor&) {
    cannotCompute("cast");
}
void MetaBackend::shortcutPadForward(const Tensor&, int64_t, int64_t, Tensor&) {
    cannotCompute("shortcutPadForward");
}
void MetaBackend::shortcutPadBackward(const Tensor&, int64_t, int64_t, Tensor&) {
    cannotCompute("shortcutPadBackward");
}
void MetaBackend::joinChannels(const std::vector<const Tensor*>&, Tensor&) {
    cannotCompute("joinChannels");
}
void MetaBackend::splitChannels(const Tensor&, const std::vector<Tensor*>&,
                                const std::vector<int64_t>&) {
    cannotCompute("splitChannels");
}
void MetaBackend::upsampleNearestForward(const Tensor&, int64_t, Tensor&) {
    cannotCompute("upsampleNearestForward");
}
void MetaBackend::upsampleNearestBackward(const Tensor&, int64_t, Tensor&) {
    cannotCompute("upsampleNearestBackward");
}
void MetaBackend::resizeBilinearForward(const Tensor&, Tensor&) {
    cannotCompute("resizeBilinearForward");
}
void MetaBackend::resizeBilinearBackward(const Tensor&, Tensor&) {
    cannotCompute("resizeBilinearBackward");
}
void MetaBackend::embeddingForward(const Tensor&, const Tensor&, Tensor&) {
    cannotCompute("embeddingForward");
}
void MetaBackend::embeddingBackward(const Tensor&, const Tensor&, Tensor&) {
    cannotCompute("embeddingBackward");
}
void MetaBackend::positionEmbeddingForward(const Tensor&, const Tensor&, Tensor&) {
    cannotCompute("positionEmbeddingForward");
}
void MetaBackend::positionEmbeddingBackward(const Tensor&, Tensor&) {
    cannotCompute("positionEmbeddingBackward");
}
void MetaBackend::layerNormForward(const Tensor&, const Tensor&, const Tensor&, float, Tensor&,
                                   Tensor&, Tensor&) {
    cannotCompute("layerNormForward");
}
void MetaBackend::layerNormBackward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                    const Tensor&, float, Tensor&, Tensor&, Tensor&) {
    cannotCompute("layerNormBackward");
}
void MetaBackend::attentionForward(const AttentionDesc&, const Tensor&, Tensor&, Tensor&) {
    cannotCompute("attentionForward");
}
void MetaBackend::attentionBackward(const AttentionDesc&, const Tensor&, const Tensor&,
                                    const Tensor&, Tensor&) {
    cannotCompute("attentionBackward");
}
void MetaBackend::softmaxCrossEntropy(const Tensor&, const Tensor&, float, Tensor&, Tensor*,
                                      const Tensor*, float) {
    cannotCompute("softmaxCrossEntropy");
}
void MetaBackend::pixelCrossEntropy(const Tensor&, const Tensor&, int32_t, int64_t, Tensor&,
                                    Tensor*, const Tensor*, float) {
    cannotCompute("pixelCrossEntropy");
}
void MetaBackend::checkFinite(const std::vector<Tensor*>&, Tensor&) {
    cannotCompute("checkFinite");
}
void MetaBackend::clipGradNorm(const std::vector<Tensor*>&, float, const Tensor*, Tensor&) {
    cannotCompute("clipGradNorm");
}
void MetaBackend::updateLossScale(Tensor&, const Tensor&, float, float, int) {
    cannotCompute("updateLossScale");
}
void MetaBackend::sgdStep(Tensor&, const Tensor&, Tensor*, const SgdParams&, const Tensor*,
                          const Tensor*) {
    cannotCompute("sgdStep");
}
void MetaBackend::adamwStep(Tensor&, const Tensor&, Tensor&, Tensor&, const AdamWParams&,
                            const Tensor*, const Tensor*, const Tensor*) {
    cannotCompute("adamwStep");
}

} // namespace tb
