// The op set every layer is written against. One implementation per device kind: the CPU
// backend (always built) and the CUDA plugin (loaded with dlopen). Layers never branch on device.
//
// Conventions for every op:
// - Activations and their gradients are NCHW (or N x features) in the graph's activation dtype
//   (f32, or f16/bf16 under mixed precision); parameters, their gradients, optimizer state,
//   batch-norm statistics and the loss are f32. Compute is f32 (or Tensor Cores accumulating
//   in f32).
// - Ops are issued in order on the backend's compute stream; on the CPU they finish on return.
// - Parameter-gradient outputs (dw, db, dgamma, dbeta) ACCUMULATE: the caller zeroes them once
//   per optimizer step, which is what makes gradient accumulation free. Every other output is
//   overwritten.
// - Errors come back as exceptions: tb::Error for misuse, tb::OutOfMemoryError from allocation.
#pragma once

#include "backend/opdesc.h"
#include "core/floatenv.h"
#include "core/roofline.h"
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb {

// A point on the compute stream. elapsedMs() is only valid once both events completed, so
// callers read the previous step's events; on the CPU events complete when recorded.
class StreamEvent {
public:
    virtual ~StreamEvent() = default;
    virtual bool completed() = 0;
    virtual void wait() = 0;
    // Milliseconds from `earlier` to this event.
    virtual float elapsedMs(const StreamEvent& earlier) = 0;
};

struct MemoryStats {
    uint64_t inUse = 0;     // bytes handed out to live tensors
    uint64_t reserved = 0;  // bytes held by the caching allocator, in use or cached
    uint64_t peakInUse = 0; // high-water mark of inUse since the last resetPeak()
    uint64_t deviceFree = 0;
    uint64_t deviceTotal = 0;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual Device device() const = 0;
    // One line for logs: "cpu: oneDNN 2.6.3, OpenBLAS 0.3.21, 2 threads".
    virtual std::string description() const = 0;

    // ---- memory and streams ----
    // Uninitialised device memory. Throws OutOfMemoryError when the device is full.
    virtual Tensor empty(const Shape& shape, DType dtype) = 0;
    // Host memory for staging batches; page-locked when pinned and the backend supports it.
    // The one call that must be thread-safe: DataLoader workers make it while the training
    // thread issues other calls on the same backend (BatchPool's lock orders workers only).
    virtual Tensor emptyHost(const Shape& shape, DType dtype, bool pinned) = 0;
    virtual bool supportsPinnedMemory() const = 0;
    // Copies between any two tensors of equal dtype and element count, in stream order. A copy
    // from pinned host memory to the device is asynchronous (issued on the copy stream and
    // ordered before later compute); other copies to the host return when the data is there.
    // The shapes may differ (a reshape): dst then holds the values in plain row-major order.
    virtual void copy(const Tensor& src, Tensor& dst) = 0;
    // A host-to-device copy into a buffer that compute issued earlier may still be reading for
    // another batch. From pinned memory it waits only for `reusable` (an event recorded once
    // that compute was issued; null: for all compute issued so far, as copy() does), so it runs
    // while the batch before is computed; compute issued later waits for it. The source must
    // stay alive only until the call returns. Without streams (the CPU) it is copy().
    virtual void copyToDevice(const Tensor& src, Tensor& dst, StreamEvent* reusable) {
        (void)reusable;
        copy(src, dst);
    }
    virtual void fill(Tensor& t, float value) = 0;
    // Blocks until all issued work is done.
    virtual void synchronize() = 0;
    virtual std::unique_ptr<StreamEvent> recordEvent() = 0;
    virtual MemoryStats memoryStats() const = 0;
    virtual void resetPeakMemory() = 0;
    // Returns cached, unused device memory to the driver (after an out-of-memory error).
    virtual void releaseCachedMemory() = 0;
    // Only bit-reproducible algorithms from now on (cuDNN's deterministic ones, chosen
    // independently of free memory). The CPU backend always is, so there it changes nothing.
    virtual void setDeterministic(bool /*on*/) {}
    // Flush-to-zero and denormals-are-zero (core/floatenv.h) on the host threads this backend
    // computes on, from the calling thread: it alone here, every thread of the compute pool
    // on the CPU. GPU kernels keep IEEE denormals (built with -ftz=false), which cost a GPU
    // nothing, so the setting changes no GPU result.
    virtual void setFlushDenormals(bool on) { tb::setFlushDenormals(on); }
    // The device's roofs for a profile at `precision` ("32", "16-mixed", "bf16-mixed"): measured
    // or from the device's datasheet rates, cached; unknown (zeros) where the backend cannot say.
    // May take a second the first time: called outside the profiled steps.
    virtual Roofline roofline(const std::string& /*precision*/) { return {}; }
    // Named ranges around each profiled layer for external profilers (NVTX ranges, which Nsight
    // Systems shows, on the GPU); nothing elsewhere.
    virtual void pushRange(const std::string& /*name*/) {}
    virtual void popRange() {}
    // The layout activations are kept in where the backend has a choice (the CPU backend's
    // convolutions); others ignore it.
    virtual void setMemoryFormat(MemoryFormat /*format*/) {}
    // How the CPU backend's convolutions compute (opdesc.h); cuDNN chooses its own algorithms
    // (setDeterministic narrows them), so other backends ignore it.
    virtual void setConvAlgorithm(ConvAlgorithm /*algorithm*/) {}

    // ---- dense ----
    // y(n, out) = x(n, in) * w(out, in)^T + b(out)
    virtual void linearForward(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) = 0;
    // dx(n, in) = dy * w;  dw += dy^T * x;  db += sum over n of dy.  dx may be null.
    virtual void linearBackward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx,
                                Tensor& dw, Tensor* db) = 0;

    // ---- convolution ----
    // y(n, k, oh, ow) = conv(x(n, c, h, w), w(k, c, r, s)) + b(k)
    virtual void convForward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor* b,
                             Tensor& y) = 0;
    // dx (may be null) = backward-data; dw += backward-filter; db += sum of dy over n, oh, ow.
    virtual void convBackward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor& dy,
                              Tensor* dx, Tensor& dw, Tensor* db) = 0;

    // ---- pooling ----
    // indices: i32 tensor the size of y, the argmax for max pooling (unused for average).
    virtual void poolForward(const PoolDesc& d, const Tensor& x, Tensor& y, Tensor& indices) = 0;
    // x is the forward input: dx is stored as x is, so the gradient meets the layer before the
    // pooling (a ReLU, a batch norm) in that layer's own layout.
    virtual void poolBackward(const PoolDesc& d, const Tensor& x, const Tensor& dy,
                              const Tensor& indices, Tensor& dx) = 0;

    // ---- batch norm (per channel of NCHW; gamma, beta, statistics f32 of size c) ----
    // Uses batch statistics, updates the running ones with PyTorch's momentum rule (unbiased
    // variance for the running estimate) and saves mean and 1/sqrt(var + eps) for backward.
    virtual void batchNormForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                       Tensor& runningMean, Tensor& runningVar, float momentum,
                                       float eps, Tensor& y, Tensor& saveMean,
                                       Tensor& saveInvStd) = 0;
    virtual void batchNormForwardInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                           const Tensor& runningMean, const Tensor& runningVar,
                                           float eps, Tensor& y) = 0;
    // The same followed by ReLU on y, for a graph whose batch norm only feeds a ReLU (the ReLU
    // then runs in place, PyTorch's inplace=True, and its backward reads the mask from y). The
    // defaults run the two ops; a backend overrides them to do both in one pass over y.
    virtual void batchNormReluForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                           Tensor& runningMean, Tensor& runningVar, float momentum,
                                           float eps, Tensor& y, Tensor& saveMean,
                                           Tensor& saveInvStd) {
        batchNormForwardTrain(x, gamma, beta, runningMean, runningVar, momentum, eps, y, saveMean,
                              saveInvStd);
        activationForward(Activation::ReLU, 0.0f, y, y);
    }
    virtual void batchNormReluForwardInference(const Tensor& x, const Tensor& gamma,
                                               const Tensor& beta, const Tensor& runningMean,
                                               const Tensor& runningVar, float eps, Tensor& y) {
        batchNormForwardInference(x, gamma, beta, runningMean, runningVar, eps, y);
        activationForward(Activation::ReLU, 0.0f, y, y);
    }
    // eps is the forward's: the saved 1/std already holds it, but cuDNN wants the same value.
    virtual void batchNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                   const Tensor& saveMean, const Tensor& saveInvStd, float eps,
                                   Tensor& dx, Tensor& dgamma, Tensor& dbeta) = 0;
    // Backward of the fused forward: batch norm's backward of dy masked where y (the fused
    // output) is zero. dy is the ReLU's gradient buffer, which nothing reads afterwards, so it
    // may be overwritten: the default masks it in place, then runs batchNormBackward; a backend
    // overrides it to mask on the fly.
    virtual void batchNormReluBackward(const Tensor& x, const Tensor& y, Tensor& dy,
                                       const Tensor& gamma, const Tensor& saveMean,
                                       const Tensor& saveInvStd, float eps, Tensor& dx,
                                       Tensor& dgamma, Tensor& dbeta) {
        activationBackward(Activation::ReLU, 0.0f, y, dy, dy);
        batchNormBackward(x, dy, gamma, saveMean, saveInvStd, eps, dx, dgamma, dbeta);
    }

    // ---- elementwise ----
    // alpha is LeakyReLU's negative slope; x is the activation's input.
    virtual void activationForward(Activation a, float alpha, const Tensor& x, Tensor& y) = 0;
    virtual void activationBackward(Activation a, float alpha, const Tensor& x, const Tensor& dy,
                                    Tensor& dx) = 0;
    // Inverted dropout: y = x * keep / (1 - p), keep drawn from (seed, element index) with the
    // shared counter-based generator, so CPU and GPU drop the same elements. mask: u8, size of x.
    virtual void dropoutForward(const Tensor& x, float p, uint64_t seed, Tensor& y,
                                Tensor& mask) = 0;
    virtual void dropoutBackward(const Tensor& dy, const Tensor& mask, float p, Tensor& dx) = 0;
    // y = a + b (same shapes; y may alias a).
    virtual void add(const Tensor& a, const Tensor& b, Tensor& y) = 0;
    // y = max(a + b, 0): a residual add that only feeds a ReLU (as batchNormReluForwardTrain).
    virtual void addRelu(const Tensor& a, const Tensor& b, Tensor& y) {
        add(a, b, y);
        activationForward(Activation::ReLU, 0.0f, y, y);
    }
    // Converts between floating dtypes (f32 <-> f16/bf16), rounding to nearest even.
    virtual void cast(const Tensor& src, Tensor& dst) = 0;
    // ResNet option-A shortcut: y(n, c + 2*padC, h/stride, w/stride) takes x[:, :, ::stride,
    // ::stride] with padC zero channels before and after. backward gathers the gradient back.
    virtual void shortcutPadForward(const Tensor& x, int64_t stride, int64_t padC, Tensor& y) = 0;
    virtual void shortcutPadBackward(const Tensor& dy, int64_t stride, int64_t padC,
                                     Tensor& dx) = 0;
    // A detector's neck (YOLOv8's Concat, C2f's chunk, Upsample). joinChannels: whole(n, c0 +
    // c1 + ..., h, w) holds the parts' channels one after another. splitChannels, its inverse:
    // part k gets its channels[k] channels of whole (a null part is skipped, its channels
    // still counted).
    virtual void joinChannels(const std::vector<const Tensor*>& parts, Tensor& whole) = 0;
    virtual void splitChannels(const Tensor& whole, const std::vector<Tensor*>& parts,
                               const std::vector<int64_t>& channels) = 0;
    // Nearest-neighbour upsampling by a whole factor: y(n, c, i, j) = x(n, c, i / s, j / s);
    // backward sums dy over the s x s values each input gave.
    virtual void upsampleNearestForward(const Tensor& x, int64_t scale, Tensor& y) = 0;
    virtual void upsampleNearestBackward(const Tensor& dy, int64_t scale, Tensor& dx) = 0;
    // Bilinear resizing of x(n, c, h, w) to y(n, c, oh, ow), any sizes, as PyTorch's
    // F.interpolate(mode="bilinear", align_corners=False) (kernels/resize_math.h); backward
    // overwrites dx with each input pixel's share of dy, added in a fixed order.
    virtual void resizeBilinearForward(const Tensor& x, Tensor& y) = 0;
    virtual void resizeBilinearBackward(const Tensor& dy, Tensor& dx) = 0;

    // ---- transformers ----
    // Token embedding: y(m, d) = table(ids[i], :) for the m ids. ids is f32 holding whole numbers
    // (the data batch, never cast, so ids stay exact); an id outside [0, V) gives a zero row.
    virtual void embeddingForward(const Tensor& ids, const Tensor& table, Tensor& y) = 0;
    // dtable(V, d) += the rows of dy(m, d) at their ids: a scatter-add, each row summed in
    // position order on every backend, so the result is deterministic.
    virtual void embeddingBackward(const Tensor& ids, const Tensor& dy, Tensor& dtable) = 0;
    // Learned positions: y(n, t, d) = x(n, t, d) + table(t, d) (table has at least t rows).
    virtual void positionEmbeddingForward(const Tensor& x, const Tensor& table, Tensor& y) = 0;
    // dtable(t, d) += the sum over n of dy(n, t, d). (dx is dy.)
    virtual void positionEmbeddingBackward(const Tensor& dy, Tensor& dtable) = 0;
    // Layer norm over the last dimension of x(m, d): y = (x - mean) / sqrt(var + eps) * gamma +
    // beta (biased variance, as PyTorch), saving the mean and variance (f32 (m)) for backward.
    virtual void layerNormForward(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                  float eps, Tensor& y, Tensor& saveMean, Tensor& saveVar) = 0;
    // dx overwritten; dgamma += sum over m of dy * xhat; dbeta += sum over m of dy. eps is the
    // forward's.
    virtual void layerNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                   const Tensor& saveMean, const Tensor& saveVar, float eps,
                                   Tensor& dx, Tensor& dgamma, Tensor& dbeta) = 0;
    // Causal scaled-dot-product attention (opdesc.h's AttentionDesc): y(n, t, heads * headDim)
    // with the heads side by side, and probs (AttentionDesc::probsCount() f32) keeping the
    // softmax for backward. The plain path: two matmuls around a masked softmax. A backend with
    // a fused kernel (cuDNN's flash attention) overrides these two ops, nothing else changes.
    virtual void attentionForward(const AttentionDesc& d, const Tensor& qkv, Tensor& y,
                                  Tensor& probs) = 0;
    // dqkv(n, t, 3 * width) overwritten from dy(n, t, width), the forward's qkv and probs.
    virtual void attentionBackward(const AttentionDesc& d, const Tensor& qkv, const Tensor& probs,
                                   const Tensor& dy, Tensor& dqkv) = 0;

    // ---- loss ----
    // Fused softmax + cross-entropy over logits(n, classes) with labels(n) i32 and optional
    // label smoothing. Adds the mean loss to lossSum[0] and the count of correct argmax
    // predictions to lossSum[1] (f32 device scalars, so no host sync). When dlogits is not null
    // it receives gradScale[0] * (softmax - target) / (n * divisor); gradScale is a f32 device
    // scalar (the loss scale) or null for 1.
    virtual void softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float smoothing,
                                     Tensor& lossSum, Tensor* dlogits, const Tensor* gradScale,
                                     float divisor) = 0;
    // The same for every pixel of a segmentation, as torch.nn.CrossEntropyLoss(ignore_index):
    // logits(n, classes, h, w), labels(n, h, w) i32, where ignoreIndex marks a pixel that adds
    // nothing (VOC's object borders) and gets a zero gradient. `counted` is the number of
    // pixels not ignored (the caller has it from the batch it built, so no sync): lossSum[0] +=
    // their summed loss / counted, lossSum[1] += how many of them are right; dlogits =
    // gradScale[0] * (softmax - one-hot) / (counted * divisor). With counted 0 both add 0.
    virtual void pixelCrossEntropy(const Tensor& logits, const Tensor& labels, int32_t ignoreIndex,
                                   int64_t counted, Tensor& lossSum, Tensor* dlogits,
                                   const Tensor* gradScale, float divisor) = 0;

    // ---- mixed precision and optimizers ----
    // Sets foundInf[0] to 1 if any element of any tensor is inf or NaN (leaves it alone
    // otherwise).
    virtual void checkFinite(const std::vector<Tensor*>& tensors, Tensor& foundInf) = 0;
    // GradScaler update on the device: state = [scale, growth_tracker]. If foundInf[0]: scale *=
    // backoff, tracker = 0; else tracker += 1 and at growthInterval scale *= growth, tracker = 0.
    virtual void updateLossScale(Tensor& state, const Tensor& foundInf, float growth, float backoff,
                                 int growthInterval) = 0;
    // Gradient clipping by the global norm (PyTorch's clip_grad_norm_, Lightning's
    // gradient_clip_val): the L2 norm of every tensor of `grads` together, of the gradients
    // divided by scaleState[0] when given (a GradScaler's scaled gradients: the norm of the
    // unscaled ones), and when it exceeds maxNorm every gradient multiplied by
    // maxNorm / (norm + 1e-6). A norm that is not finite changes nothing (the GradScaler skips
    // that step). stats (f32 [2] on the device): stats[0] = max(stats[0], norm), stats[1] += 1
    // when it clipped. No host sync.
    virtual void clipGradNorm(const std::vector<Tensor*>& grads, float maxNorm,
                              const Tensor* scaleState, Tensor& stats) = 0;
    // Fused updates. The gradient is multiplied by 1/scaleState[0] when scaleState is given, and
    // the update is skipped entirely when foundInf is given and foundInf[0] != 0.
    // momentumBuf starts at zero, so the first step stores the gradient as PyTorch does.
    // AdamW's bias correction counts t = p.step - skippedSteps[0] when skippedSteps (an f32
    // scalar: earlier steps the GradScaler skipped) is given: PyTorch's GradScaler never calls
    // optimizer.step() for a skipped step, so its step count does not advance.
    virtual void sgdStep(Tensor& param, const Tensor& grad, Tensor* momentumBuf, const SgdParams& p,
                         const Tensor* scaleState, const Tensor* foundInf) = 0;
    virtual void adamwStep(Tensor& param, const Tensor& grad, Tensor& expAvg, Tensor& expAvgSq,
                           const AdamWParams& p, const Tensor* scaleState, const Tensor* foundInf,
                           const Tensor* skippedSteps) = 0;
};

// Creates the CPU backend with a compute pool of `threads` threads shared by oneDNN, OpenBLAS
// and our own loops (0 means one per core).
std::unique_ptr<Backend> createCpuBackend(int threads);

} // namespace tb
