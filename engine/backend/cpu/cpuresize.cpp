// CpuBackend's bilinear resizing (kernels/resize_math.h's taps). It gives its output its input's
// (or the convolutions') layout. In a blocked or channels-last layout it walks each run of
// channels stored together (a block of 8 or 16, or all of them) pixel by pixel, the run's
// channels side by side in the innermost loop; a plain tensor, plane by plane (PlaneIndex).
// Backward scatters each output's four shares into f32 sums, in output order.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/elementaccess.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/resize_math.h"
#include "core/errors.h"

#include <vector>

namespace tb {

namespace {

void checkResize(const Tensor& big, const Tensor& small, const char* op) {
    const Shape& a = big.shape();
    const Shape& b = small.shape();
    if (a.rank() != 4 || b.rank() != 4 || a[0] != b[0] || a[1] != b[1] ||
        big.dtype() != small.dtype() || a[2] < 1 || a[3] < 1 || b[2] < 1 || b[3] < 1)
        throw Error(std::string(op) + ": cannot resize between " + a.toString() + " and " +
                    b.toString() + " (the same images and channels, in one dtype)");
}

// Each axis's taps, once a call.
std::vector<math::LinearTap> axisTaps(int64_t in, int64_t out) {
    std::vector<math::LinearTap> taps(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o)
        taps[static_cast<size_t>(o)] = math::linearTap(o, in, out);
    return taps;
}

} // namespace

void CpuBackend::resizeBilinearForward(const Tensor& x, Tensor& y) {
    checkResize(x, y, "resizeBilinearForward");
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), oh = y.dim(2),
                  ow = y.dim(3);
    const auto rows = axisTaps(h, oh), cols = axisTaps(w, ow);
    const auto run = [&](auto type, const Tensor& src, Tensor& dst) {
        using T = decltype(type);
        if (layoutOf(src) != 0 && layoutOf(src) == layoutOf(dst)) {
            // A run of `lanes` channels is stored pixel after pixel: (pixel, lane) at
            // pixel * lanes + lane inside the run, the runs one after another.
            const int64_t lanes = channelRun(layoutOf(src), c);
            parallelFor(n * (c / lanes), [&](int64_t group) {
                const T* xs = static_cast<const T*>(src.raw()) + group * h * w * lanes;
                T* ys = static_cast<T*>(dst.raw()) + group * oh * ow * lanes;
                for (int64_t i = 0; i < oh; ++i) {
                    const math::LinearTap& r = rows[static_cast<size_t>(i)];
                    const T* top = xs + r.first * w * lanes;
                    const T* bottom = xs + r.second * w * lanes;
                    for (int64_t j = 0; j < ow; ++j) {
                        const math::LinearTap& q = cols[static_cast<size_t>(j)];
                        const T* a = top + q.first * lanes;
                        const T* b = top + q.second * lanes;
                        const T* d = bottom + q.first * lanes;
                        const T* e = bottom + q.second * lanes;
                        T* o = ys + (i * ow + j) * lanes;
                        for (int64_t l = 0; l < lanes; ++l)
                            storeValue(o[l],
                                       r.firstWeight * (q.firstWeight * loadValue(a[l]) +
                                                        q.secondWeight * loadValue(b[l])) +
                                           r.secondWeight * (q.firstWeight * loadValue(d[l]) +
                                                             q.secondWeight * loadValue(e[l])));
                    }
                }
            });
            return;
        }
        const PlaneIndex in{c, h * w, layoutOf(src)}, out{c, oh * ow, layoutOf(dst)};
        parallelFor(n * c, [&](int64_t plane) {
            const T* xs = static_cast<const T*>(src.raw()) + in.base(plane);
            T* ys = static_cast<T*>(dst.raw()) + out.base(plane);
            const int64_t is = in.stride(), os = out.stride();
            for (int64_t i = 0; i < oh; ++i) {
                const math::LinearTap& r = rows[static_cast<size_t>(i)];
                for (int64_t j = 0; j < ow; ++j) {
                    const math::LinearTap& q = cols[static_cast<size_t>(j)];
                    const auto at = [&](int64_t a, int64_t b) {
                        return loadValue(xs[(a * w + b) * is]);
                    };
                    const float v = r.firstWeight * (q.firstWeight * at(r.first, q.first) +
                                                     q.secondWeight * at(r.first, q.second)) +
                                    r.secondWeight * (q.firstWeight * at(r.second, q.first) +
                                                      q.secondWeight * at(r.second, q.second));
                    storeValue(ys[(i * ow + j) * os], v);
                }
            }
        });
    };
    computeOnPlanes(x, y, run);
}

