// Predictor: inference on the CPU backend with one thread (a few samples are milliseconds of
// work; the training run may be using every core).
#include "train/predictor.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb {

Predictor::Predictor(const std::string& path) : m_model(path) {
    if (m_model.card().readsTokenIds())
        throw ConfigError("model", path + " is a language model: trainbench-cli generate "
                                          "continues a prompt with it");
    // Its answer is a mask, not a list of classes: refused rather than read as a classifier's.
    if (m_model.graph().pixelLogits())
        throw ConfigError("model", path + " is a segmentation model (a class for every pixel): "
                                          "its answer is a mask (Segmenter; trainbench-cli "
                                          "predict --masks DIR), not a ranking of classes");
    for (float s : m_model.card().stdDev)
        m_invStd.push_back(s > 1e-6f ? 1.0f / s : 1.0f); // as NormalizeDataset
}

Predictor::~Predictor() = default;

std::vector<Prediction> Predictor::predict(const std::vector<float>& raw, int top) {
    return predict(std::vector<std::vector<float>>{raw}, top)[0];
}

std::vector<std::vector<Prediction>> Predictor::predict(const std::vector<std::vector<float>>& raws,
                                                        int top) {
    const Shape shape = sampleShape();
    const int64_t n = shape.numel();
    const auto batch = static_cast<int64_t>(raws.size());
    const std::vector<float>& mean = m_model.card().mean;
    Tensor x = Tensor::host(shape.withBatch(batch), DType::F32);
    const int64_t channels = shape.rank() == 3 ? shape[0] : 1;
    const int64_t plane = n / channels;
    for (int64_t s = 0; s < batch; ++s) {
        const std::vector<float>& raw = raws[static_cast<std::size_t>(s)];
        if (static_cast<int64_t>(raw.size()) != n)
            throw ConfigError("input", "the model takes " + shape.toString() + " (" +
                                           std::to_string(n) + " values), not " +
                                           std::to_string(raw.size()));
        float* px = x.data<float>() + s * n;
        for (int64_t i = 0; i < n; ++i) {
            const auto c = static_cast<std::size_t>(i / plane);
            const float v = raw[static_cast<std::size_t>(i)];
            px[i] = mean.empty() ? v : (v - mean[c]) * m_invStd[c];
        }
    }
    Backend& backend = m_model.backend();
    const Tensor& logits = m_model.graph().forward(x, false);
    Tensor host = Tensor::host(logits.shape(), DType::F32);
    backend.copy(logits, host);
    const auto classes = static_cast<int>(classNames().size());
    std::vector<std::vector<Prediction>> out;
    for (int64_t s = 0; s < batch; ++s) {
        const float* z = host.data<float>() + s * classes;
        const float zmax = *std::max_element(z, z + classes);
        std::vector<double> p(static_cast<std::size_t>(classes));
        double sum = 0.0;
        for (int c = 0; c < classes; ++c)
            sum += p[static_cast<std::size_t>(c)] = std::exp(static_cast<double>(z[c] - zmax));
        std::vector<int> order(static_cast<std::size_t>(classes));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return p[static_cast<std::size_t>(a)] > p[static_cast<std::size_t>(b)];
        });
        std::vector<Prediction>& row = out.emplace_back();
        for (int i = 0; i < std::min(top, classes); ++i) {
            const int c = order[static_cast<std::size_t>(i)];
            row.push_back({c, classNames()[static_cast<std::size_t>(c)],
                           p[static_cast<std::size_t>(c)] / sum});
        }
    }
    return out;
}

} // namespace tb
