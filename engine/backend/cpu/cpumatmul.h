// oneDNN matmul primitives for the dense layers, created once per shape and reused.
#pragma once

#include <cstdint>
#include <memory>

namespace tb {

class CpuMatmulCache {
public:
    CpuMatmulCache();
    ~CpuMatmulCache();

    // y(n, out) = x(n, in) w(out, in)^T + b(out); b may be null.
    void forward(int64_t n, int64_t in, int64_t out, const float* x, const float* w, const float* b,
                 float* y);
    // dx(n, in) = dy w, when dx is not null.
    void backwardData(int64_t n, int64_t in, int64_t out, const float* dy, const float* w,
                      float* dx);
    // dw(out, in) += dy^T x (accumulated by the primitive's sum post-op).
    void backwardWeights(int64_t n, int64_t in, int64_t out, const float* dy, const float* x,
                         float* dw);
    void clear();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
