// oneDNN convolution primitives for the CPU backend, created once per shape and reused.
#pragma once

#include "backend/opdesc.h"
#include "core/dtype.h"

#include <dnnl.hpp>

#include <memory>
#include <vector>

namespace tb {

// Activation data and its Buffer::layout() (0 plain NCHW, else the channel block).
struct LaidOut {
    const void* data;
    int layout;
};

class CpuConvCache {
public:
    // Every reorder run adds one to *reorders.
    CpuConvCache(const dnnl::engine& engine, int64_t* reorders);
    ~CpuConvCache();

    // y = conv(x, w) + b. x, y (and dy, dx) are NCHW in `act`, f32 or bf16; w, b, dw, db are
    // the f32 master parameters (KCRS). With bf16 activations the primitives compute in bf16
    // with f32 accumulation and read a bf16 copy of w that the weight reorder makes anyway.
    // With keepBlocked, y may be left in the primitive's blocked layout; returns y's layout.
    int forward(const ConvDesc& d, DType act, LaidOut x, const float* w, const float* b, void* y,
                bool keepBlocked);
    // dx = backward-data (when dx is not null; returns its layout, as forward does for y);
    // dw += backward-filter; db += bias gradient.
    int backward(const ConvDesc& d, DType act, LaidOut x, const float* w, LaidOut dy, void* dx,
                 bool keepBlocked, float* dw, float* db);
    void clear();

private:
    struct Entry;
    Entry& entry(const ConvDesc& d, DType act, bool bias);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
