// oneDNN convolution primitives for the CPU backend, created once per shape and reused.
#pragma once

#include "backend/cpu/cpulayout.h"
#include "backend/opdesc.h"
#include "core/dtype.h"

#include <dnnl.hpp>

#include <memory>
#include <vector>

namespace tb {

// Activation data and its Buffer::layout() (0 plain NCHW, else the kept layout). `external`:
// memory the backend did not allocate (the data batch), whose reorders count as the input's.
struct LaidOut {
    const void* data;
    int layout;
    bool external = false;
};

class CpuConvCache {
public:
    // Every reorder run adds one to *reorders, by what it moved.
    CpuConvCache(const dnnl::engine& engine, ReorderCounts* reorders);
    ~CpuConvCache();

    // With channelsLast, activations are asked for in NHWC (as torch.channels_last) instead of
    // the layout oneDNN prefers on this ISA. Clears the cache when it changes.
    void setChannelsLast(bool on);
    // With winograd (the default), 3x3 stride-1 f32 convolutions with enough channels
    // (winogradFits) compute by Winograd's F(4x4, 3x3) where oneDNN has it for this CPU: 2 to 3
    // times faster on AVX-512, within 1-2e-6 of the largest output where the direct algorithm
    // is within 3-5e-7 (measured against double sums). Never with channelsLast (oneDNN's
    // Winograd reads nChw16c only). Clears the cache when it changes.
    void setWinograd(bool on);
    // Whether a convolution is one Winograd is tried for: f32 (bf16 the CPU only emulates
    // arrives here as f32), 3x3, stride 1, dense, not grouped, channels in and out multiples of
    // 16 (oneDNN's kernel's) and at least kWinogradMinChannels (below that it lost to direct).
    static bool winogradFits(const ConvDesc& d, DType act);
    static constexpr int64_t kWinogradMinChannels = 32;
    // The shapes set up so far, and how many of them compute by Winograd.
    ConvAlgorithmCounts algorithmCounts() const;

    // y = conv(x, w) + b. x, y (and dy, dx) are NCHW in `act`, f32 or bf16; w, b, dw, db are
    // the f32 master parameters (KCRS). With bf16 activations the primitives compute in bf16
    // with f32 accumulation and read a bf16 copy of w that the weight reorder makes anyway.
    // With keepBlocked, y may be left in the primitive's blocked layout; returns y's layout.
    int forward(const ConvDesc& d, DType act, LaidOut x, const float* w, const float* b, void* y,
                bool keepBlocked);
    // dx = backward-data (when dx is not null; returns its layout, as forward does for y);
    // dw += backward-filter; db += bias gradient. With xAsInForward (x is the very tensor
    // forward read, unchanged since: not a scratch copy that other ops reuse), backward-filter
    // reads x from forward's reordered copy where forward had to reorder it.
    int backward(const ConvDesc& d, DType act, LaidOut x, const float* w, LaidOut dy, void* dx,
                 bool keepBlocked, float* dw, float* db, bool xAsInForward);
    void clear();

private:
    struct Entry;
    Entry& entry(const ConvDesc& d, DType act, bool bias, bool inputLayer);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb
