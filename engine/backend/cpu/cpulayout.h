// Activation layouts on the CPU. oneDNN's convolutions pick the layout they compute fastest in
// on this ISA (format "any"): nChw16c on AVX-512, nChw8c on AVX2, channels-last (NHWC) for
// bf16 on AMX, or channels-last when memory_format=channels_last asks for it. Batch norm,
// ReLU, the add, pooling and the shortcut work in each, so a conv -> batch norm -> ReLU ->
// add -> conv chain keeps the convolutions' layout and needs no reorders between them.
// A buffer's Buffer::layout() is its channel block (8 or 16), kChannelsLast, or 0 for plain
// NCHW; every layout holds the same number of values, so they share one allocation.
#pragma once

#include "core/tensor.h"

#include <dnnl.hpp>

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace tb {

// Buffer::layout() of an NHWC activation: channels innermost, one block of all C channels.
constexpr int kChannelsLast = 1;

inline int layoutOf(const Tensor& t) {
    return t.buffer()->layout();
}
inline void setLayout(const Tensor& t, int layout) {
    t.buffer()->setLayout(layout);
}

// The channels that lie together, innermost, in `layout` for c channels: the block, all c for
// channels-last, 1 for plain NCHW.
inline int64_t channelRun(int layout, int64_t c) {
    return layout == kChannelsLast ? c : layout == 0 ? 1 : layout;
}

// Whether an activation of c channels can be held in `layout` (a block must fill whole blocks).
inline bool layoutFits(int layout, int64_t c) {
    return layout == 0 || layout == kChannelsLast || c % layout == 0;
}

// oneDNN reorders run, by what they moved: activations (or their gradients) between layouts,
// which the layouts above exist to avoid; the input batch into the first convolution's layout
// (once per step where that is not plain NCHW, as on AMX); and weights into the layout a
// primitive computes in, which every step needs once per convolution and direction.
struct ReorderCounts {
    int64_t activations = 0;
    int64_t inputs = 0;
    int64_t weights = 0;
    int64_t total() const { return activations + inputs + weights; }
};

// "nchw", "nChw16c", "nChw8c" or "nhwc": a layout as oneDNN's format tags name it.
std::string layoutName(int layout);

// Where the values of one channel plane (image i, channel ch; plane = i * c + ch) of an
// (N, C, H, W) activation lie in `layout`: from base(plane), every stride()-th value.
// Kernels that walk planes (pooling, the shortcut) use it to read and write any layout.
struct PlaneIndex {
    int64_t c, hw;
    int layout;
    int64_t base(int64_t plane) const {
        if (layout == 0)
            return plane * hw;
        const int64_t b = channelRun(layout, c), i = plane / c, ch = plane % c;
        return (i * (c / b) + ch / b) * hw * b + ch % b;
    }
    int64_t stride() const { return layout == 0 ? 1 : channelRun(layout, c); }
};

// The layout an op that walks planes gives its output, which costs it nothing either way:
// `wanted` (its input's layout, or the convolutions' layout for a plain input) when the output
// may hold it (mayBlock) and its channels fit it, else plain. Planes of one value (a global
// average pool's output) are plain: there every layout stores the values in NCHW order, and
// plain is what the classifier after it reads.
inline int planeOutputLayout(int wanted, const Tensor& out, bool mayBlock) {
    return wanted != 0 && mayBlock && out.shape().rank() == 4 && layoutFits(wanted, out.dim(1)) &&
                   out.dim(2) * out.dim(3) > 1
               ? wanted
               : 0;
}

dnnl::memory::data_type dnnlType(DType t);

// The descriptor of a 4-d activation in `layout` (a Buffer::layout() value).
dnnl::memory::desc activationDesc(const Shape& s, DType t, int layout);

// The Buffer::layout() that `d` is for an activation of shape s (8, 16 or kChannelsLast), or 0
// when it is plain NCHW or a layout a tensor is not kept in (the caller then reorders).
int layoutFromDesc(const dnnl::memory::desc& d, const Shape& s, DType t);

// Reorders from a kept layout to plain activations, one cached primitive per shape, dtype and
// layout; adds every reorder it runs to *reorders.
class CpuLayoutConverter {
public:
    CpuLayoutConverter(const dnnl::engine& engine, int64_t* reorders)
        : m_engine(engine), m_stream(engine), m_reorders(reorders) {}

    // The values of `laidOut` (an activation of shape s and type `from`, in `layout`) written
    // plainly to `plain` as type `to` (f32 or bf16 each).
    void toPlain(const void* laidOut, void* plain, const Shape& s, DType from, DType to,
                 int layout);
    void clear() { m_primitives.clear(); }

private:
    dnnl::engine m_engine;
    dnnl::stream m_stream;
    int64_t* m_reorders;
    std::map<std::tuple<std::vector<int64_t>, DType, DType, int>, dnnl::reorder> m_primitives;
};

} // namespace tb
