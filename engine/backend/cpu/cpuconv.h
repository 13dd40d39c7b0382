// oneDNN convolution primitives for the CPU backend, created once per shape and reused.
#pragma once

#include "backend/opdesc.h"
#include "core/tensor.h"

#include <memory>
#include <vector>

namespace tb {

class CpuConvCache {
public:
    CpuConvCache();
    ~CpuConvCache();

    // y = conv(x, w) + b, all f32 NCHW / KCRS.
    void forward(const ConvDesc& d, const float* x, const float* w, const float* b, float* y);
    // dx = backward-data (when dx is not null); dw += backward-filter; db += bias gradient.
    void backward(const ConvDesc& d, const float* x, const float* w, const float* dy, float* dx,
                  float* dw, float* db);
    void clear();
    // oneDNN reorders run (between our NCHW and the primitives' blocked layouts) since the
    // last reset.
    int64_t reorders() const;
    void resetReorders();

private:
    struct Entry;
    Entry& entry(const ConvDesc& d, bool bias);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
