// Shape descriptions of the ops whose geometry matters (convolution and pooling), and the
// activation layout a backend is asked to keep.
#pragma once

#include "core/hostdevice.h"

#include <cstdint>

namespace tb {

// memory_format: the layout oneDNN prefers on this CPU, or NHWC (PyTorch's channels_last).
enum class MemoryFormat { Auto, ChannelsLast };

// conv_algorithm: Winograd's for the convolutions where the CPU backend finds it faster, or
// the direct algorithm everywhere (every tap multiplied, as PyTorch's CPU convolutions do).
enum class ConvAlgorithm { Auto, Direct };

// Convolution shapes a backend has set up, and how many of them compute by Winograd.
struct ConvAlgorithmCounts {
    int shapes = 0, winograd = 0;
};

// Output positions of a sliding window; 0 when the kernel does not fit the padded input (plain
// integer division would round -1/2 up to 0 and report one position).
constexpr int64_t slidingOutput(int64_t size, int64_t kernel, int64_t stride, int64_t pad) {
    const int64_t span = size + 2 * pad - kernel;
    return span < 0 ? 0 : span / stride + 1;
}

// 2-D convolution, NCHW input (n, c, h, w), KCRS weights (k, c / groups, r, s). Groups split the
// channels into that many independent convolutions (groups = c = k: depthwise). Dilation spaces
// the kernel's taps `dilation` apart (PyTorch's convention: 1 is a dense kernel), so an r-tap
// kernel spans dilation * (r - 1) + 1 inputs.
struct ConvDesc {
    int64_t n = 0, c = 0, h = 0, w = 0;
    int64_t k = 0, r = 0, s = 0;
    int64_t stride = 1, pad = 0;
    int64_t groups = 1;
    int64_t dilation = 1;
    int64_t spanR() const { return dilation * (r - 1) + 1; }
    int64_t spanS() const { return dilation * (s - 1) + 1; }
    int64_t outH() const { return slidingOutput(h, spanR(), stride, pad); }
    int64_t outW() const { return slidingOutput(w, spanS(), stride, pad); }
    int64_t weightCount() const { return k * (c / groups) * r * s; }
    bool operator==(const ConvDesc&) const = default;
};

enum class PoolKind { Max, Avg };

// Adaptive pooling's bins, as PyTorch's AdaptiveAvgPool2d: output i of `out` covers inputs
// [floor(i * in / out), ceil((i + 1) * in / out)) of `in`. Bins differ in size and may overlap;
// an output larger than the input repeats inputs.
TB_HD constexpr int64_t adaptiveBegin(int64_t i, int64_t in, int64_t out) {
    return i * in / out;
}
TB_HD constexpr int64_t adaptiveEnd(int64_t i, int64_t in, int64_t out) {
    return ((i + 1) * in + out - 1) / out;
}

// 2-D pooling over NCHW; average pooling counts padding like PyTorch's default
// (count_include_pad=True). Global average pooling is kernel = h x w. Adaptive average pooling
// (adaptiveH, adaptiveW > 0) has that output size and adaptiveBegin/End's bins, each averaged
// over its own area; kh, kw, stride and pad are then unused.
struct PoolDesc {
    PoolKind kind = PoolKind::Max;
    int64_t n = 0, c = 0, h = 0, w = 0;
    int64_t kh = 2, kw = 2, stride = 2, pad = 0;
    int64_t adaptiveH = 0, adaptiveW = 0;
    bool adaptive() const { return adaptiveH > 0 || adaptiveW > 0; }
    int64_t outH() const { return adaptive() ? adaptiveH : slidingOutput(h, kh, stride, pad); }
    int64_t outW() const { return adaptive() ? adaptiveW : slidingOutput(w, kw, stride, pad); }
    // As PyTorch: padding at most half the kernel, so no window lies wholly in the padding (a
    // max-pool window there would have no argmax). Adaptive pooling here is average pooling.
    bool valid() const {
        if (adaptive())
            return kind == PoolKind::Avg && adaptiveH > 0 && adaptiveW > 0 && h > 0 && w > 0;
        return kh > 0 && kw > 0 && stride > 0 && pad >= 0 && 2 * pad <= kh && 2 * pad <= kw &&
               outH() > 0 && outW() > 0;
    }
    bool operator==(const PoolDesc&) const = default;
};

// Causal multi-head self-attention over qkv(n, t, 3 * heads * headDim), the c_attn projection's
// output: for each head, its query, key and value are the columns [h * headDim, (h + 1) *
// headDim) of the first, second and third thirds. Scores are scaled by 1/sqrt(headDim);
// position i attends to positions 0..i. Dropout (probability `dropout`) drops attention
// weights after the softmax, keep drawn from (seed, index into probs) as dropoutForward does.
struct AttentionDesc {
    int64_t n = 0, t = 0, heads = 0, headDim = 0;
    float dropout = 0.0f;
    uint64_t seed = 0;
    TB_HD constexpr int64_t width() const { return heads * headDim; }
    TB_HD constexpr int64_t probsCount() const { return n * heads * t * t; } // saved softmax, f32
    bool operator==(const AttentionDesc&) const = default;
};

// GELUTanh: GELU's tanh approximation (PyTorch's approximate='tanh', GPT-2's). SiLU: x sigmoid(x)
// (PyTorch's nn.SiLU, YOLOv8's activation).
enum class Activation { ReLU, LeakyReLU, GELU, ReLU6, GELUTanh, SiLU };

struct SgdParams {
    float lr = 0.01f;
    float momentum = 0.0f;
    float weightDecay = 0.0f;
    bool nesterov = false;
};

struct AdamWParams {
    float lr = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    float weightDecay = 0.01f;
    int64_t step = 1; // 1-based step count for bias correction
};

} // namespace tb
