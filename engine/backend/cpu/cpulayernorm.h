// oneDNN layer normalization primitives over the last dimension, created once per shape.
#pragma once

#include <cstdint>
#include <memory>

namespace tb {

class CpuLayerNormCache {
public:
    CpuLayerNormCache();
    ~CpuLayerNormCache();

    // Everything f32 and plain: x, y, dy, dx (m, d); gamma, beta, dgamma, dbeta (d); mean and
    // variance (m). forward writes y, mean and variance; backward writes dx and overwrites
    // dgamma and dbeta (the caller accumulates). backward does not read the shift, but oneDNN
    // 2.6 refuses to run without one: any d floats do.
    void forward(int64_t m, int64_t d, float eps, const float* x, const float* gamma,
                 const float* beta, float* y, float* mean, float* variance);
    void backward(int64_t m, int64_t d, float eps, const float* x, const float* dy,
                  const float* gamma, const float* shift, const float* mean, const float* variance,
                  float* dx, float* dgamma, float* dbeta);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
