// CpuBackend dense layers: dtype handling around CpuMatmulCache.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpumatmul.h"
#include "core/errors.h"

namespace tb {

void CpuBackend::linearForward(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) {
    const int64_t n = x.dim(0), in = x.numel() / n, out = w.dim(0);
    if (w.dim(1) != in || y.numel() != n * out)
        throw Error("linearForward: x " + x.shape().toString() + ", w " + w.shape().toString() +
                    ", y " + y.shape().toString() + " do not fit");
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    m_matmul->forward(n, in, out, xf.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr,
                      yf.data<float>());
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
        m_matmul->backwardData(n, in, out, pdy, w.data<float>(), dxf.data<float>());
        storeF32(dxf, *dx);
    }
    m_matmul->backwardWeights(n, in, out, pdy, xf.data<float>(), dw.data<float>());
    if (db) {
        float* pdb = db->data<float>();
        for (int64_t i = 0; i < n; ++i)
#pragma omp simd
            for (int64_t j = 0; j < out; ++j)
                pdb[j] += pdy[i * out + j];
    }
}

} // namespace tb
