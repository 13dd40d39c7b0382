// Channel-blocked activations on the CPU. oneDNN's convolutions read and write nChw16c (on
// AVX-512; nChw8c on AVX2) natively, so a conv -> batch norm -> ReLU -> add -> conv chain that
// stays blocked needs no reorders between them. A buffer's Buffer::layout() is its block size
// (8 or 16), or 0 for plain NCHW; a tensor is kept blocked only when its channels fill whole
// blocks, so blocked and plain hold the same number of values and share one allocation.
#pragma once

#include "core/tensor.h"

#include <dnnl.hpp>

#include <map>
#include <tuple>
#include <vector>

namespace tb {

inline int layoutOf(const Tensor& t) {
    return t.buffer()->layout();
}
inline void setLayout(const Tensor& t, int layout) {
    t.buffer()->setLayout(layout);
}

// Where the values of one channel plane (image i, channel ch; plane = i * c + ch) of an
// (N, C, H, W) activation lie in layout `block`: from base(plane), every stride()-th value.
// Kernels that walk planes (pooling, the shortcut) use it to read and write either layout.
struct PlaneIndex {
    int64_t c, hw;
    int block;
    int64_t base(int64_t plane) const {
        if (block == 0)
            return plane * hw;
        const int64_t i = plane / c, ch = plane % c;
        return (i * (c / block) + ch / block) * hw * block + ch % block;
    }
    int64_t stride() const { return block == 0 ? 1 : block; }
};

// The layout an op that walks planes gives its output, which costs it nothing either way:
// `wanted` (its input's layout, or the convolutions' block for a plain input) when the output
// may hold it (mayBlock) and its channels fill whole blocks, else plain.
inline int planeOutputLayout(int wanted, const Tensor& out, bool mayBlock) {
    return wanted != 0 && mayBlock && out.shape().rank() == 4 && out.dim(1) % wanted == 0 ? wanted
                                                                                          : 0;
}

dnnl::memory::data_type dnnlType(DType t);

// The nChw{block}c descriptor of a 4-d activation, or the plain nchw one for block 0.
dnnl::memory::desc activationDesc(const Shape& s, DType t, int block);

// The block size (8 or 16) when `d` is the plain-sized blocked layout of a 4-d activation of
// shape s, else 0: what a primitive's chosen layout means as a Buffer::layout().
int blockOf(const dnnl::memory::desc& d, const Shape& s, DType t);

// Reorders between blocked and plain activations, one cached primitive per shape, dtype and
// block; counts every reorder it runs.
class CpuLayoutConverter {
public:
    CpuLayoutConverter(const dnnl::engine& engine, int64_t* reorders)
        : m_engine(engine), m_stream(engine), m_reorders(reorders) {}

    // The values of `blocked` (an activation of shape s and type `from`, laid out in block
    // `block`) written plainly to `plain` as type `to` (f32 or bf16 each).
    void toPlain(const void* blocked, void* plain, const Shape& s, DType from, DType to, int block);
    void clear() { m_primitives.clear(); }

private:
    dnnl::engine m_engine;
    dnnl::stream m_stream;
    int64_t* m_reorders;
    std::map<std::tuple<std::vector<int64_t>, DType, DType, int>, dnnl::reorder> m_primitives;
};

} // namespace tb
