// CpuBackend dense layers on OpenBLAS sgemm (measured faster than oneDNN's matmul here for
// these small shapes; see the issue note).
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <cblas.h>

#include <cstring>

namespace tb {

void CpuBackend::linearForward(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) {
    const int64_t n = x.dim(0), in = x.numel() / n, out = w.dim(0);
    if (w.dim(1) != in || y.numel() != n * out)
        throw Error("linearForward: x " + x.shape().toString() + ", w " + w.shape().toString() +
                    ", y " + y.shape().toString() + " do not fit");
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    float* py = yf.data<float>();
    // y(n, out) = x(n, in) * w(out, in)^T, with the bias pre-loaded so sgemm adds onto it.
    float beta = 0.0f;
    if (b) {
        const float* pb = b->data<float>();
        for (int64_t i = 0; i < n; ++i) // serial: cheaper than waking the pool for it
            std::memcpy(py + i * out, pb, static_cast<std::size_t>(out) * sizeof(float));
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(out),
                static_cast<int>(in), 1.0f, xf.data<float>(), static_cast<int>(in), w.data<float>(),
                static_cast<int>(in), beta, py, static_cast<int>(out));
    storeF32(yf, y);
}

void CpuBackend::linearBackward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx,
                                Tensor& dw, Tensor* db) {
    const int64_t n = x.dim(0), in = x.numel() / n, out = w.dim(0);
    const Tensor xf = asF32(x, 0);
    const Tensor dyf = asF32(dy, 1);
    const float* pdy = dyf.data<float>();
    if (dx) {
        Tensor dxf = f32Target(*dx, 2);
        // dx(n, in) = dy(n, out) * w(out, in)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n),
                    static_cast<int>(in), static_cast<int>(out), 1.0f, pdy, static_cast<int>(out),
                    w.data<float>(), static_cast<int>(in), 0.0f, dxf.data<float>(),
                    static_cast<int>(in));
        storeF32(dxf, *dx);
    }
    // dw(out, in) += dy^T(out, n) * x(n, in)
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(out),
                static_cast<int>(in), static_cast<int>(n), 1.0f, pdy, static_cast<int>(out),
                xf.data<float>(), static_cast<int>(in), 1.0f, dw.data<float>(),
                static_cast<int>(in));
    if (db) {
        float* pdb = db->data<float>();
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < out; ++j)
                pdb[j] += pdy[i * out + j];
    }
}

} // namespace tb
