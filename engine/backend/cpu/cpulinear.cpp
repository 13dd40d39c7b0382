// CpuBackend dense layers: dtype handling around CpuMatmulCache.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/cpumatmul.h"
#include "core/errors.h"
#include "core/half.h"

namespace tb {

namespace {

constexpr int kWeightSlot = 3; // scratch slot for the bf16 copy of a dense layer's weights

// db(out) += the column sums of dy(n, out).
template <typename T, typename Load>
void accumulateBiasGradient(const T* dy, int64_t n, int64_t out, float* db, Load load) {
    for (int64_t i = 0; i < n; ++i)
#pragma omp simd
        for (int64_t j = 0; j < out; ++j)
            db[j] += load(dy[i * out + j]);
}

} // namespace

Tensor CpuBackend::computeWeights(const Tensor& w, DType act) {
    if (act == DType::F32)
        return w;
    Tensor copy(scratch(w.shape(), kWeightSlot).buffer(), w.shape(), act);
    cast(w, copy);
    return copy;
}

void CpuBackend::linearForward(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) {
    const int64_t n = x.dim(0), in = x.numel() / n, out = w.dim(0);
    if (w.dim(1) != in || y.numel() != n * out || x.dtype() != y.dtype())
        throw Error("linearForward: x " + x.shape().toString() + ", w " + w.shape().toString() +
                    ", y " + y.shape().toString() + " do not fit");
    const float* bias = b ? b->data<float>() : nullptr;
    if (computesNatively(x.dtype())) {
        const Tensor xp = asPlain(x, 0);
        const Tensor wc = computeWeights(w, x.dtype());
        m_matmul->forward(x.dtype(), n, in, out, xp.raw(), wc.raw(), bias, y.raw());
        setLayout(y, 0);
        return;
    }
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    m_matmul->forward(DType::F32, n, in, out, xf.raw(), w.raw(), bias, yf.raw());
    storeF32(yf, y);
}

void CpuBackend::linearBackward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx,
                                Tensor& dw, Tensor* db) {
    const int64_t n = x.dim(0), in = x.numel() / n, out = w.dim(0);
    if (computesNatively(x.dtype()) && dy.dtype() == x.dtype() &&
        (!dx || dx->dtype() == x.dtype())) {
        const DType a = x.dtype();
        const Tensor xp = asPlain(x, 0), dyp = asPlain(dy, 1);
        if (dx) {
            const Tensor wc = computeWeights(w, a);
            m_matmul->backwardData(a, n, in, out, dyp.raw(), wc.raw(), dx->raw());
            setLayout(*dx, 0);
        }
        m_matmul->backwardWeights(a, n, in, out, dyp.raw(), xp.raw(), dw.data<float>());
        if (db && a == DType::BF16)
            accumulateBiasGradient(dyp.data<uint16_t>(), n, out, db->data<float>(),
                                   [](uint16_t v) { return bf16ToFloat(v); });
        else if (db)
            accumulateBiasGradient(dyp.data<float>(), n, out, db->data<float>(),
                                   [](float v) { return v; });
        return;
    }
    const Tensor xf = asF32(x, 0);
    const Tensor dyf = asF32(dy, 1);
    if (dx) {
        Tensor dxf = f32Target(*dx, 2);
        m_matmul->backwardData(DType::F32, n, in, out, dyf.raw(), w.raw(), dxf.raw());
        storeF32(dxf, *dx);
    }
    m_matmul->backwardWeights(DType::F32, n, in, out, dyf.raw(), xf.raw(), dw.data<float>());
    if (db)
        accumulateBiasGradient(dyf.data<float>(), n, out, db->data<float>(),
                               [](float v) { return v; });
}

} // namespace tb
