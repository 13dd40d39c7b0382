// CpuBackend convolution entry points: dtype handling around CpuConvCache.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpuconv.h"
#include "core/errors.h"

namespace tb {

void CpuBackend::convForward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor* b,
                             Tensor& y) {
    if (x.numel() != d.n * d.c * d.h * d.w || w.numel() != d.k * d.c * d.r * d.s ||
        y.numel() != d.n * d.k * d.outH() * d.outW())
        throw Error("convForward: tensors do not match the convolution's shape");
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    m_conv->forward(d, xf.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr,
                    yf.data<float>());
    storeF32(yf, y);
}

void CpuBackend::convBackward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor& dy,
                              Tensor* dx, Tensor& dw, Tensor* db) {
    const Tensor xf = asF32(x, 0);
    const Tensor dyf = asF32(dy, 1);
    Tensor dxf = dx ? f32Target(*dx, 2) : Tensor();
    m_conv->backward(d, xf.data<float>(), w.data<float>(), dyf.data<float>(),
                     dx ? dxf.data<float>() : nullptr, dw.data<float>(),
                     db ? db->data<float>() : nullptr);
    if (dx)
        storeF32(dxf, *dx);
}

} // namespace tb
