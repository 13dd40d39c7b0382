// Pooling layers.
#include "nn/pooling.h"

#include "nn/layerutil.h"

namespace tb {

Pool2d::Pool2d(PoolKind kind, bool global, const nlohmann::json& spec)
    : m_kind(kind), m_global(global), m_kernel(intOption(spec, "kernel", 2, 1, kMaxKernel)),
      m_stride(intOption(spec, "stride", m_kernel, 1, kMaxKernel)),
      m_padding(intOption(spec, "padding", 0, 0, kMaxKernel)) {
    if (m_padding * 2 > m_kernel)
        layerError(layerLabel(spec), "padding must be at most half the kernel");
}

std::string Pool2d::type() const {
    if (m_global)
        return "globalavgpool";
    return m_kind == PoolKind::Max ? "maxpool2d" : "avgpool2d";
}

PoolDesc Pool2d::describe(const Shape& x) const {
    PoolDesc d;
    d.kind = m_kind;
    d.n = x[0];
    d.c = x[1];
    d.h = x[2];
    d.w = x[3];
    d.kh = m_global ? d.h : m_kernel;
    d.kw = m_global ? d.w : m_kernel;
    d.stride = m_global ? 1 : m_stride;
    d.pad = m_global ? 0 : m_padding;
    return d;
}

Shape Pool2d::outputShape(const std::vector<Shape>& in) const {
    if (in[0].rank() != 4)
        layerError(name(), "expects (N, C, H, W) input, got " + in[0].toString());
    const PoolDesc d = describe(in[0]);
    if (d.outH() < 1 || d.outW() < 1)
        layerError(name(), "kernel does not fit input " + in[0].dropBatch().toString());
    return Shape{d.n, d.c, d.outH(), d.outW()};
}

int64_t Pool2d::savedBytes(const std::vector<Shape>& in) const {
    return m_kind == PoolKind::Max ? outputShape(in).numel() * 4 : 0;
}

nlohmann::json Pool2d::options() const {
    if (m_global)
        return nlohmann::json::object();
    return {{"kernel", m_kernel}, {"stride", m_stride}, {"padding", m_padding}};
}

void Pool2d::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    if (m_kind == PoolKind::Max)
        ensureTensor(b, m_indices, out.shape(), DType::I32);
    b.poolForward(describe(in[0]->shape()), *in[0], out, m_indices);
}

void Pool2d::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                      const std::vector<Tensor*>& din) {
    b.poolBackward(describe(in[0]->shape()), *in[0], dout, m_indices, *din[0]);
}

} // namespace tb
