// oneDNN convolution primitives for the CPU backend, created once per shape and reused.
#pragma once

#include "backend/opdesc.h"
#include "core/dtype.h"

#include <memory>
#include <vector>

namespace tb {

class CpuConvCache {
public:
    CpuConvCache();
    ~CpuConvCache();

    // y = conv(x, w) + b. x, y (and dy, dx) are NCHW in `act`, f32 or bf16; w, b, dw, db are
    // the f32 master parameters (KCRS). With bf16 activations the primitives compute in bf16
    // with f32 accumulation and read a bf16 copy of w that the weight reorder makes anyway.
    void forward(const ConvDesc& d, DType act, const void* x, const float* w, const float* b,
                 void* y);
    // dx = backward-data (when dx is not null); dw += backward-filter; db += bias gradient.
    void backward(const ConvDesc& d, DType act, const void* x, const float* w, const void* dy,
                  void* dx, float* dw, float* db);
    void clear();
    // oneDNN reorders run (between our NCHW and the primitives' blocked layouts) since the
    // last reset.
    int64_t reorders() const;
    void resetReorders();

private:
    struct Entry;
    Entry& entry(const ConvDesc& d, DType act, bool bias);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
