// The CPU backend: oneDNN for convolution, the dense layers' matmuls and layer norm, and our
// own OpenMP loops (over the shared math in backend/kernels/) for everything else. oneDNN runs
// on OpenMP, so one pool of `threads` threads serves both and no two pools compete for the
// cores.
#pragma once

#include "backend/backend.h"
#include "backend/cpu/cpulayout.h"

#include <atomic>
#include <memory>
#include <vector>

namespace tb {

class CpuConvCache;
class CpuLayerNormCache;
class CpuLayoutConverter;
class CpuMatmulCache;

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads);
    ~CpuBackend() override;

    Device device() const override { return Device::cpu(); }
    std::string description() const override;
    int threads() const { return m_threads; }
    // Sets or clears flush-to-zero and denormals-are-zero (core/floatenv.h) on every thread of
    // the compute pool, the calling thread included: pool threads keep the MXCSR they started
    // with, so setting it on the caller alone would leave oneDNN's and our loops' workers
    // computing on denormals. Call it from the thread that issues the backend's work.
    void setFlushDenormals(bool on) override;
    void setMemoryFormat(MemoryFormat format) override;
    void setConvAlgorithm(ConvAlgorithm algorithm) override;
    // oneDNN reorders (layout conversions of activations between plain NCHW and the
    // convolutions' layouts, and of weights into theirs) run since the last reset; the bench
    // resets them before each step to report reorders per step.
    ReorderCounts reorderCounts() const { return m_reorders; }
    void resetReorderCounts() {
        m_reorders = {};
        m_convLayoutsSeen = 0;
    }
    // The layouts (cpulayout.h) convolutions wrote their outputs in since the last reset of the
    // reorder counts, as names: "nChw16c", or "nhwc,nChw16c" when they differ between layers.
    std::string convolutionLayouts() const;
    // The convolution shapes set up so far, and how many compute by Winograd (cpuconv.h).
    ConvAlgorithmCounts convolutionAlgorithms() const;

    Tensor empty(const Shape& shape, DType dtype) override;
    Tensor emptyHost(const Shape& shape, DType dtype, bool pinned) override;
    bool supportsPinnedMemory() const override { return false; }
    void copy(const Tensor& src, Tensor& dst) override;
    void fill(Tensor& t, float value) override;
    void synchronize() override {}
    std::unique_ptr<StreamEvent> recordEvent() override;
    MemoryStats memoryStats() const override;
    void resetPeakMemory() override;
    void releaseCachedMemory() override;

    void linearForward(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) override;
    void linearBackward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx, Tensor& dw,
                        Tensor* db) override;
    void convForward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor* b,
                     Tensor& y) override;
    void convBackward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor& dy,
                      Tensor* dx, Tensor& dw, Tensor* db) override;
    void poolForward(const PoolDesc& d, const Tensor& x, Tensor& y, Tensor& indices) override;
    void poolBackward(const PoolDesc& d, const Tensor& x, const Tensor& dy, const Tensor& indices,
                      Tensor& dx) override;
    void batchNormForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                               Tensor& runningMean, Tensor& runningVar, float momentum, float eps,
                               Tensor& y, Tensor& saveMean, Tensor& saveInvStd) override;
    void batchNormForwardInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                   const Tensor& runningMean, const Tensor& runningVar, float eps,
                                   Tensor& y) override;
    void batchNormReluForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                   Tensor& runningMean, Tensor& runningVar, float momentum,
                                   float eps, Tensor& y, Tensor& saveMean,
                                   Tensor& saveInvStd) override;
    void batchNormReluForwardInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                       const Tensor& runningMean, const Tensor& runningVar,
                                       float eps, Tensor& y) override;
    void batchNormReluBackward(const Tensor& x, const Tensor& y, Tensor& dy, const Tensor& gamma,
                               const Tensor& saveMean, const Tensor& saveInvStd, float eps,
                               Tensor& dx, Tensor& dgamma, Tensor& dbeta) override;
    void batchNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                           const Tensor& saveMean, const Tensor& saveInvStd, float eps, Tensor& dx,
                           Tensor& dgamma, Tensor& dbeta) override;
    void activationForward(Activation a, float alpha, const Tensor& x, Tensor& y) override;
    void activationBackward(Activation a, float alpha, const Tensor& x, const Tensor& dy,
                            Tensor& dx) override;
    void dropoutForward(const Tensor& x, float p, uint64_t seed, Tensor& y, Tensor& mask) override;
    void dropoutBackward(const Tensor& dy, const Tensor& mask, float p, Tensor& dx) override;
    void add(const Tensor& a, const Tensor& b, Tensor& y) override;
    void addRelu(const Tensor& a, const Tensor& b, Tensor& y) override;
    void cast(const Tensor& src, Tensor& dst) override;
    void shortcutPadForward(const Tensor& x, int64_t stride, int64_t padC, Tensor& y) override;
    void shortcutPadBackward(const Tensor& dy, int64_t stride, int64_t padC, Tensor& dx) override;
    void joinChannels(const std::vector<const Tensor*>& parts, Tensor& whole) override;
    void splitChannels(const Tensor& whole, const std::vector<Tensor*>& parts,
                       const std::vector<int64_t>& channels) override;
    void upsampleNearestForward(const Tensor& x, int64_t scale, Tensor& y) override;
    void upsampleNearestBackward(const Tensor& dy, int64_t scale, Tensor& dx) override;
    void resizeBilinearForward(const Tensor& x, Tensor& y) override;
    void resizeBilinearBackward(const Tensor& dy, Tensor& dx) override;
    void embeddingForward(const Tensor& ids, const Tensor& table, Tensor& y) override;
    void embeddingBackward(const Tensor& ids, const Tensor& dy, Tensor& dtable) override;
    void positionEmbeddingForward(const Tensor& x, const Tensor& table, Tensor& y) override;
    void positionEmbeddingBackward(const Tensor& dy, Tensor& dtable) override;
    void layerNormForward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                          Tensor& y, Tensor& saveMean, Tensor& saveVar) override;
    void layerNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                           const Tensor& saveMean, const Tensor& saveVar, float eps, Tensor& dx,
                           Tensor& dgamma, Tensor& dbeta) override;
    void attentionForward(const AttentionDesc& d, const Tensor& qkv, Tensor& y,
                          Tensor& probs) override;
    void attentionBackward(const AttentionDesc& d, const Tensor& qkv, const Tensor& probs,
                           const Tensor& dy, Tensor& dqkv) override;
    void softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float smoothing,
                             Tensor& lossSum, Tensor* dlogits, const Tensor* gradScale,
                             float divisor) override;
    void pixelCrossEntropy(const Tensor& logits, const Tensor& labels, int32_t ignoreIndex,
                           int64_t counted, Tensor& lossSum, Tensor* dlogits,
                           const Tensor* gradScale, float divisor) override;
    void checkFinite(const std::vector<Tensor*>& tensors, Tensor& foundInf) override;
    void updateLossScale(Tensor& state, const Tensor& foundInf, float growth, float backoff,
                         int growthInterval) override;
    void clipGradNorm(const std::vector<Tensor*>& grads, float maxNorm, const Tensor* scaleState,
                      Tensor& stats) override;
    void sgdStep(Tensor& param, const Tensor& grad, Tensor* momentumBuf, const SgdParams& p,
                 const Tensor* scaleState, const Tensor* foundInf) override;
    void adamwStep(Tensor& param, const Tensor& grad, Tensor& expAvg, Tensor& expAvgSq,
                   const AdamWParams& p, const Tensor* scaleState, const Tensor* foundInf,
                   const Tensor* skippedSteps) override;

