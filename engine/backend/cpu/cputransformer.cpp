// CpuBackend's transformer ops: embeddings (own loops), layer norm (oneDNN), and causal
// attention, one (sample, head) pair per task: its scores, softmax and weighted sum stay in
// that thread's cache, and the products are oneDNN's sgemm run single-threaded inside the
// parallel loop (oneDNN does not nest OpenMP teams).
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayernorm.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/embedding_math.h"
#include "backend/kernels/random_math.h"
#include "core/errors.h"

#include <dnnl.h>
#include <omp.h>

#include <cmath>
#include <vector>

namespace tb {

namespace {

// Rows are independent, so even a short sequence splits across threads.
constexpr int64_t kRowGrain = 64;

void sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
    if (dnnl_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) != dnnl_success)
        throw Error("attention: oneDNN sgemm failed");
}

void requireAttentionShapes(const AttentionDesc& d, const Tensor& qkv, const Tensor& y,
                            const Tensor& probs, const char* op) {
    if (qkv.numel() != d.n * d.t * 3 * d.width() || y.numel() != d.n * d.t * d.width() ||
        probs.numel() < d.probsCount() || probs.dtype() != DType::F32)
        throw Error(std::string(op) + ": qkv " + qkv.shape().toString() + ", output " +
                    y.shape().toString() + " and probs " + probs.shape().toString() +
                    " do not fit " + std::to_string(d.heads) + " heads of " +
                    std::to_string(d.headDim) + " over " + std::to_string(d.t) + " positions");
}

// The weights the values are summed with: probs, or probs with dropout applied into `out`.
const float* droppedProbs(const AttentionDesc& d, const float* p, int64_t offset, float* out) {
    if (d.dropout <= 0.0f)
        return p;
    const float keepScale = 1.0f / (1.0f - d.dropout);
    for (int64_t i = 0; i < d.t * d.t; ++i)
        out[i] = math::dropoutKeep(d.seed, static_cast<uint64_t>(offset + i), d.dropout)
                     ? p[i] * keepScale
                     : 0.0f;
    return out;
}

} // namespace

void CpuBackend::embeddingForward(const Tensor& ids, const Tensor& table, Tensor& y) {
    const int64_t m = ids.numel(), rows = table.dim(0), d = table.dim(1);
    if (ids.dtype() != DType::F32 || y.numel() != m * d)
        throw Error("embeddingForward: ids " + ids.shape().toString() + " (" +
                    std::string(dtypeName(ids.dtype())) + ") and output " + y.shape().toString() +
                    " do not fit a table of " + table.shape().toString());
    const float* pid = ids.data<float>();
    const float* pt = table.data<float>();
    Tensor yf = f32Target(y, 1);
    float* py = yf.data<float>();
    parallelFor(
        m,
        [&](int64_t i) {
            const int64_t row = math::tokenRow(pid[i], rows);
            for (int64_t j = 0; j < d; ++j)
                py[i * d + j] = row < 0 ? 0.0f : pt[row * d + j];
        },
        kRowGrain);
    storeF32(yf, y);
}

void CpuBackend::embeddingBackward(const Tensor& ids, const Tensor& dy, Tensor& dtable) {
    const int64_t m = ids.numel(), rows = dtable.dim(0), d = dtable.dim(1);
    const Tensor dyf = asF32(dy, 0);
    const float* pid = ids.data<float>();
    const float* pdy = dyf.data<float>();
    float* pt = dtable.data<float>();
    // Threads own columns, so each row's sum runs in position order: deterministic.
    parallelChunks(
        d,
        [&](int64_t begin, int64_t end) {
            for (int64_t i = 0; i < m; ++i) {
                const int64_t row = math::tokenRow(pid[i], rows);
                if (row < 0)
                    continue;
                for (int64_t j = begin; j < end; ++j)
                    pt[row * d + j] += pdy[i * d + j];
            }
        },
        16);
}

