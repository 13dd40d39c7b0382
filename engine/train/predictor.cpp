// Predictor: inference on the CPU backend with one thread (one sample is microseconds of work;
// the training run may be using every core).
#include "train/predictor.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "data/datasets.h"
#include "nn/modelzoo.h"
#include "train/checkpointer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb {

Predictor::Predictor(const std::string& checkpointPath)
    : m_checkpoint(checkpointPath), m_config(Checkpointer::configOf(checkpointPath)) {
    // Normalised as the run trained (ImageNet's statistics when it started from pretrained
    // weights).
    const DatasetSplits data = openDatasets(m_config.data, m_config.seed,
                                            !m_config.modelOptions.value("pretrained", "").empty());
    m_shape = data.validation->sampleShape();
    const int classes = data.validation->numClasses();
    m_classNames = data.validation->classNames();
    m_classNames.resize(static_cast<std::size_t>(classes));
    for (int c = 0; c < classes; ++c)
        if (m_classNames[static_cast<std::size_t>(c)].empty())
            m_classNames[static_cast<std::size_t>(c)] = "class " + std::to_string(c);
    m_mean = data.mean;
    for (float s : data.stdDev)
        m_invStd.push_back(s > 1e-6f ? 1.0f / s : 1.0f); // as NormalizeDataset
    m_backend = createBackend(Device::cpu(), 1);
    const nlohmann::json spec = modelSpec(m_config.model, m_shape, classes, m_config.modelOptions);
    m_graph = std::make_unique<Graph>(spec, *m_backend, activationDtypeOf(m_config.precision),
                                      m_config.seed);
    Checkpointer::loadWeights(checkpointPath, *m_graph);
}

Predictor::~Predictor() = default;

std::vector<Prediction> Predictor::predict(const std::vector<float>& raw, int top) {
    const int64_t n = m_shape.numel();
    if (static_cast<int64_t>(raw.size()) != n)
        throw ConfigError("input", "the model takes " + m_shape.toString() + " (" +
                                       std::to_string(n) + " values), not " +
                                       std::to_string(raw.size()));
    Tensor x = Tensor::host(m_shape.withBatch(1), DType::F32);
    float* px = x.data<float>();
    const int64_t channels = m_shape.rank() == 3 ? m_shape[0] : 1;
    const int64_t plane = n / channels;
    for (int64_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>(i / plane);
        px[i] = m_mean.empty() ? raw[static_cast<std::size_t>(i)]
                               : (raw[static_cast<std::size_t>(i)] - m_mean[c]) * m_invStd[c];
    }
    const Tensor& logits = m_graph->forward(x, false);
    Tensor f32 = Tensor::host(logits.shape(), DType::F32);
    if (logits.dtype() == DType::F32) {
        m_backend->copy(logits, f32);
    } else {
        Tensor cast = m_backend->empty(logits.shape(), DType::F32);
        m_backend->cast(logits, cast);
        m_backend->copy(cast, f32);
    }
    const auto classes = static_cast<int>(m_classNames.size());
    const float* z = f32.data<float>();
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
    std::vector<Prediction> out;
    for (int i = 0; i < std::min(top, classes); ++i) {
        const int c = order[static_cast<std::size_t>(i)];
        out.push_back(
            {c, m_classNames[static_cast<std::size_t>(c)], p[static_cast<std::size_t>(c)] / sum});
    }
    return out;
}

} // namespace tb
