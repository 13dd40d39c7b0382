// BatchNorm2d over a data-parallel job's whole batch (PyTorch's SyncBatchNorm), written with
// the backend's batch-norm ops and two small sums over the ranks per layer and step: one of
// the statistics in forward, one of backward's per-channel sums. The per-channel values cross
// through host memory; the activations never leave the device.
#include "nn/norm.h"

#include "nn/layerutil.h"

#include <cmath>

namespace tb {

namespace {

std::vector<float> toHost(Backend& b, const Tensor& t) {
    Tensor host = Tensor::host(t.shape(), DType::F32);
    b.copy(t, host);
    return {host.data<float>(), host.data<float>() + host.numel()};
}

void fromHost(Backend& b, const std::vector<double>& values, Tensor& t) {
    Tensor host = Tensor::host(t.shape(), DType::F32);
    for (std::size_t i = 0; i < values.size(); ++i)
        host.data<float>()[i] = static_cast<float>(values[i]);
    b.copy(host, t);
}

} // namespace

void BatchNorm2d::forwardSynchronised(Backend& b, const Tensor& x, Tensor& out) {
    const auto c = static_cast<std::size_t>(x.dim(1));
    const double n = static_cast<double>(x.numel()) / static_cast<double>(c);
    // This rank's mean and unbiased variance: a training pass with momentum 1 leaves them in
    // the "running" statistics it is given (filled first: 0 x NaN would stay NaN). The output
    // it writes is overwritten below.
    b.fill(m_channelA, 0.0f);
    b.fill(m_channelB, 1.0f);
    b.batchNormForwardTrain(x, m_gamma.value, m_beta.value, m_channelA, m_channelB, 1.0f, m_eps,
                            out, m_saveMean, m_saveInvStd);
    const std::vector<float> mean = toHost(b, m_channelA), var = toHost(b, m_channelB);

    // Every rank's count, means and sums of squared deviations side by side, zero in the other
    // ranks' slots, so the sum over the ranks gathers them all; each rank then merges them in
    // rank order (Chan et al.'s pairwise update), the same arithmetic everywhere.
    const std::size_t slot = 1 + 2 * c;
    std::vector<double> all(slot * static_cast<std::size_t>(m_group.size), 0.0);
    double* mine = all.data() + slot * static_cast<std::size_t>(m_group.rank);
    mine[0] = n;
    for (std::size_t ch = 0; ch < c; ++ch) {
        mine[1 + ch] = mean[ch];
        mine[1 + c + ch] = n > 1 ? var[ch] * (n - 1) : 0.0; // var is unbiased
    }
    m_group.sum(all);
    std::vector<double> jobMean(c, 0.0), m2(c, 0.0);
    double count = 0.0;
    for (int r = 0; r < m_group.size; ++r) {
        const double* theirs = all.data() + slot * static_cast<std::size_t>(r);
        const double nr = theirs[0];
        if (nr == 0.0)
            continue;
        const double total = count + nr;
        for (std::size_t ch = 0; ch < c; ++ch) {
            const double delta = theirs[1 + ch] - jobMean[ch];
            jobMean[ch] += delta * nr / total;
            m2[ch] += theirs[1 + c + ch] + delta * delta * count * nr / total;
        }
        count = total;
    }
    m_localCount = n;
    m_jobCount = count;

    std::vector<double> biased(c), invStd(c), runningMean(c), runningVar(c);
    const std::vector<float> oldMean = toHost(b, m_runningMean), oldVar = toHost(b, m_runningVar);
    for (std::size_t ch = 0; ch < c; ++ch) {
        biased[ch] = m2[ch] / count;
        invStd[ch] = 1.0 / std::sqrt(biased[ch] + m_eps);
        const double unbiased = count > 1 ? m2[ch] / (count - 1) : biased[ch];
        runningMean[ch] = (1.0 - m_momentum) * oldMean[ch] + m_momentum * jobMean[ch];
        runningVar[ch] = (1.0 - m_momentum) * oldVar[ch] + m_momentum * unbiased;
    }
    fromHost(b, jobMean, m_saveMean);
    fromHost(b, invStd, m_saveInvStd);
    fromHost(b, biased, m_jobVar);
    fromHost(b, runningMean, m_runningMean);
    fromHost(b, runningVar, m_runningVar);
    // Normalising with given statistics is what evaluation does; here they are the job's.
    if (fusedRelu())
        b.batchNormReluForwardInference(x, m_gamma.value, m_beta.value, m_saveMean, m_jobVar, m_eps,
                                        out);
    else
        b.batchNormForwardInference(x, m_gamma.value, m_beta.value, m_saveMean, m_jobVar, m_eps,
                                    out);
}

void BatchNorm2d::backwardSynchronised(Backend& b, const Tensor& x, const Tensor& out,
                                       const Tensor& dout, Tensor& dx) {
    // This rank's backward with the job's mean and 1/std: dgamma and dbeta are its sums of
    // dy * xhat and dy (data-parallel training then averages them, as PyTorch's does), and
    // dx is right but for the count: it subtracts this rank's mean gradient terms.
    b.fill(m_channelA, 0.0f);
    b.fill(m_channelB, 0.0f);
    if (fusedRelu()) // dout is the fused ReLU's gradient buffer: ours to overwrite (graph.cpp)
        b.batchNormReluBackward(x, out, const_cast<Tensor&>(dout), m_gamma.value, m_saveMean,
                                m_saveInvStd, m_eps, dx, m_channelB, m_channelA);
    else
        b.batchNormBackward(x, dout, m_gamma.value, m_saveMean, m_saveInvStd, m_eps, dx, m_channelB,
                            m_channelA);
    b.add(m_gamma.grad, m_channelB, m_gamma.grad);
    b.add(m_beta.grad, m_channelA, m_beta.grad);
    if (&dx == &m_unusedInputGrad)
        return;

    const auto c = static_cast<std::size_t>(x.dim(1));
    const std::vector<float> sumDy = toHost(b, m_channelA), sumDyXhat = toHost(b, m_channelB);
    std::vector<double> job(2 * c);
    for (std::size_t ch = 0; ch < c; ++ch) {
        job[ch] = sumDy[ch];
        job[c + ch] = sumDyXhat[ch];
    }
    m_group.sum(job);
    // The job's dx is gamma/std * (dy - sum(dy)/N - xhat * sum(dy xhat)/N) over all N values
    // of every rank; this rank's differs from it by gamma/std * (a + b * xhat) per channel,
    // which is batch norm's evaluation formula with weight gamma/std * b and bias
    // gamma/std * a, normalising with the same statistics: computed that way and added.
    const std::vector<float> gamma = toHost(b, m_gamma.value), invStd = toHost(b, m_saveInvStd);
    std::vector<double> weight(c), bias(c);
    for (std::size_t ch = 0; ch < c; ++ch) {
        const double k = static_cast<double>(gamma[ch]) * invStd[ch];
        bias[ch] = k * (sumDy[ch] / m_localCount - job[ch] / m_jobCount);
        weight[ch] = k * (sumDyXhat[ch] / m_localCount - job[c + ch] / m_jobCount);
    }
    fromHost(b, weight, m_channelA);
    fromHost(b, bias, m_channelB);
    ensureTensor(b, m_correction, x.shape(), dx.dtype());
    b.batchNormForwardInference(x, m_channelA, m_channelB, m_saveMean, m_jobVar, m_eps,
                                m_correction);
    b.add(dx, m_correction, dx);
}

} // namespace tb
