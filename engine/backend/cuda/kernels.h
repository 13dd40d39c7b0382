// Host-side launchers of the plugin's own kernels (elementwise, pooling, loss, optimizers). All
// run on `stream`; pointers are device pointers; shapes are in the comments as (N,C,H,W).
#pragma once

#include "backend/opdesc.h"
#include "core/dtype.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tb::cuda {

// ---- elementwise.cu ----
// data(n) = value, converted to dtype (any dtype).
void launchFill(void* data, DType dtype, int64_t n, float value, cudaStream_t stream);
// dst(n) = src(n) between floating dtypes, rounding to nearest even.
void launchCast(const void* src, DType srcType, void* dst, DType dstType, int64_t n,
                cudaStream_t stream);
// y(n) = f(x(n)); dx(n) = f'(x) * dy. Floating dtype shared by all tensors.
void launchActivationForward(Activation a, float alpha, const void* x, void* y, DType dtype,
                             int64_t n, cudaStream_t stream);
void launchActivationBackward(Activation a, float alpha, const void* x, const void* dy, void* dx,
                              DType dtype, int64_t n, cudaStream_t stream);
// y(n) = x * keep / (1 - p) with keep from math::dropoutKeep(seed, i, p); mask(n) u8.
void launchDropoutForward(const void* x, void* y, uint8_t* mask, DType dtype, int64_t n, float p,
                          uint64_t seed, cudaStream_t stream);
void launchDropoutBackward(const void* dy, const uint8_t* mask, void* dx, DType dtype, int64_t n,
                           float p, cudaStream_t stream);
// y(n) = a(n) + b(n); y may alias a.
void launchAdd(const void* a, const void* b, void* y, DType dtype, int64_t n, cudaStream_t stream);
// Geometry of the ResNet option-A shortcut: x(n, c, h, w) -> y(n, c + 2 padC, ho, wo).
struct ShortcutGeometry {
    int64_t n, c, h, w, ho, wo, stride, padC;
};
// y = x[:, :, ::stride, ::stride] with padC zero channels before and after.
void launchShortcutPadForward(const void* x, void* y, DType dtype, const ShortcutGeometry& g,
                              cudaStream_t stream);
// dx(n, c, h, w) = dy's middle channels scattered back at ::stride, zero elsewhere.
void launchShortcutPadBackward(const void* dy, void* dx, DType dtype, const ShortcutGeometry& g,
                               cudaStream_t stream);
// Channels [srcFirst, srcFirst + c) of src(n, srcChannels, hw) to channels [dstFirst, dstFirst +
// c) of dst(n, dstChannels, hw): one part of a join or split along channels. Any dtype.
void launchChannelCopy(const void* src, int64_t srcChannels, int64_t srcFirst, void* dst,
                       int64_t dstChannels, int64_t dstFirst, int64_t n, int64_t c, int64_t hw,
                       DType dtype, cudaStream_t stream);
// Nearest upsampling by `scale`: y(n, c, h s, w s) = x(n, c, h, w) repeated; backward dx(n, c,
// h, w) = the sum of dy over each s x s block (one thread per dx value: deterministic).
void launchUpsampleNearestForward(const void* x, void* y, DType dtype, int64_t nc, int64_t h,
                                  int64_t w, int64_t scale, cudaStream_t stream);
void launchUpsampleNearestBackward(const void* dy, void* dx, DType dtype, int64_t nc, int64_t h,
                                   int64_t w, int64_t scale, cudaStream_t stream);
// Bilinear resizing of nc (h, w) planes to (oh, ow), align_corners=False; backward overwrites
// dx(nc, h, w), a thread per input pixel gathering from the outputs that read it.
void launchResizeBilinearForward(const void* x, void* y, DType dtype, int64_t nc, int64_t h,
                                 int64_t w, int64_t oh, int64_t ow, cudaStream_t stream);
void launchResizeBilinearBackward(const void* dy, void* dx, DType dtype, int64_t nc, int64_t h,
                                  int64_t w, int64_t oh, int64_t ow, cudaStream_t stream);
// y(n, c, hw) += b(c) (b f32).
void launchAddBias(void* y, const float* b, DType dtype, int64_t n, int64_t c, int64_t hw,
                   cudaStream_t stream);
// db(c) += sum over n and hw of dy(n, c, hw) (db f32; deterministic, one block per channel).
void launchBiasGrad(const void* dy, float* db, DType dtype, int64_t n, int64_t c, int64_t hw,
                    cudaStream_t stream);