void CpuBackend::positionEmbeddingForward(const Tensor& x, const Tensor& table, Tensor& y) {
    const int64_t t = x.dim(1), d = table.dim(1);
    if (x.shape().rank() != 3 || x.dim(2) != d || table.dim(0) < t || y.numel() != x.numel())
        throw Error("positionEmbeddingForward: input " + x.shape().toString() +
                    " does not fit a table of " + table.shape().toString());
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    const float* px = xf.data<float>();
    const float* pt = table.data<float>();
    float* py = yf.data<float>();
    const int64_t rowsTotal = x.numel() / d;
    parallelFor(
        rowsTotal,
        [&](int64_t r) {
            const float* p = pt + (r % t) * d;
#pragma omp simd
            for (int64_t j = 0; j < d; ++j)
                py[r * d + j] = px[r * d + j] + p[j];
        },
        kRowGrain);
    storeF32(yf, y);
}

void CpuBackend::positionEmbeddingBackward(const Tensor& dy, Tensor& dtable) {
    const int64_t n = dy.dim(0), t = dy.dim(1), d = dy.dim(2);
    const Tensor dyf = asF32(dy, 0);
    const float* pdy = dyf.data<float>();
    float* pt = dtable.data<float>();
    parallelFor(
        t,
        [&](int64_t p) {
            for (int64_t b = 0; b < n; ++b)
#pragma omp simd
                for (int64_t j = 0; j < d; ++j)
                    pt[p * d + j] += pdy[(b * t + p) * d + j];
        },
        8);
}

void CpuBackend::layerNormForward(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                  float eps, Tensor& y, Tensor& saveMean, Tensor& saveVar) {
    const int64_t d = gamma.numel(), m = x.numel() / d;
    if (x.numel() != m * d || y.numel() != x.numel() || saveMean.numel() < m || saveVar.numel() < m)
        throw Error("layerNormForward: input " + x.shape().toString() + " does not fit " +
                    std::to_string(d) + " features");
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    m_layerNorm->forward(m, d, eps, xf.data<float>(), gamma.data<float>(), beta.data<float>(),
                         yf.data<float>(), saveMean.data<float>(), saveVar.data<float>());
    storeF32(yf, y);
}

void CpuBackend::layerNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                   const Tensor& saveMean, const Tensor& saveVar, float eps,
                                   Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    const int64_t d = gamma.numel(), m = x.numel() / d;
    const Tensor xf = asF32(x, 0);
    const Tensor dyf = asF32(dy, 1);
    Tensor dxf = f32Target(dx, 2);
    // oneDNN overwrites the parameter gradients: it writes them to scratch, added here.
    Tensor grads = scratch({2 * d}, 3);
    float* g = grads.data<float>();
    m_layerNorm->backward(m, d, eps, xf.data<float>(), dyf.data<float>(), gamma.data<float>(),
                          gamma.data<float>(), saveMean.data<float>(), saveVar.data<float>(),
                          dxf.data<float>(), g, g + d);
    float* pg = dgamma.data<float>();
    float* pb = dbeta.data<float>();
    for (int64_t j = 0; j < d; ++j) {
        pg[j] += g[j];
        pb[j] += g[d + j];
    }
    storeF32(dxf, dx);
}

void CpuBackend::attentionForward(const AttentionDesc& d, const Tensor& qkv, Tensor& y,
                                  Tensor& probs) {
    requireAttentionShapes(d, qkv, y, probs, "attentionForward");
    const Tensor qkvf = asF32(qkv, 0);
    Tensor yf = f32Target(y, 1);
    const int64_t t = d.t, w = d.width(), hd = d.headDim, stride = 3 * w;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const float* base = qkvf.data<float>();
    float* out = yf.data<float>();
    float* allProbs = probs.data<float>();
#pragma omp parallel
    {
        std::vector<float> dropped(d.dropout > 0.0f ? static_cast<std::size_t>(t * t) : 0);
#pragma omp for schedule(static)
        for (int64_t task = 0; task < d.n * d.heads; ++task) {
            const int64_t b = task / d.heads, h = task % d.heads;
            const float* q = base + b * t * stride + h * hd;
            float* p = allProbs + task * t * t;
            sgemm('N', 'T', t, t, hd, scale, q, stride, q + w, stride, 0.0f, p, t);
            for (int64_t i = 0; i < t; ++i) {
                float* row = p + i * t;
                float top = row[0];
                for (int64_t j = 1; j <= i; ++j)
                    top = std::max(top, row[j]);
                float sum = 0.0f;
                for (int64_t j = 0; j <= i; ++j) {
                    row[j] = std::exp(row[j] - top);
                    sum += row[j];
                }
                const float inv = 1.0f / sum;
                for (int64_t j = 0; j <= i; ++j)
                    row[j] *= inv;
                for (int64_t j = i + 1; j < t; ++j)
                    row[j] = 0.0f;
            }
            const float* weights = droppedProbs(d, p, task * t * t, dropped.data());
            sgemm('N', 'N', t, hd, t, 1.0f, weights, t, q + 2 * w, stride, 0.0f,
                  out + b * t * w + h * hd, w);
        }
    }
    storeF32(yf, y);
}

