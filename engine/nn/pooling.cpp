// Pooling layers.
#include "nn/pooling.h"

#include "nn/layerutil.h"

#include <tuple>
#include <utility>

namespace tb {

namespace {

// "output_size": one side for both, or [H, W], as AdaptiveAvgPool2d takes it.
std::pair<int64_t, int64_t> outputSizeOption(const nlohmann::json& spec) {
    const nlohmann::json size =
        spec.contains("output_size") ? spec["output_size"] : nlohmann::json(1);
    const bool pair = size.is_array() && size.size() == 2;
    if (!size.is_number_integer() && !pair)
        layerError(layerLabel(spec), "option 'output_size' must be a whole number or [height, "
                                     "width], got " +
                                         size.dump());
    const auto side = [&](const nlohmann::json& v) {
        return intOption({{"name", layerLabel(spec)}, {"output_size", v}}, "output_size", 1, 1,
                         kMaxKernel);
    };
    return pair ? std::pair{side(size[0]), side(size[1])} : std::pair{side(size), side(size)};
}

} // namespace

Pool2d::Pool2d(PoolKind kind, PoolExtent extent, const nlohmann::json& spec)
    : m_kind(kind), m_extent(extent), m_kernel(intOption(spec, "kernel", 2, 1, kMaxKernel)),
      m_stride(intOption(spec, "stride", m_kernel, 1, kMaxKernel)),
      m_padding(intOption(spec, "padding", 0, 0, kMaxKernel)) {
    if (m_padding * 2 > m_kernel)
        layerError(layerLabel(spec), "padding must be at most half the kernel");
    if (m_extent == PoolExtent::Adaptive)
        std::tie(m_outH, m_outW) = outputSizeOption(spec);
}

std::string Pool2d::type() const {
    if (m_extent == PoolExtent::Global)
        return "globalavgpool";
    if (m_extent == PoolExtent::Adaptive)
        return "adaptiveavgpool2d";
    return m_kind == PoolKind::Max ? "maxpool2d" : "avgpool2d";
}

PoolDesc Pool2d::describe(const Shape& x) const {
    PoolDesc d;
    d.kind = m_kind;
    d.n = x[0];
    d.c = x[1];
    d.h = x[2];
    d.w = x[3];
    switch (m_extent) {
    case PoolExtent::Window:
        d.kh = d.kw = m_kernel;
        d.stride = m_stride;
        d.pad = m_padding;
        break;
    case PoolExtent::Global:
        d.kh = d.h;
        d.kw = d.w;
        d.stride = 1;
        d.pad = 0;
        break;
    case PoolExtent::Adaptive:
        d.adaptiveH = m_outH;
        d.adaptiveW = m_outW;
        break;
    }
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
    if (m_extent == PoolExtent::Global)
        return nlohmann::json::object();
    if (m_extent == PoolExtent::Adaptive)
        return {{"output_size",
                 m_outH == m_outW ? nlohmann::json(m_outH) : nlohmann::json{m_outH, m_outW}}};
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