// dst(n) += src(n) with dst f32 and src any floating dtype.
void launchAccumulate(const void* src, DType srcType, float* dst, int64_t n, cudaStream_t stream);
// flag[0] = 1 if any of data(n) is inf or NaN; left alone otherwise.
void launchCheckFinite(const void* data, DType dtype, int64_t n, float* flag, cudaStream_t stream);
// Gradient clipping by global norm: *sum (double) += the squares of g(n), each block's partial
// into partials (kMaxSumSquaresBlocks doubles) and those added in block order, so that the sum
// has the same bits every run; then, one thread, the factor (math::clipFactor) from *sum, which
// is zeroed, into *factor; then g(n) *= *factor.
inline constexpr unsigned kMaxSumSquaresBlocks = 1024;
void launchSumSquares(const float* g, int64_t n, double* partials, double* sum,
                      cudaStream_t stream);
void launchClipFactor(double* sum, const float* scaleState, float maxNorm, float* stats,
                      float* factor, cudaStream_t stream);
void launchScaleBy(float* g, int64_t n, const float* factor, cudaStream_t stream);
// GradScaler rule on state = [scale, growth_tracker] (one thread).
void launchUpdateLossScale(float* state, const float* foundInf, float growth, float backoff,
                           int growthInterval, cudaStream_t stream);

// ---- pooling.cu ----
// y(n, c, oh, ow), indices(n, c, oh, ow) i32 = argmax as h * W + w inside the input plane.
void launchPoolForward(const PoolDesc& d, const void* x, void* y, int32_t* indices, DType dtype,
                       cudaStream_t stream);
// dx(n, c, h, w) overwritten; gathers (no atomics, deterministic).
void launchPoolBackward(const PoolDesc& d, const void* dy, const int32_t* indices, void* dx,
                        DType dtype, cudaStream_t stream);

// ---- loss.cu ----
// logits(n, classes), labels(n) i32; lossSum[0] += mean loss, lossSum[1] += #correct; dlogits
// (n, classes) = gradScale[0] * (softmax - target) / (n * divisor) when not null. rowScratch
// holds 2 * n floats (each row's loss and hit, added in a fixed order).
void launchSoftmaxCrossEntropy(const void* logits, DType logitsType, const int32_t* labels,
                               int64_t n, int64_t classes, float smoothing, float* lossSum,
                               void* dlogits, DType dlogitsType, const float* gradScale,
                               float divisor, float* rowScratch, cudaStream_t stream);
// Per pixel: logits(n, classes, hw), labels(n, hw); a label equal to ignoreIndex adds nothing
// (zero gradient), another outside [0, classes) poisons the loss with NaN. lossSum[0] += summed
// loss / counted, lossSum[1] += hits; dlogits = gradScale[0] * (softmax - one-hot) / (counted *
// divisor). pixelScratch holds 2 * n * hw floats.
void launchPixelCrossEntropy(const void* logits, DType logitsType, const int32_t* labels, int64_t n,
                             int64_t classes, int64_t hw, int32_t ignoreIndex, int64_t counted,
                             float* lossSum, void* dlogits, DType dlogitsType,
                             const float* gradScale, float divisor, float* pixelScratch,
                             cudaStream_t stream);

// ---- optimizer.cu ----
// param(n), grad(n), buffers(n) f32. scaleState[0] (or null) unscales the gradient; the step is
// skipped when foundInf is not null and foundInf[0] != 0.
void launchSgdStep(float* param, const float* grad, float* momentumBuf, int64_t n,
                   const SgdParams& p, const float* scaleState, const float* foundInf,
                   cudaStream_t stream);
void launchAdamwStep(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n,
                     const AdamWParams& p, const float* scaleState, const float* foundInf,
                     const float* skipped, cudaStream_t stream);

// ---- batchnorm.cu (own kernels: bf16, where cuDNN's legacy batch norm has no support, and
// eps below cuDNN's minimum). x(n, c, hw); gamma, beta, statistics f32 of size c. ----
struct BnGeometry {
    int64_t n, c, hw;
};
// How many blocks share one channel's reduction (enough blocks for the SMs, >= 1).
int64_t bnSplits(const BnGeometry& g, int smCount);
// Floats of scratch the training forward and the backward need.
inline int64_t bnScratchFloats(const BnGeometry& g, int64_t splits) {
    return g.c * splits * 3 + g.c * 2;
}
// Batch statistics (Welford per thread, Chan merges in a fixed order: deterministic), running
// statistics with momentum and the unbiased variance, then y = (x - mean) * invStd * gamma + beta.
void launchBatchNormForwardTrain(const void* x, void* y, DType dtype, const BnGeometry& g,
                                 const float* gamma, const float* beta, float* runningMean,
                                 float* runningVar, float momentum, float eps, float* saveMean,
                                 float* saveInvStd, float* scratch, int64_t splits,
                                 cudaStream_t stream);
