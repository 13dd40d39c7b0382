// CpuBackend ops that carry feature maps between the branches and scales of a detector's neck:
// joining and splitting along channels, and nearest-neighbour upsampling. They walk channel
// planes (PlaneIndex), so they read any layout and give their output the layout their input
// (or the convolutions) use; all but upsampling's backward only move values.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/elementaccess.h"
#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <cstring>

namespace tb {

namespace {

// Copies one channel plane of hw values between two layouts.
template <typename E>
void copyPlane(const E* src, int64_t srcStride, E* dst, int64_t dstStride, int64_t hw) {
    if (srcStride == 1 && dstStride == 1) {
        std::memcpy(dst, src, static_cast<size_t>(hw) * sizeof(E));
        return;
    }
    for (int64_t i = 0; i < hw; ++i)
        dst[i * dstStride] = src[i * srcStride];
}

void requireRank4(const Tensor& t, const char* op, const char* what) {
    if (t.shape().rank() != 4)
        throw Error(std::string(op) + ": " + what + " must be (N, C, H, W), not " +
                    t.shape().toString());
}

// Checks parts against whole (equal N, H, W and dtype; channels adding up, a null part counted
// by `channels`) and calls f(part, its first channel in whole) for each part present.
template <typename Part, typename F>
void forEachPart(const std::vector<Part*>& parts, const std::vector<int64_t>& channels,
                 const Tensor& whole, const char* op, F f) {
    requireRank4(whole, op, "the whole");
    int64_t first = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (const Part* part = parts[k]) {
            requireRank4(*part, op, "every part");
            if (part->dim(0) != whole.dim(0) || part->dim(1) != channels[k] ||
                part->dim(2) != whole.dim(2) || part->dim(3) != whole.dim(3) ||
                part->dtype() != whole.dtype())
                throw Error(std::string(op) + ": part " + part->shape().toString() +
                            " does not fit " + whole.shape().toString());
        }
        first += channels[k];
    }
    if (first != whole.dim(1))
        throw Error(std::string(op) + ": the parts hold " + std::to_string(first) +
                    " channels, the whole " + std::to_string(whole.dim(1)));
    first = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (parts[k])
            f(*parts[k], first);
        first += channels[k];
    }
}

// Copies the c planes of each image between a part and its channels in the whole.
template <typename E>
void copyPlanes(const E* src, const PlaneIndex& from, int64_t fromFirst, E* dst,
                const PlaneIndex& to, int64_t toFirst, int64_t n, int64_t c) {
    parallelFor(
        n * c,
        [&](int64_t plane) {
            const int64_t image = plane / c, channel = plane % c;
            copyPlane(src + from.base(image * from.c + fromFirst + channel), from.stride(),
                      dst + to.base(image * to.c + toFirst + channel), to.stride(), from.hw);
        },
        16);
}

// One (image, channel) plane of the upsampled output from the input plane: every value
// repeated scale x scale times.
template <typename E>
void upsamplePlane(const E* src, int64_t srcStride, int64_t h, int64_t w, int64_t scale, E* dst,
                   int64_t dstStride) {
    const int64_t ow = w * scale;
    for (int64_t i = 0; i < h * scale; ++i)
        for (int64_t j = 0; j < ow; ++j)
            dst[(i * ow + j) * dstStride] = src[((i / scale) * w + j / scale) * srcStride];
}

// The gradient of one input plane: the sum of the scale x scale output values it was copied to.
template <typename T>
void upsampleGradPlane(const T* dy, int64_t dyStride, int64_t h, int64_t w, int64_t scale, T* dx,
                       int64_t dxStride) {
    const int64_t ow = w * scale;
    for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) {
            float sum = 0.0f;
            for (int64_t a = 0; a < scale; ++a)
                for (int64_t b = 0; b < scale; ++b)
                    sum += loadValue(dy[((i * scale + a) * ow + j * scale + b) * dyStride]);
            storeValue(dx[(i * w + j) * dxStride], sum);
        }
}

} // namespace