private:
    // Whether oneDNN computes convolutions and matmuls in `t` on this CPU (f32 always; bf16
    // where the ISA has bf16 arithmetic). Otherwise low-precision activations are widened.
    bool computesNatively(DType t) const {
        return t == DType::F32 || (t == DType::BF16 && m_bf16Native);
    }
    // Operands in scratch. Mixed precision: f16/bf16 activations are widened into f32 scratch
    // around the f32 kernels. Layouts: activations may be channel-blocked (cpulayout.h); ops
    // that index by (n, c, h, w) read them through asF32 or asPlain, which reorder to plain.
    // `slot` picks one of a few reusable scratch buffers.
    Tensor asF32(const Tensor& t, int slot);   // f32, plain
    Tensor widened(const Tensor& t, int slot); // f32, in t's layout (for elementwise ops)
    Tensor asPlain(const Tensor& t, int slot); // t's dtype, plain
    // Where an op writes dst's values in f32: dst itself or scratch, marked plain; an op that
    // writes another layout marks it afterwards. storeF32 narrows into dst, with the layout.
    Tensor f32Target(const Tensor& dst, int slot);
    void storeF32(const Tensor& f32, Tensor& dst);
    Tensor scratch(const Shape& shape, int slot);
    // Value conversion element by element, blind to layout.
    void convertElements(const Tensor& src, Tensor& dst);
    // src's values into dst, plain, converting the type if they differ.
    void toPlain(const Tensor& src, Tensor& dst);
    // Batch norm over a channel-blocked x (cpubatchnormblocked.h), y staying blocked; false,
    // doing nothing, when x is plain.
    bool blockedBatchNormTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                               Tensor& runningMean, Tensor& runningVar, float momentum, float eps,
                               Tensor& y, Tensor& saveMean, Tensor& saveInvStd, bool relu);
    // With reluOutput, dy is masked where it is zero (the fused ReLU's backward).
    bool blockedBatchNormBackward(const Tensor& x, const Tensor* reluOutput, const Tensor& dy,
                                  const Tensor& gamma, const Tensor& saveMean,
                                  const Tensor& saveInvStd, Tensor& dx, Tensor& dgamma,
                                  Tensor& dbeta);
    bool blockedBatchNormInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                   const Tensor& runningMean, const Tensor& runningVar, float eps,
                                   Tensor& y, bool relu);
    // Whether an output written to `t` may stay channel-blocked.
    static bool mayBlock(const Tensor& t);
    // For plane-walking ops that compute (resizing, upsampling's summed gradient): calls
    // run(element, src, dst) with element float or uint16_t (bf16), f32 and bf16 in place, dst
    // given src's layout (or the convolutions' for a plain src) where it may hold it; f16
    // through f32 scratch, narrowed into dst afterwards.
    template <typename Run> void computeOnPlanes(const Tensor& src, Tensor& dst, Run run) {
        if (src.dtype() == DType::F32 || src.dtype() == DType::BF16) {
            setLayout(dst, planeOutputLayout(layoutOf(src) ? layoutOf(src) : m_convBlock, dst,
                                             mayBlock(dst)));
            if (src.dtype() == DType::BF16)
                run(uint16_t{}, src, dst);
            else
                run(float{}, src, dst);
            return;
        }
        const Tensor srcF32 = asF32(src, 0);
        Tensor dstF32 = f32Target(dst, 1);
        run(float{}, srcF32, dstF32);
        storeF32(dstF32, dst);
    }
    // Remembers the layout the convolutions write (m_convBlock), for plane-walking ops to
    // give a plain input's output the layout the next convolution reads.
    void noteConvBlock(const Tensor& convOutput) {
        m_convLayoutsSeen |= 1u << layoutBit(layoutOf(convOutput));
        if (layoutOf(convOutput) != 0)
            m_convBlock = layoutOf(convOutput);
    }
    static int layoutBit(int layout) { return layout == 16 ? 3 : layout == 8 ? 2 : layout; }
    // The weights a matmul computing in `act` reads: w itself for f32, else a copy in scratch.
    Tensor computeWeights(const Tensor& w, DType act);

    int m_threads;
    bool m_bf16Native;
    ReorderCounts m_reorders;
    int m_convBlock = 0;
    unsigned m_convLayoutsSeen = 0; // bit layoutBit(layout) per layout noted since the reset
    std::unique_ptr<CpuLayoutConverter> m_layouts;
    std::unique_ptr<CpuConvCache> m_conv;
    std::unique_ptr<CpuMatmulCache> m_matmul;
    std::unique_ptr<CpuLayerNormCache> m_layerNorm;
    std::vector<Tensor> m_scratch;
    std::shared_ptr<std::atomic<int64_t>> m_inUse;
    std::shared_ptr<std::atomic<int64_t>> m_peak;
};

} // namespace tb