void launchBatchNormForwardInference(const void* x, void* y, DType dtype, const BnGeometry& g,
                                     const float* gamma, const float* beta,
                                     const float* runningMean, const float* runningVar, float eps,
                                     cudaStream_t stream);
// dx overwritten; dgamma += sum dy * xhat; dbeta += sum dy.
void launchBatchNormBackward(const void* x, const void* dy, void* dx, DType dtype,
                             const BnGeometry& g, const float* gamma, const float* saveMean,
                             const float* saveInvStd, float* dgamma, float* dbeta, float* scratch,
                             int64_t splits, cudaStream_t stream);

// ---- embedding.cu: the token table. ----
// y(m, d) = table(ids[i], :) (ids f32 holding whole numbers; an id outside [0, rows) gives 0).
void launchEmbeddingForward(const float* ids, int64_t m, const float* table, int64_t rows,
                            int64_t d, void* y, DType dtype, cudaStream_t stream);
// dtable(rows, d) += dy's rows at their ids, each row summed in position order (deterministic),
// through a sort of the positions by row in scratch (embeddingBackwardScratchBytes bytes).
std::size_t embeddingBackwardScratchBytes(int64_t m, int64_t rows);
void launchEmbeddingBackward(const float* ids, int64_t m, const void* dy, DType dtype,
                             float* dtable, int64_t rows, int64_t d, void* scratch,
                             std::size_t scratchBytes, cudaStream_t stream);

// ---- transformer.cu: position embeddings, layer norm and attention's own kernels. ----
// y(n, t, d) = x + table(t, d); dtable(t, d) += sum over n of dy(n, t, d).
void launchPositionEmbeddingForward(const void* x, const float* table, void* y, DType dtype,
                                    int64_t n, int64_t t, int64_t d, cudaStream_t stream);
void launchPositionEmbeddingBackward(const void* dy, DType dtype, float* dtable, int64_t n,
                                     int64_t t, int64_t d, cudaStream_t stream);
// Layer norm over rows of x(m, d), one warp a row; mean and (biased) variance saved (f32 (m)).
void launchLayerNormForward(const void* x, void* y, DType dtype, int64_t m, int64_t d,
                            const float* gamma, const float* beta, float eps, float* mean,
                            float* variance, cudaStream_t stream);
// dx overwritten (one warp a row); dgamma, dbeta accumulated in two stages: chunks of rows into
// partials (layerNormPartialFloats(m, d) floats), then the chunks added in order (deterministic).
// Chunks of at least 64 rows, at most 1024 chunks.
inline int64_t layerNormRowsPerChunk(int64_t m) {
    return std::max<int64_t>(64, (m + 1023) / 1024);
}
inline int64_t layerNormChunks(int64_t m) {
    return (m + layerNormRowsPerChunk(m) - 1) / layerNormRowsPerChunk(m);
}
inline int64_t layerNormPartialFloats(int64_t m, int64_t d) {
    return 2 * layerNormChunks(m) * d;
}
void launchLayerNormBackward(const void* x, const void* dy, void* dx, DType dtype, int64_t m,
                             int64_t d, const float* gamma, const float* mean,
                             const float* variance, float eps, float* dgamma, float* dbeta,
                             float* partials, cudaStream_t stream);
// Attention's layout changes: qkv(n, t, 3, heads, hd) <-> q, k, v each (n, heads, t, hd), and
// y(n, heads, t, hd) -> (n, t, heads, hd). All in one dtype.
void launchSplitHeads(const void* qkv, void* q, void* k, void* v, DType dtype,
                      const AttentionDesc& a, cudaStream_t stream);
void launchMergeHeads(const void* q, const void* k, const void* v, void* qkv, DType dtype,
                      const AttentionDesc& a, cudaStream_t stream);
void launchHeadsToRows(const void* yh, void* y, DType dtype, const AttentionDesc& a,
                       cudaStream_t stream);
void launchRowsToHeads(const void* y, void* yh, DType dtype, const AttentionDesc& a,
                       cudaStream_t stream);
// In place over scores(n * heads, t, t) f32 (already scaled): the causal softmax, zero above
// the diagonal. Then weights (dtype) = those probabilities with dropout applied (opdesc.h).
void launchCausalSoftmax(float* scores, const AttentionDesc& a, cudaStream_t stream);
void launchAttentionWeights(const float* probs, void* weights, DType dtype, const AttentionDesc& a,
                            cudaStream_t stream);
// From probs and dWeights (f32, both (n * heads, t, t)): ds (dtype) = scale * P * (dP - sum(P *
// dP)) with dP = dWeights through dropout's mask.
void launchCausalSoftmaxBackward(const float* probs, const float* dweights, void* ds, DType dtype,
                                 const AttentionDesc& a, float scale, cudaStream_t stream);

} // namespace tb::cuda