void CpuBackend::attentionBackward(const AttentionDesc& d, const Tensor& qkv, const Tensor& probs,
                                   const Tensor& dy, Tensor& dqkv) {
    requireAttentionShapes(d, qkv, dy, probs, "attentionBackward");
    const Tensor qkvf = asF32(qkv, 0);
    const Tensor dyf = asF32(dy, 1);
    Tensor dqkvf = f32Target(dqkv, 2);
    const int64_t t = d.t, w = d.width(), hd = d.headDim, stride = 3 * w;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const float keepScale = d.dropout > 0.0f ? 1.0f / (1.0f - d.dropout) : 1.0f;
    const float* base = qkvf.data<float>();
    const float* grad = dyf.data<float>();
    const float* allProbs = probs.data<float>();
    float* dbase = dqkvf.data<float>();
#pragma omp parallel
    {
        std::vector<float> dp(static_cast<std::size_t>(t * t));
        std::vector<float> dropped(d.dropout > 0.0f ? static_cast<std::size_t>(t * t) : 0);
#pragma omp for schedule(static)
        for (int64_t task = 0; task < d.n * d.heads; ++task) {
            const int64_t b = task / d.heads, h = task % d.heads;
            const float* q = base + b * t * stride + h * hd;
            const float* g = grad + b * t * w + h * hd;
            float* dq = dbase + b * t * stride + h * hd;
            const float* p = allProbs + task * t * t;
            const float* weights = droppedProbs(d, p, task * t * t, dropped.data());
            // dV = weights^T dY; dWeights = dY V^T.
            sgemm('T', 'N', t, hd, t, 1.0f, weights, t, g, w, 0.0f, dq + 2 * w, stride);
            sgemm('N', 'T', t, t, hd, 1.0f, g, w, q + 2 * w, stride, 0.0f, dp.data(), t);
            // Through dropout and the softmax: dS = P * (dP - sum(P * dP)), zero above the
            // diagonal, where P is.
            for (int64_t i = 0; i < t; ++i) {
                float* row = dp.data() + i * t;
                const float* pr = p + i * t;
                if (d.dropout > 0.0f) {
                    const auto first = static_cast<uint64_t>(task * t * t + i * t);
                    for (int64_t j = 0; j <= i; ++j)
                        row[j] =
                            math::dropoutKeep(d.seed, first + static_cast<uint64_t>(j), d.dropout)
                                ? row[j] * keepScale
                                : 0.0f;
                }
                float dot = 0.0f;
                for (int64_t j = 0; j <= i; ++j)
                    dot += pr[j] * row[j];
                for (int64_t j = 0; j <= i; ++j)
                    row[j] = pr[j] * (row[j] - dot);
                for (int64_t j = i + 1; j < t; ++j)
                    row[j] = 0.0f;
            }
            // dQ = scale dS K; dK = scale dS^T Q.
            sgemm('N', 'N', t, hd, t, scale, dp.data(), t, q + w, stride, 0.0f, dq, stride);
            sgemm('T', 'N', t, hd, t, scale, dp.data(), t, q, stride, 0.0f, dq + w, stride);
        }
    }
    storeF32(dqkvf, dqkv);
}

} // namespace tb
