// Batch normalisation over channel-blocked activations (nChw8c / nChw16c, cpulayout.h), so a
// convolution's blocked output is normalised where it lies. Each (image, channel block) plane
// is hw x B values with the B channels innermost: loops vectorise across the block, and work
// splits over planes, so even a single block of 16 channels uses every thread.
#pragma once

#include "core/dtype.h"

#include <cstdint>

namespace tb::blockedbn {

struct Dims {
    int64_t n, c, hw;
    int block;
};

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
