// tb::Backend on one CUDA device: cuDNN for convolution and batch norm, cuBLAS for GEMM, own
// kernels for the rest. Streams, handles, allocator and algorithm cache are per instance, so a
// second GPU is a second instance.
#pragma once

#include "allocator.h"
#include "backend/backend.h"
#include "cudnnlegacy.h"
#include "streams.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tb::cuda {

struct ConvKey {
    ConvDesc desc;
    DType dtype;
    bool deterministic;
    bool operator==(const ConvKey&) const = default;
};

struct ConvKeyHash {
    std::size_t operator()(const ConvKey& k) const;
};

class CudaBackend : public Backend {
public:
    // Creates streams, handles and the allocator on device `index`; throws tb::Error on failure.
    explicit CudaBackend(int index);
    ~CudaBackend() override;
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    // cuDNN algorithms restricted to deterministic ones (plans are keyed by it, so re-chosen).
    void setDeterministic(bool on) override;

    Device device() const override { return Device::cuda(m_index); }
    int index() const { return m_index; }
    // Every op's stream, for the NCCL collectives to order themselves after.
    cudaStream_t computeStream() const { return m_streams->compute(); }
    std::string description() const override;

    Tensor empty(const Shape& shape, DType dtype) override;
    Tensor emptyHost(const Shape& shape, DType dtype, bool pinned) override;
    bool supportsPinnedMemory() const override { return true; }
    void copy(const Tensor& src, Tensor& dst) override;
    void copyToDevice(const Tensor& src, Tensor& dst, StreamEvent* reusable) override;
    void fill(Tensor& t, float value) override;
    void synchronize() override;
    std::unique_ptr<StreamEvent> recordEvent() override;
    MemoryStats memoryStats() const override;
    void resetPeakMemory() override;
    void releaseCachedMemory() override;
    // roofline.cpp: the datasheet compute roof and a measured copy bandwidth; NVTX ranges.
    Roofline roofline(const std::string& precision) override;
    void pushRange(const std::string& name) override;
    void popRange() override;

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
    void batchNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                           const Tensor& saveMean, const Tensor& saveInvStd, float eps, Tensor& dx,
                           Tensor& dgamma, Tensor& dbeta) override;
    void activationForward(Activation a, float alpha, const Tensor& x, Tensor& y) override;
    void activationBackward(Activation a, float alpha, const Tensor& x, const Tensor& dy,
                            Tensor& dx) override;
    void dropoutForward(const Tensor& x, float p, uint64_t seed, Tensor& y, Tensor& mask) override;
    void dropoutBackward(const Tensor& dy, const Tensor& mask, float p, Tensor& dx) override;
    void add(const Tensor& a, const Tensor& b, Tensor& y) override;
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
    cudaStream_t stream() const { return m_streams->compute(); }
    // Runs a library call; on an allocation failure inside cuDNN / cuBLAS / the runtime it
    // releases the cache and retries once, then throws OutOfMemoryError.
    void withOomRetry(const std::function<void()>& call);
    // The shared workspace, grown on demand (the old block returns to the cache in stream order).
    void* workspace(std::size_t bytes);
    // `w` in dtype: w itself when it already is, else a cast into a scratch tensor (mixed
    // precision keeps f32 master weights and feeds f16/bf16 copies to cuDNN/cuBLAS).
    Tensor weightsAs(const Tensor& w, DType dtype);
    legacy::ConvPlan& convPlan(const ConvDesc& d, DType dtype);
    // Runs one pass of a convolution down the plan's ranking (runRanked): `run` issues the pass
    // with an algorithm and a workspace of its size and returns cuDNN's refusal, if any.
    void runConvPass(
        legacy::ConvPlan& plan, legacy::ConvPass pass,
        const std::function<std::optional<std::string>(const RankedAlgo&, void* workspace)>& run);
    // Throws tb::Error naming `op` unless t lives on this device.
    void requireDevice(const Tensor& t, const char* op) const;
    // Keeps the source of the pinned copy just issued alive until the copy stream has read it.
    void holdUntilCopied(std::shared_ptr<Buffer> source);
    // Drops the sources of pinned copies the copy stream has finished reading.
    void retireCopies();

    int m_index;
    int m_smCount = 1;
    std::string m_name;
    std::string m_label;
    bool m_deterministic = false;
    std::shared_ptr<Streams> m_streams;
    std::shared_ptr<DeviceAllocator> m_allocator;
    std::shared_ptr<PinnedHostPool> m_pinned;
    cudnnHandle_t m_cudnn = nullptr;
    cublasHandle_t m_cublas = nullptr;
    Tensor m_workspace;
    Tensor m_cublasWorkspace;
    Tensor m_clipScratch; // clipGradNorm's sum of squares and factor, allocated at its first call
    std::unordered_map<ConvKey, legacy::ConvPlanPtr, ConvKeyHash> m_convPlans;
    // Pinned sources of host-to-device copies in flight, oldest first. The caller may drop its
    // tensor as soon as copy() returns, and a DataLoader batch buffer then goes straight back to
    // its BatchPool (never through PinnedHostPool's release event) for a worker to refill: the
    // buffer is kept here until the copy stream has read it.
    struct PendingCopy {
        cudaEvent_t done;
        std::shared_ptr<Buffer> source;
    };
    std::deque<PendingCopy> m_pendingCopies;
    std::vector<cudaEvent_t> m_spareEvents; // completed copy events, reused
};

} // namespace tb::cuda
