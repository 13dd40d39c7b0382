// Linear layers on cuBLAS: cublasGemmEx with f32 accumulation (CUBLAS_COMPUTE_32F) for f32,
// f16 and bf16 inputs; row-major tensors are handed to column-major cuBLAS as their transposes.
#include "cudabackend.h"

#include "cudacheck.h"
#include "cudatypes.h"
#include "kernels.h"
#include "tensorchecks.h"

namespace tb::cuda {

namespace {

int gemmDim(int64_t v, const char* what) {
    if (v < 0 || v > INT32_MAX)
        throw Error(std::string("linear: ") + what + " too large for cuBLAS");
    return static_cast<int>(v);
}

// Column-major C(m, n) = op(A) op(B) * 1 + beta * C.
struct Gemm {
    cublasOperation_t opA, opB;
    int m, n, k;
    const void* a;
    DType aType;
    int lda;
    const void* b;
    DType bType;
    int ldb;
    void* c;
    DType cType;
    int ldc;
    float beta;
};

void runGemm(cublasHandle_t handle, const Gemm& g) {
    const float alpha = 1.0f;
    TB_CUBLAS_CHECK(cublasGemmEx(handle, g.opA, g.opB, g.m, g.n, g.k, &alpha, g.a,
                                 cudaTypeOf(g.aType), g.lda, g.b, cudaTypeOf(g.bType), g.ldb,
                                 &g.beta, g.c, cudaTypeOf(g.cType), g.ldc, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT));
}

} // namespace

// y(n, out) = x(n, in) w(out, in)^T + b(out).
// Column-major: y^T(out, n) = w^T(out, in) [w stored as (in, out), op T] * x^T(in, n).
void CudaBackend::linearForward(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) {
    requireDevice(x, "linearForward");
    requireDevice(w, "linearForward");
    requireDevice(y, "linearForward");
    DeviceScope scope(m_index);
    const int64_t out = w.dim(0), in = w.dim(1);
    const int64_t n = in > 0 ? x.numel() / in : 0;
    if (x.numel() != n * in || y.numel() != n * out || y.dtype() != x.dtype())
        throw Error("linearForward: shapes " + x.shape().toString() + " x " + w.shape().toString() +
                    " -> " + y.shape().toString() + " do not match");
    if (b) {
        requireDevice(*b, "linearForward");
        requireF32Vector(*b, out, "linearForward", "bias");
    }
    if (n == 0 || out == 0)
        return;
    const Tensor wc = weightsAs(w, x.dtype());
    const int m = gemmDim(out, "out"), nn = gemmDim(n, "batch"), k = gemmDim(in, "in");
    withOomRetry([&] {
        runGemm(m_cublas, {CUBLAS_OP_T, CUBLAS_OP_N, m, nn, k, wc.raw(), wc.dtype(), k, x.raw(),
                           x.dtype(), k, y.raw(), y.dtype(), m, 0.0f});
    });
    if (b)
        launchAddBias(y.raw(), b->data<float>(), y.dtype(), n, out, 1, stream());
}

// dx(n, in) = dy(n, out) w(out, in); dw(out, in) += dy^T x; db(out) += sum over n of dy.
void CudaBackend::linearBackward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx,
                                 Tensor& dw, Tensor* db) {
    requireDevice(x, "linearBackward");
    requireDevice(w, "linearBackward");
    requireDevice(dy, "linearBackward");
    requireDevice(dw, "linearBackward");
    DeviceScope scope(m_index);
    const int64_t out = w.dim(0), in = w.dim(1);
    const int64_t n = in > 0 ? x.numel() / in : 0;
    if (x.numel() != n * in || dy.numel() != n * out || dw.numel() != out * in ||
        dw.dtype() != DType::F32 || dy.dtype() != x.dtype())
        throw Error("linearBackward: shapes or dtypes do not match");
    if (db) {
        requireDevice(*db, "linearBackward");
        requireF32Vector(*db, out, "linearBackward", "db");
    }
    if (n == 0 || out == 0)
        return;
    const int m = gemmDim(out, "out"), nn = gemmDim(n, "batch"), k = gemmDim(in, "in");
    if (dx) {
        requireDevice(*dx, "linearBackward");
        if (dx->numel() != n * in || dx->dtype() != dy.dtype())
            throw Error("linearBackward: dx does not match x");
        const Tensor wc = weightsAs(w, dy.dtype());
        // Column-major dx^T(in, n) = w^T(in, out) [w stored as (in, out), op N] * dy^T(out, n).
        withOomRetry([&] {
            runGemm(m_cublas, {CUBLAS_OP_N, CUBLAS_OP_N, k, nn, m, wc.raw(), wc.dtype(), k,
                               dy.raw(), dy.dtype(), m, dx->raw(), dx->dtype(), k, 0.0f});
        });
    }
    // Column-major dw^T(in, out) += x^T(in, n) [op N] * dy(n, out) [dy stored as (out, n), op T];
    // f16/bf16 inputs with an f32 output accumulate straight into the f32 gradient.
    withOomRetry([&] {
        runGemm(m_cublas, {CUBLAS_OP_N, CUBLAS_OP_T, k, m, nn, x.raw(), x.dtype(), k, dy.raw(),
                           dy.dtype(), m, dw.raw(), DType::F32, k, 1.0f});
    });
    if (db)
        launchBiasGrad(dy.raw(), db->data<float>(), dy.dtype(), n, out, 1, stream());
}

} // namespace tb::cuda
