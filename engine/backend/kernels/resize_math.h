// Bilinear resizing as PyTorch's F.interpolate(x, size, mode="bilinear", align_corners=False),
// shared by the CPU loops and the CUDA kernels: each output pixel's two taps per axis, and the
// gradient gathered per input pixel from the outputs that read it (no scatter, so both backends
// add in one fixed order).
#pragma once

#include "core/hostdevice.h"

#include <cstdint>

namespace tb::math {

// Output o of `out` along one axis reads inputs first and second of `in`: its centre in input
// coordinates, (o + 0.5) * in / out - 0.5, clamped at 0 so the edge pixel repeats, and split
// between the inputs on either side (one input twice at the far edge).
struct LinearTap {
    int64_t first, second;
    float firstWeight, secondWeight;
};

TB_HD LinearTap linearTap(int64_t o, int64_t in, int64_t out) {
    const float scale = static_cast<float>(in) / static_cast<float>(out);
    float centre = scale * (static_cast<float>(o) + 0.5f) - 0.5f;
    if (centre < 0.0f)
        centre = 0.0f;
    const auto first = static_cast<int64_t>(centre);
    const float second = centre - static_cast<float>(first);
    return {first, first < in - 1 ? first + 1 : first, 1.0f - second, second};
}

// What output o gives input i along an axis: its weight, both when both taps are i.
TB_HD float tapWeight(const LinearTap& t, int64_t i) {
    return (t.first == i ? t.firstWeight : 0.0f) + (t.second == i ? t.secondWeight : 0.0f);
}

// The outputs [*lo, *hi] that may read input i (a margin wider than the taps reach; callers
// weigh each by tapWeight, which is 0 outside).
TB_HD void outputsReading(int64_t i, int64_t in, int64_t out, int64_t* lo, int64_t* hi) {
    const double perInput = static_cast<double>(out) / static_cast<double>(in);
    const auto from = static_cast<int64_t>((static_cast<double>(i) - 0.5) * perInput - 0.5) - 2;
    const auto to = static_cast<int64_t>((static_cast<double>(i) + 1.5) * perInput - 0.5) + 2;
    *lo = from < 0 ? 0 : from;
    *hi = to > out - 1 ? out - 1 : to;
}

// y(oi, oj) of an (h, w) plane read through load(i, j), resized to (oh, ow).
template <typename Load>
TB_HD float bilinearAt(Load load, int64_t oi, int64_t oj, int64_t h, int64_t w, int64_t oh,
                       int64_t ow) {
    const LinearTap r = linearTap(oi, h, oh), c = linearTap(oj, w, ow);
    return r.firstWeight *
               (c.firstWeight * load(r.first, c.first) + c.secondWeight * load(r.first, c.second)) +
           r.secondWeight * (c.firstWeight * load(r.second, c.first) +
                             c.secondWeight * load(r.second, c.second));
}

// dx(i, j) of the (h, w) input plane: every (oh, ow) output's gradient, read through loadDy(o,
// p), times the weight that output gave (i, j).
template <typename Load>
TB_HD float bilinearGradAt(Load loadDy, int64_t i, int64_t j, int64_t h, int64_t w, int64_t oh,
                           int64_t ow) {
    int64_t rowLo, rowHi, colLo, colHi;
    outputsReading(i, h, oh, &rowLo, &rowHi);
    outputsReading(j, w, ow, &colLo, &colHi);
    float sum = 0.0f;
    for (int64_t o = rowLo; o <= rowHi; ++o) {
        const float rowWeight = tapWeight(linearTap(o, h, oh), i);
        if (rowWeight == 0.0f)
            continue;
        float rowSum = 0.0f;
        for (int64_t p = colLo; p <= colHi; ++p) {
            const float colWeight = tapWeight(linearTap(p, w, ow), j);
            if (colWeight != 0.0f)
                rowSum += colWeight * loadDy(o, p);
        }
        sum += rowWeight * rowSum;
    }
    return sum;
}

} // namespace tb::math
