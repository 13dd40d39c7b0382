// Batch normalisation over activations kept in a convolution's layout (cpulayout.h): channel-
// blocked nChw8c / nChw16c, or channels-last NHWC, so a convolution's output is normalised where
// it lies. Work is split into planes of (image, group of B channels): hw rows of B channels
// each, the B channels contiguous, so loops vectorise across the group and even a single group
// of 16 channels uses every thread. Sums accumulate in double, as PyTorch's CPU kernels do: a
// float sum over a large batch loses the digits that the mean, variance and gradient need.
#pragma once

#include "core/dtype.h"

#include <cstdint>

namespace tb::blockedbn {

struct Dims {
    int64_t n, c, hw;
    int layout; // Buffer::layout(): 8, 16 or kChannelsLast
};

// Whether these kernels take an activation of this geometry (channels-last needs c to be a
// multiple of 8; a block always fits).
bool supports(const Dims& d);

struct Stats {
    float* saveMean;
    float* saveInvStd;
    float* runningMean;
    float* runningVar;
    float momentum, eps;
};

// x, y, dy and dx hold `t` values (f32 or bf16); parameters and statistics are f32. With
// relu, y = max(batch norm, 0) in the same pass.
void forwardTrain(const Dims& d, DType t, const void* x, const float* gamma, const float* beta,
                  const Stats& stats, bool relu, void* y);
void forwardInference(const Dims& d, DType t, const void* x, const float* gamma, const float* beta,
                      const float* runningMean, const float* runningVar, float eps, bool relu,
                      void* y);
// dx = gamma * invStd / M * (M * dy - sum(dy) - xhat * sum(dy * xhat)); dgamma, dbeta +=.
// With reluMask (the fused ReLU's output, else null), dy counts only where it is positive.
void backward(const Dims& d, DType t, const void* x, const void* dy, const void* reluMask,
              const float* gamma, const float* saveMean, const float* saveInvStd, void* dx,
              float* dgamma, float* dbeta);

} // namespace tb::blockedbn
