// Resize layer.
#include "nn/resize.h"

#include "nn/layerutil.h"

#include <cmath>

namespace tb {

Resize::Resize(const nlohmann::json& spec) {
    const std::string label = layerLabel(spec);
    if (const auto mode = spec.find("mode");
        mode != spec.end() && !(mode->is_string() && *mode == "bilinear"))
        layerError(label, "mode must be \"bilinear\" (nearest by a whole factor is the upsample "
                          "layer), not " +
                              mode->dump());
    if (boolOption(spec, "align_corners", false))
        layerError(label, "align_corners=true is not supported: torchvision's segmentation models "
                          "and U-Nets resize with align_corners=false");
    const bool sized = spec.contains("size"), scaled = spec.contains("scale_factor");
    if (sized == scaled)
        layerError(label, "needs either size ([height, width] or one side) or scale_factor");
    if (scaled) {
        m_scale = floatOption(spec, "scale_factor", 2.0f, {0.0, 64.0, true});
        return;
    }
    const nlohmann::json& size = spec["size"];
    const auto side = [&](const nlohmann::json& v) {
        if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > kMaxLayerSize)
            layerError(label, "size must be [height, width] or one side, whole numbers from 1 to " +
                                  std::to_string(kMaxLayerSize) + ", not " + size.dump());
        return v.get<int64_t>();
    };
    if (size.is_array() && size.size() == 2) {
        m_height = side(size[0]);
        m_width = side(size[1]);
    } else {
        m_height = m_width = side(size);
    }
}

Shape Resize::outputShape(const std::vector<Shape>& in) const {
    if (in[0].rank() != 4)
        layerError(name(), "needs (N, C, H, W) input, not " + in[0].toString());
    if (m_height > 0)
        return Shape{in[0][0], in[0][1], m_height, m_width};
    // PyTorch's output size for a scale factor: floor(input * scale).
    const auto side = [&](int64_t v) {
        return static_cast<int64_t>(std::floor(static_cast<double>(v) * m_scale));
    };
    const Shape out{in[0][0], in[0][1], side(in[0][2]), side(in[0][3])};
    if (out[2] < 1 || out[3] < 1)
        layerError(name(), "scale_factor " + std::to_string(m_scale) + " leaves nothing of " +
                               in[0].dropBatch().toString());
    return out;
}

nlohmann::json Resize::options() const {
    nlohmann::json o = {{"mode", "bilinear"}, {"align_corners", false}};
    if (m_height > 0)
        o["size"] = {m_height, m_width};
    else
        o["scale_factor"] = m_scale;
    return o;
}

void Resize::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.resizeBilinearForward(*in[0], out);
}

void Resize::backward(Backend& b, const Inputs&, const Tensor&, const Tensor& dout,
                      const std::vector<Tensor*>& din) {
    if (din[0])
        b.resizeBilinearBackward(dout, *din[0]);
}

} // namespace tb