void CpuBackend::resizeBilinearBackward(const Tensor& dy, Tensor& dx) {
    checkResize(dx, dy, "resizeBilinearBackward");
    const int64_t n = dx.dim(0), c = dx.dim(1), h = dx.dim(2), w = dx.dim(3), oh = dy.dim(2),
                  ow = dy.dim(3);
    const auto rows = axisTaps(h, oh), cols = axisTaps(w, ow);
    const auto run = [&](auto type, const Tensor& grad, Tensor& target) {
        using T = decltype(type);
        if (layoutOf(grad) != 0 && layoutOf(grad) == layoutOf(target)) {
            const int64_t lanes = channelRun(layoutOf(grad), c); // as the forward walks them
            parallelFor(n * (c / lanes), [&](int64_t group) {
                thread_local std::vector<float> sums;
                sums.assign(static_cast<size_t>(h * w * lanes), 0.0f);
                const T* g = static_cast<const T*>(grad.raw()) + group * oh * ow * lanes;
                for (int64_t i = 0; i < oh; ++i) {
                    const math::LinearTap& r = rows[static_cast<size_t>(i)];
                    for (int64_t j = 0; j < ow; ++j) {
                        const math::LinearTap& q = cols[static_cast<size_t>(j)];
                        const T* v = g + (i * ow + j) * lanes;
                        const auto add = [&](int64_t a, int64_t b, float weight) {
                            float* s = sums.data() + (a * w + b) * lanes;
                            for (int64_t l = 0; l < lanes; ++l)
                                s[l] += weight * loadValue(v[l]);
                        };
                        add(r.first, q.first, r.firstWeight * q.firstWeight);
                        add(r.first, q.second, r.firstWeight * q.secondWeight);
                        add(r.second, q.first, r.secondWeight * q.firstWeight);
                        add(r.second, q.second, r.secondWeight * q.secondWeight);
                    }
                }
                T* d = static_cast<T*>(target.raw()) + group * h * w * lanes;
                for (int64_t k = 0; k < h * w * lanes; ++k)
                    storeValue(d[k], sums[static_cast<size_t>(k)]);
            });
            return;
        }
        const PlaneIndex in{c, oh * ow, layoutOf(grad)}, out{c, h * w, layoutOf(target)};
        parallelFor(n * c, [&](int64_t plane) {
            thread_local std::vector<float> sums;
            sums.assign(static_cast<size_t>(h * w), 0.0f);
            const T* g = static_cast<const T*>(grad.raw()) + in.base(plane);
            const int64_t gs = in.stride();
            for (int64_t i = 0; i < oh; ++i) {
                const math::LinearTap& r = rows[static_cast<size_t>(i)];
                for (int64_t j = 0; j < ow; ++j) {
                    const math::LinearTap& q = cols[static_cast<size_t>(j)];
                    const float v = loadValue(g[(i * ow + j) * gs]);
                    const auto add = [&](int64_t a, int64_t b, float weight) {
                        sums[static_cast<size_t>(a * w + b)] += weight * v;
                    };
                    add(r.first, q.first, r.firstWeight * q.firstWeight);
                    add(r.first, q.second, r.firstWeight * q.secondWeight);
                    add(r.second, q.first, r.secondWeight * q.firstWeight);
                    add(r.second, q.second, r.secondWeight * q.secondWeight);
                }
            }
            T* d = static_cast<T*>(target.raw()) + out.base(plane);
            for (int64_t k = 0; k < h * w; ++k)
                storeValue(d[k * out.stride()], sums[static_cast<size_t>(k)]);
        });
    };
    computeOnPlanes(dy, dx, run);
}

} // namespace tb
