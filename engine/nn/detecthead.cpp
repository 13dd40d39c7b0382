// DetectOutput: a detection head's maps joined into one (N, rows, anchors) tensor.
#include "nn/detecthead.h"

#include "nn/layerutil.h"

namespace tb {

DetectOutput::DetectOutput(const nlohmann::json& spec)
    : m_regMax(intOption(spec, "reg_max", 16, 1, 64)), m_classes(intOption(spec, "classes", 80)) {
    const auto it = spec.find("strides");
    if (it == spec.end() || !it->is_array() || it->empty())
        layerError(layerLabel(spec), "needs \"strides\": the pixels per cell of each input map");
    for (const auto& s : *it) {
        if (!s.is_number_integer() || s.get<int64_t>() < 1 || s.get<int64_t>() > 1024)
            layerError(layerLabel(spec),
                       "\"strides\" must be whole numbers 1..1024, got " + it->dump());
        m_strides.push_back(s.get<int64_t>());
    }
    const auto inputs = spec.find("inputs");
    if (inputs == spec.end() || !inputs->is_array() || inputs->size() != m_strides.size())
        layerError(layerLabel(spec), "reads one map per stride: \"inputs\" must list " +
                                         std::to_string(m_strides.size()) + " layers");
}

Shape DetectOutput::outputShape(const std::vector<Shape>& in) const {
    const int64_t rows = 4 * m_regMax + m_classes;
    int64_t anchors = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const Shape& s = in[i];
        if (s.rank() != 4 || s[0] != in[0][0] || s[1] != rows)
            layerError(name(), "each map must be (N, 4 x reg_max + classes = " +
                                   std::to_string(rows) + ", H, W), got " + s.toString());
        // Every scale must tile the same image: H_i x stride_i agree.
        if (s[2] * m_strides[i] != in[0][2] * m_strides[0] ||
            s[3] * m_strides[i] != in[0][3] * m_strides[0])
            layerError(name(), "map " + s.toString() + " at stride " +
                                   std::to_string(m_strides[i]) + " does not cover the image " +
                                   "that map " + in[0].toString() + " at stride " +
                                   std::to_string(m_strides[0]) + " covers");
        anchors += s[2] * s[3];
    }
    return Shape{in[0][0], rows, anchors};
}

nlohmann::json DetectOutput::options() const {
    return {{"reg_max", m_regMax}, {"classes", m_classes}, {"strides", m_strides}};
}

void DetectOutput::init(Backend& b, const std::vector<Shape>&, uint64_t) {
    m_dfl = b.empty({1, m_regMax, 1, 1}, DType::F32);
    Tensor bins = Tensor::host({1, m_regMax, 1, 1}, DType::F32);
    for (int64_t i = 0; i < m_regMax; ++i)
        bins.data<float>()[i] = static_cast<float>(i);
    b.copy(bins, m_dfl);
}

void DetectOutput::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    const int64_t n = out.dim(0), rows = out.dim(1);
    m_flat.resize(in.size());
    std::vector<const Tensor*> parts;
    for (std::size_t i = 0; i < in.size(); ++i) {
        // A reshaping copy hands out plain values, whatever layout the map was kept in.
        ensureTensor(b, m_flat[i], {n * rows, in[i]->dim(2) * in[i]->dim(3), 1, 1}, out.dtype());
        b.copy(*in[i], m_flat[i]);
        parts.push_back(&m_flat[i]);
    }
    Tensor joined = out.view({n * rows, out.dim(2), 1, 1});
    b.joinChannels(parts, joined);
}

void DetectOutput::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                            const std::vector<Tensor*>& din) {
    const int64_t n = dout.dim(0), rows = dout.dim(1);
    std::vector<Tensor*> parts;
    std::vector<int64_t> cells;
    for (std::size_t i = 0; i < in.size(); ++i) {
        cells.push_back(in[i]->dim(2) * in[i]->dim(3));
        ensureTensor(b, m_flat[i], {n * rows, cells.back(), 1, 1}, dout.dtype());
        parts.push_back(din[i] ? &m_flat[i] : nullptr);
    }
    b.splitChannels(dout.view({n * rows, dout.dim(2), 1, 1}), parts, cells);
    for (std::size_t i = 0; i < in.size(); ++i)
        if (din[i])
            b.copy(m_flat[i], *din[i]);
}

} // namespace tb
