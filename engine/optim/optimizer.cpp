// Optimizer state allocation and the per-parameter fused updates.
#include "optim/optimizer.h"

#include "core/errors.h"

namespace tb {

Optimizer::Optimizer(Backend& backend, std::vector<Param*> params, const OptimizerConfig& config)
    : Optimizer(backend, std::vector<ParamGroup>{{"all", std::move(params), 1.0f}}, config) {}

Optimizer::Optimizer(Backend& backend, std::vector<ParamGroup> groups,
                     const OptimizerConfig& config)
    : m_backend(backend), m_groups(std::move(groups)), m_config(config) {
    if (config.name != "sgd" && config.name != "adamw")
        throw ConfigError("optimizer", "'" + config.name + "' must be sgd or adamw");
    for (const ParamGroup& g : m_groups) {
        for (Param* p : g.params) {
            m_params.push_back(p);
            m_lrMult.push_back(g.lrMult);
        }
        m_groupEnd.push_back(m_params.size());
    }
    const bool needsFirst = config.name == "adamw" || config.momentum != 0.0f;
    for (Param* p : m_params) {
        if (needsFirst) {
            m_buf1.push_back(backend.empty(p->value.shape(), DType::F32));
            backend.fill(m_buf1.back(), 0.0f);
        }
        if (config.name == "adamw") {
            m_buf2.push_back(backend.empty(p->value.shape(), DType::F32));
            backend.fill(m_buf2.back(), 0.0f);
        }
    }
    m_skipped = backend.empty({1}, DType::F32);
    backend.fill(m_skipped, 0.0f);
    m_skippedHost = Tensor::host({1}, DType::F32);
}

float Optimizer::biasLr(float lr, float warmupLeft) const {
    // np.interp(step, [0, warmup], [warmup_bias_lr, lr]) as Ultralytics writes it: the schedule's
    // warm-up rate is lr * (1 - warmupLeft).
    return lr + m_config.warmupBiasLr * warmupLeft;
}

float Optimizer::momentum(float warmupLeft) const {
    if (m_config.warmupMomentum <= 0.0f)
        return m_config.momentum;
    return m_config.momentum - (m_config.momentum - m_config.warmupMomentum) * warmupLeft;
}

void Optimizer::step(float lr, const Tensor* scaleState, const Tensor* foundInf, float warmupLeft) {
    ++m_calls;
    std::size_t group = 0;
    const float momentumNow = momentum(warmupLeft);
    for (std::size_t i = 0; i < m_params.size(); ++i) {
        Param& p = *m_params[i];
        const float decay = p.decay ? m_config.weightDecay : 0.0f;
        const float groupLr = (p.name == "bias" ? biasLr(lr, warmupLeft) : lr) * m_lrMult[i];
        if (m_config.name == "sgd") {
            SgdParams sp{groupLr, momentumNow, decay, m_config.nesterov};
            m_backend.sgdStep(p.value, p.grad, m_buf1.empty() ? nullptr : &m_buf1[i], sp,
                              scaleState, foundInf);
        } else {
            AdamWParams ap{groupLr, m_config.beta1, m_config.beta2, m_config.eps, decay, m_calls};
            m_backend.adamwStep(p.value, p.grad, m_buf1[i], m_buf2[i], ap, scaleState, foundInf,
                                &m_skipped);
        }
        for (; m_timeline && group < m_groupEnd.size() && m_groupEnd[group] <= i + 1; ++group)
            if (!m_groups[group].params.empty()) // an empty group has no span
                m_timeline->mark(spanName(group), SpanKind::Phase);
    }
    if (foundInf) // after every update of this step has read the count
        m_backend.add(m_skipped, *foundInf, m_skipped);
}

std::string Optimizer::spanName(std::size_t group) const {
    return m_groups.size() == 1 ? "optimizer" : "optimizer: " + m_groups.at(group).name;
}

int64_t Optimizer::steps() {
    m_backend.copy(m_skipped, m_skippedHost);
    return m_calls - static_cast<int64_t>(m_skippedHost.data<float>()[0]);
}

void Optimizer::setSteps(int64_t steps) {
    m_calls = steps;
    m_backend.fill(m_skipped, 0.0f);
}

std::vector<std::pair<std::string, Tensor*>> Optimizer::state() {
    std::vector<std::pair<std::string, Tensor*>> out;
    const char* first = m_config.name == "sgd" ? "momentum_buffer" : "exp_avg";
    for (std::size_t i = 0; i < m_buf1.size(); ++i)
        out.emplace_back(std::to_string(i) + "." + first, &m_buf1[i]);
    for (std::size_t i = 0; i < m_buf2.size(); ++i)
        out.emplace_back(std::to_string(i) + ".exp_avg_sq", &m_buf2[i]);
    return out;
}

} // namespace tb
