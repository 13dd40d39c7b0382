// CpuBackend convolution entry points: dtype handling around CpuConvCache.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpuconv.h"
#include "backend/cpu/cpulayout.h"
#include "core/errors.h"

namespace tb {

namespace {

LaidOut laidOut(const Tensor& t) {
    return {t.raw(), layoutOf(t), !t.buffer()->backendLayoutsAllowed()};
}

} // namespace

void CpuBackend::convForward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor* b,
                             Tensor& y) {
    if (x.numel() != d.n * d.c * d.h * d.w || w.numel() != d.weightCount() ||
        y.numel() != d.n * d.k * d.outH() * d.outW())
        throw Error("convForward: tensors do not match the convolution's shape");
    if (x.dtype() != y.dtype())
        throw Error("convForward: x and y differ in dtype");
    const float* bias = b ? b->data<float>() : nullptr;
    if (computesNatively(x.dtype())) {
        setLayout(y, m_conv->forward(d, x.dtype(), laidOut(x), w.data<float>(), bias, y.raw(),
                                     mayBlock(y)));
        noteConvBlock(y);
        return;
    }
    const Tensor xf = widened(x, 0);
    Tensor yf = f32Target(y, 1);
    setLayout(yf, m_conv->forward(d, DType::F32, laidOut(xf), w.data<float>(), bias, yf.raw(),
                                  mayBlock(y)));
    storeF32(yf, y);
    noteConvBlock(y);
}

void CpuBackend::convBackward(const ConvDesc& d, const Tensor& x, const Tensor& w, const Tensor& dy,
                              Tensor* dx, Tensor& dw, Tensor* db) {
    float* dbias = db ? db->data<float>() : nullptr;
    if (computesNatively(x.dtype()) && dy.dtype() == x.dtype() &&
        (!dx || dx->dtype() == x.dtype())) {
        const int layout = m_conv->backward(d, x.dtype(), laidOut(x), w.data<float>(), laidOut(dy),
                                            dx ? dx->raw() : nullptr, dx && mayBlock(*dx),
                                            dw.data<float>(), dbias, true);
        if (dx)
            setLayout(*dx, layout);
        return;
    }
    const Tensor xf = widened(x, 0);
    const Tensor dyf = widened(dy, 1);
    Tensor dxf = dx ? f32Target(*dx, 2) : Tensor();
    const int layout = m_conv->backward(d, DType::F32, laidOut(xf), w.data<float>(), laidOut(dyf),
                                        dx ? dxf.raw() : nullptr, dx && mayBlock(*dx),
                                        dw.data<float>(), dbias, false); // xf: scratch
    if (dx) {
        setLayout(dxf, layout);
        storeF32(dxf, *dx);
    }
}

} // namespace tb
