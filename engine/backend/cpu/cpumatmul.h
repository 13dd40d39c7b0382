// oneDNN matmul primitives for the dense layers, created once per shape and reused.
#pragma once

#include "core/dtype.h"

#include <cstdint>
#include <memory>

namespace tb {

class CpuMatmulCache {
public:
    CpuMatmulCache();
    ~CpuMatmulCache();

    // x, w, y, dy and dx are in `act` (f32, or bf16 computed with f32 accumulation); b is f32,
    // and so is dw, which accumulates into the f32 master gradient.
    // y(n, out) = x(n, in) w(out, in)^T + b(out); b may be null.
    void forward(DType act, int64_t n, int64_t in, int64_t out, const void* x, const void* w,
                 const float* b, void* y);
    // dx(n, in) = dy w.
    void backwardData(DType act, int64_t n, int64_t in, int64_t out, const void* dy, const void* w,
                      void* dx);
    // dw(out, in) += dy^T x (accumulated by the primitive's sum post-op).
    void backwardWeights(DType act, int64_t n, int64_t in, int64_t out, const void* dy,
                         const void* x, float* dw);
    void clear();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