void CpuBackend::joinChannels(const std::vector<const Tensor*>& parts, Tensor& whole) {
    std::vector<int64_t> channels;
    for (const Tensor* part : parts)
        channels.push_back(part->shape().rank() == 4 ? part->dim(1) : 0);
    const int wanted = layoutOf(*parts.front()) ? layoutOf(*parts.front()) : m_convBlock;
    setLayout(whole, planeOutputLayout(wanted, whole, mayBlock(whole)));
    const int64_t hw = whole.dim(2) * whole.dim(3);
    const PlaneIndex to{whole.dim(1), hw, layoutOf(whole)};
    forEachPart(parts, channels, whole, "joinChannels", [&](const Tensor& part, int64_t first) {
        const PlaneIndex from{part.dim(1), hw, layoutOf(part)};
        withElementWidth(whole.dtype(), [&](auto element) {
            using E = decltype(element);
            copyPlanes(static_cast<const E*>(part.raw()), from, 0, static_cast<E*>(whole.raw()), to,
                       first, whole.dim(0), part.dim(1));
        });
    });
}

void CpuBackend::splitChannels(const Tensor& whole, const std::vector<Tensor*>& parts,
                               const std::vector<int64_t>& channels) {
    if (channels.size() != parts.size())
        throw Error("splitChannels: a channel count for each part");
    const int64_t hw = whole.shape().rank() == 4 ? whole.dim(2) * whole.dim(3) : 0;
    const PlaneIndex from{whole.shape().rank() == 4 ? whole.dim(1) : 0, hw, layoutOf(whole)};
    const int wanted = layoutOf(whole) ? layoutOf(whole) : m_convBlock;
    forEachPart(parts, channels, whole, "splitChannels", [&](Tensor& part, int64_t first) {
        setLayout(part, planeOutputLayout(wanted, part, mayBlock(part)));
        const PlaneIndex to{part.dim(1), hw, layoutOf(part)};
        withElementWidth(whole.dtype(), [&](auto element) {
            using E = decltype(element);
            copyPlanes(static_cast<const E*>(whole.raw()), from, first, static_cast<E*>(part.raw()),
                       to, 0, whole.dim(0), part.dim(1));
        });
    });
}

void CpuBackend::upsampleNearestForward(const Tensor& x, int64_t scale, Tensor& y) {
    requireRank4(x, "upsampleNearestForward", "x");
    requireRank4(y, "upsampleNearestForward", "y");
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
    if (scale < 1 || y.dim(0) != n || y.dim(1) != c || y.dim(2) != h * scale ||
        y.dim(3) != w * scale || x.dtype() != y.dtype())
        throw Error("upsampleNearestForward: " + x.shape().toString() + " by " +
                    std::to_string(scale) + " does not give " + y.shape().toString());
    setLayout(y, planeOutputLayout(layoutOf(x) ? layoutOf(x) : m_convBlock, y, mayBlock(y)));
    const PlaneIndex in{c, h * w, layoutOf(x)}, out{c, h * w * scale * scale, layoutOf(y)};
    withElementWidth(x.dtype(), [&](auto element) {
        using E = decltype(element);
        parallelFor(
            n * c,
            [&](int64_t plane) {
                upsamplePlane(static_cast<const E*>(x.raw()) + in.base(plane), in.stride(), h, w,
                              scale, static_cast<E*>(y.raw()) + out.base(plane), out.stride());
            },
            16);
    });
}

void CpuBackend::upsampleNearestBackward(const Tensor& dy, int64_t scale, Tensor& dx) {
    requireRank4(dy, "upsampleNearestBackward", "dy");
    requireRank4(dx, "upsampleNearestBackward", "dx");
    const int64_t n = dx.dim(0), c = dx.dim(1), h = dx.dim(2), w = dx.dim(3);
    if (scale < 1 || dy.dim(0) != n || dy.dim(1) != c || dy.dim(2) != h * scale ||
        dy.dim(3) != w * scale || dx.dtype() != dy.dtype())
        throw Error("upsampleNearestBackward: " + dy.shape().toString() + " by " +
                    std::to_string(scale) + " does not come from " + dx.shape().toString());
    const auto run = [&](auto type, const Tensor& grad, Tensor& target) {
        using T = decltype(type);
        const PlaneIndex in{c, h * w * scale * scale, layoutOf(grad)},
            out{c, h * w, layoutOf(target)};
        parallelFor(
            n * c,
            [&](int64_t plane) {
                upsampleGradPlane(static_cast<const T*>(grad.raw()) + in.base(plane), in.stride(),
                                  h, w, scale, static_cast<T*>(target.raw()) + out.base(plane),
                                  out.stride());
            },
            16);
    };
    computeOnPlanes(dy, dx, run);
}

} // namespace tb
