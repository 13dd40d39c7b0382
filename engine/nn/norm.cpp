// BatchNorm2d layer.
#include "nn/norm.h"

#include "nn/layerutil.h"

namespace tb {

BatchNorm2d::BatchNorm2d(const nlohmann::json& spec)
    : m_momentum(floatOption(spec, "momentum", 0.1f, {0.0, 1.0})),
      m_eps(floatOption(spec, "eps", 1e-5f, {0.0, 1.0, /*minOpen=*/true})) {}

void BatchNorm2d::init(Backend& b, const std::vector<Shape>& in, uint64_t) {
    if (in[0].rank() != 4)
        layerError(name(), "expects (N, C, H, W) input, got " + in[0].toString());
    const Shape s{in[0][1]};
    for (Tensor* t :
         {&m_gamma.value, &m_gamma.grad, &m_beta.value, &m_beta.grad, &m_runningMean, &m_runningVar,
          &m_saveMean, &m_saveInvStd, &m_jobVar, &m_channelA, &m_channelB})
        *t = b.empty(s, DType::F32);
    b.fill(m_gamma.value, 1.0f);
    b.fill(m_beta.value, 0.0f);
    b.fill(m_runningMean, 0.0f);
    b.fill(m_runningVar, 1.0f);
}

void BatchNorm2d::synchronise(RankGroup group) {
    m_group = std::move(group);
}

std::vector<StateBuffer> BatchNorm2d::buffers() {
    return {{"running_mean", &m_runningMean}, {"running_var", &m_runningVar}};
}

nlohmann::json BatchNorm2d::options() const {
    return {{"momentum", m_momentum}, {"eps", m_eps}};
}

void BatchNorm2d::forward(Backend& b, const Inputs& in, Tensor& out, bool training) {
    training = training && !frozen(); // frozen: the running statistics normalise, unchanged
    if (training && m_group.size > 1)
        forwardSynchronised(b, *in[0], out);
    else if (training && fusedRelu())
        b.batchNormReluForwardTrain(*in[0], m_gamma.value, m_beta.value, m_runningMean,
                                    m_runningVar, m_momentum, m_eps, out, m_saveMean, m_saveInvStd);
    else if (training)
        b.batchNormForwardTrain(*in[0], m_gamma.value, m_beta.value, m_runningMean, m_runningVar,
                                m_momentum, m_eps, out, m_saveMean, m_saveInvStd);
    else if (fusedRelu())
        b.batchNormReluForwardInference(*in[0], m_gamma.value, m_beta.value, m_runningMean,
                                        m_runningVar, m_eps, out);
    else
        b.batchNormForwardInference(*in[0], m_gamma.value, m_beta.value, m_runningMean,
                                    m_runningVar, m_eps, out);
}

void BatchNorm2d::backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                           const std::vector<Tensor*>& din) {
    Tensor* dx = din[0];
    if (!dx) { // first layer: the parameters still learn, the input's gradient is dropped
        ensureTensor(b, m_unusedInputGrad, in[0]->shape(), in[0]->dtype());
        dx = &m_unusedInputGrad;
    }
    if (m_group.size > 1)
        backwardSynchronised(b, *in[0], out, dout, *dx);
    else if (fusedRelu()) // dout is the fused ReLU's gradient buffer: ours to overwrite (graph.cpp)
        b.batchNormReluBackward(*in[0], out, const_cast<Tensor&>(dout), m_gamma.value, m_saveMean,
                                m_saveInvStd, m_eps, *dx, m_gamma.grad, m_beta.grad);
    else
        b.batchNormBackward(*in[0], dout, m_gamma.value, m_saveMean, m_saveInvStd, m_eps, *dx,
                            m_gamma.grad, m_beta.grad);
}

} // namespace tb
