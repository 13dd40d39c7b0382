// CudaBackend's transformer ops. Attention is the plain path: the heads split into (n * heads)
// contiguous matrices, scores and the weighted sum as cuBLAS strided-batched GEMMs with f32
// accumulation around our causal softmax. cuDNN's fused (flash) attention would replace these
// two methods and nothing else.
#include "cudabackend.h"

#include "cudacheck.h"
#include "cudatypes.h"
#include "kernels.h"
#include "tensorchecks.h"

#include <algorithm>
#include <cmath>

namespace tb::cuda {

namespace {

// One operand of a batch of row-major matrices: data, dtype, row length, elements between
// consecutive matrices.
struct Batched {
    const void* data;
    DType dtype;
    int64_t ld, stride;
};

// Row-major C = alpha op(A) op(B) + 0 C for `count` matrices (C is M x N, the inner size K),
// handed to column-major cuBLAS as C^T = op(B)^T op(A)^T.
void batchedGemm(cublasHandle_t handle, bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                 float alpha, const Batched& a, const Batched& b, void* c, DType cType, int64_t ldc,
                 int64_t strideC, int64_t count) {
    const float beta = 0.0f;
    TB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N, transA ? CUBLAS_OP_T : CUBLAS_OP_N,
        static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha, b.data,
        cudaTypeOf(b.dtype), static_cast<int>(b.ld), b.stride, a.data, cudaTypeOf(a.dtype),
        static_cast<int>(a.ld), a.stride, &beta, c, cudaTypeOf(cType), static_cast<int>(ldc),
        strideC, static_cast<int>(count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void requireAttention(const AttentionDesc& d, const Tensor& qkv, const Tensor& y,
                      const Tensor& probs, const char* op) {
    if (qkv.numel() != d.n * d.t * 3 * d.width() || y.numel() != d.n * d.t * d.width() ||
        probs.numel() < d.probsCount() || probs.dtype() != DType::F32 || qkv.dtype() != y.dtype() ||
        d.t > INT32_MAX || d.headDim > INT32_MAX || d.n * d.heads > INT32_MAX)
        throw Error(std::string(op) + ": qkv " + qkv.shape().toString() + ", output " +
                    y.shape().toString() + " and probs " + probs.shape().toString() +
                    " do not fit " + std::to_string(d.heads) + " heads of " +
                    std::to_string(d.headDim) + " over " + std::to_string(d.t) + " positions");
}

} // namespace

void CudaBackend::embeddingForward(const Tensor& ids, const Tensor& table, Tensor& y) {
    requireDevice(ids, "embeddingForward");
    requireDevice(table, "embeddingForward");
    requireDevice(y, "embeddingForward");
    requireDType(ids, DType::F32, "embeddingForward", "ids");
    requireDType(table, DType::F32, "embeddingForward", "table");
    const int64_t m = ids.numel(), rows = table.dim(0), d = table.dim(1);
    if (y.numel() != m * d)
        throw Error("embeddingForward: output " + y.shape().toString() + " does not fit " +
                    std::to_string(m) + " ids of a table " + table.shape().toString());
    DeviceScope scope(m_index);
    launchEmbeddingForward(ids.data<float>(), m, table.data<float>(), rows, d, y.raw(), y.dtype(),
                           stream());
}

void CudaBackend::embeddingBackward(const Tensor& ids, const Tensor& dy, Tensor& dtable) {
    requireDevice(ids, "embeddingBackward");
    requireDevice(dy, "embeddingBackward");
    requireDevice(dtable, "embeddingBackward");
    requireDType(dtable, DType::F32, "embeddingBackward", "dtable");
    const int64_t m = ids.numel(), rows = dtable.dim(0), d = dtable.dim(1);
    if (dy.numel() != m * d)
        throw Error("embeddingBackward: gradient " + dy.shape().toString() + " does not fit " +
                    std::to_string(m) + " ids of a table " + dtable.shape().toString());
    DeviceScope scope(m_index);
    const std::size_t scratchBytes = embeddingBackwardScratchBytes(m, rows);
    Tensor scratch = empty({static_cast<int64_t>(scratchBytes / sizeof(float)) + 1}, DType::F32);
    launchEmbeddingBackward(ids.data<float>(), m, dy.raw(), dy.dtype(), dtable.data<float>(), rows,
                            d, scratch.raw(), scratchBytes, stream());
}

void CudaBackend::positionEmbeddingForward(const Tensor& x, const Tensor& table, Tensor& y) {
    requireDevice(x, "positionEmbeddingForward");
    requireDevice(table, "positionEmbeddingForward");
    requireDevice(y, "positionEmbeddingForward");
    requireSameSize(x, y, "positionEmbeddingForward");
    const int64_t t = x.dim(1), d = table.dim(1);
    if (x.shape().rank() != 3 || x.dim(2) != d || table.dim(0) < t)
        throw Error("positionEmbeddingForward: input " + x.shape().toString() +
                    " does not fit a table of " + table.shape().toString());
    DeviceScope scope(m_index);
    launchPositionEmbeddingForward(x.raw(), table.data<float>(), y.raw(), x.dtype(), x.dim(0), t, d,
                                   stream());
}

void CudaBackend::positionEmbeddingBackward(const Tensor& dy, Tensor& dtable) {
    requireDevice(dy, "positionEmbeddingBackward");
    requireDevice(dtable, "positionEmbeddingBackward");
    requireDType(dtable, DType::F32, "positionEmbeddingBackward", "dtable");
    DeviceScope scope(m_index);
    launchPositionEmbeddingBackward(dy.raw(), dy.dtype(), dtable.data<float>(), dy.dim(0),
                                    dy.dim(1), dy.dim(2), stream());
}

void CudaBackend::layerNormForward(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                   float eps, Tensor& y, Tensor& saveMean, Tensor& saveVar) {
    requireDevice(x, "layerNormForward");
    requireDevice(y, "layerNormForward");
    requireSameSize(x, y, "layerNormForward");
    const int64_t d = gamma.numel(), m = d > 0 ? x.numel() / d : 0;
    requireF32Vector(gamma, d, "layerNormForward", "gamma");
    requireF32Vector(beta, d, "layerNormForward", "beta");
    if (x.numel() != m * d || saveMean.numel() < m || saveVar.numel() < m)
        throw Error("layerNormForward: input " + x.shape().toString() + " does not fit " +
                    std::to_string(d) + " features");
    DeviceScope scope(m_index);
    launchLayerNormForward(x.raw(), y.raw(), x.dtype(), m, d, gamma.data<float>(),
                           beta.data<float>(), eps, saveMean.data<float>(), saveVar.data<float>(),
                           stream());
}

void CudaBackend::layerNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                    const Tensor& saveMean, const Tensor& saveVar, float eps,
                                    Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    requireDevice(x, "layerNormBackward");
    requireDevice(dy, "layerNormBackward");
    requireDevice(dx, "layerNormBackward");
    requireSameSize(x, dy, "layerNormBackward");
    requireSameSize(x, dx, "layerNormBackward");
    const int64_t d = gamma.numel(), m = d > 0 ? x.numel() / d : 0;
    requireF32Vector(dgamma, d, "layerNormBackward", "dgamma");
    requireF32Vector(dbeta, d, "layerNormBackward", "dbeta");
    DeviceScope scope(m_index);
    Tensor partials = empty({std::max<int64_t>(layerNormPartialFloats(m, d), 1)}, DType::F32);
    launchLayerNormBackward(x.raw(), dy.raw(), dx.raw(), x.dtype(), m, d, gamma.data<float>(),
                            saveMean.data<float>(), saveVar.data<float>(), eps,
                            dgamma.data<float>(), dbeta.data<float>(), partials.data<float>(),
                            stream());
}

void CudaBackend::attentionForward(const AttentionDesc& d, const Tensor& qkv, Tensor& y,
                                   Tensor& probs) {
    requireDevice(qkv, "attentionForward");
    requireDevice(y, "attentionForward");
    requireDevice(probs, "attentionForward");
    requireAttention(d, qkv, y, probs, "attentionForward");
    DeviceScope scope(m_index);
    const DType a = qkv.dtype();
    const int64_t t = d.t, hd = d.headDim, count = d.n * d.heads;
    const Shape heads{count, t, hd};
    withOomRetry([&] {
        Tensor q = empty(heads, a), k = empty(heads, a), v = empty(heads, a);
        Tensor weights = empty({count, t, t}, a);
        launchSplitHeads(qkv.raw(), q.raw(), k.raw(), v.raw(), a, d, stream());
        batchedGemm(m_cublas, false, true, t, t, hd, 1.0f / std::sqrt(static_cast<float>(hd)),
                    {q.raw(), a, hd, t * hd}, {k.raw(), a, hd, t * hd}, probs.raw(), DType::F32, t,
                    t * t, count);
        launchCausalSoftmax(probs.data<float>(), d, stream());
        launchAttentionWeights(probs.data<float>(), weights.raw(), a, d, stream());
        // The weighted sum lands in q's buffer, which nothing reads any more.
        batchedGemm(m_cublas, false, false, t, hd, t, 1.0f, {weights.raw(), a, t, t * t},
                    {v.raw(), a, hd, t * hd}, q.raw(), a, hd, t * hd, count);
        launchHeadsToRows(q.raw(), y.raw(), a, d, stream());
    });
}

void CudaBackend::attentionBackward(const AttentionDesc& d, const Tensor& qkv, const Tensor& probs,
                                    const Tensor& dy, Tensor& dqkv) {
    requireDevice(qkv, "attentionBackward");
    requireDevice(probs, "attentionBackward");
    requireDevice(dy, "attentionBackward");
    requireDevice(dqkv, "attentionBackward");
    requireAttention(d, qkv, dy, probs, "attentionBackward");
    requireSameSize(qkv, dqkv, "attentionBackward");
    DeviceScope scope(m_index);
    const DType a = qkv.dtype();
    const int64_t t = d.t, hd = d.headDim, count = d.n * d.heads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const Shape heads{count, t, hd};
    withOomRetry([&] {
        Tensor q = empty(heads, a), k = empty(heads, a), v = empty(heads, a);
        Tensor dyh = empty(heads, a), dq = empty(heads, a), dk = empty(heads, a),
               dv = empty(heads, a);
        Tensor weights = empty({count, t, t}, a);
        Tensor dweights = empty({count, t, t}, DType::F32);
        launchSplitHeads(qkv.raw(), q.raw(), k.raw(), v.raw(), a, d, stream());
        launchRowsToHeads(dy.raw(), dyh.raw(), a, d, stream());
        launchAttentionWeights(probs.data<float>(), weights.raw(), a, d, stream());
        const Batched W{weights.raw(), a, t, t * t}, G{dyh.raw(), a, hd, t * hd};
        batchedGemm(m_cublas, true, false, t, hd, t, 1.0f, W, G, dv.raw(), a, hd, t * hd, count);
        batchedGemm(m_cublas, false, true, t, t, hd, 1.0f, G, {v.raw(), a, hd, t * hd},
                    dweights.raw(), DType::F32, t, t * t, count);
        // dS overwrites the weights, which the two products above have read.
        launchCausalSoftmaxBackward(probs.data<float>(), dweights.data<float>(), weights.raw(), a,
                                    d, scale, stream());
        batchedGemm(m_cublas, false, false, t, hd, t, 1.0f, W, {k.raw(), a, hd, t * hd}, dq.raw(),
                    a, hd, t * hd, count);
        batchedGemm(m_cublas, true, false, t, hd, t, 1.0f, W, {q.raw(), a, hd, t * hd}, dk.raw(), a,
                    hd, t * hd, count);
        launchMergeHeads(dq.raw(), dk.raw(), dv.raw(), dqkv.raw(), a, d, stream());
    });
}

} // namespace tb::cuda
