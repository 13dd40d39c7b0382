// Transcendental functions written so that a `#pragma omp simd` loop vectorises them (no
// branches, no libm calls), for the CPU backend's elementwise loops. The CUDA kernels keep
// libdevice's versions (backend/kernels/); the two agree to a few float roundings.
#pragma once

#include <bit>
#include <cstdint>

namespace tb::vmath {

// x in [-87, 0] as x = k ln2 + r with |r| <= ln2 / 2: 2^k and expm1(r), by its Taylor series to
// r^7, from which exp and expm1 follow without cancellation.
struct ExpParts {
    float scale; // 2^k
    float em1r;  // expm1(r)
};
inline ExpParts expPartsNegative(float x) {
    constexpr float kLog2e = 1.44269504088896341f;
    constexpr float kLn2Hi = 0.693145751953125f; // ln 2 split so k * kLn2Hi is exact
    constexpr float kLn2Lo = 1.428606765330187e-06f;
    constexpr float kRound = 12582912.0f; // 1.5 * 2^23: adding it rounds to an integer
    const float k = (x * kLog2e + kRound) - kRound;
    const float r = (x - k * kLn2Hi) - k * kLn2Lo;
    const float p =
        r + r * r *
                (0.5f +
                 r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 + r / 5040)))));
    return {std::bit_cast<float>((static_cast<int32_t>(k) + 127) << 23), p};
}

// exp(x) - 1 for x in [-87, 0], relative error below 2e-7 everywhere (no cancellation near 0):
// 2^k expm1(r) + (2^k - 1).
inline float expm1Negative(float x) {
    const ExpParts e = expPartsNegative(x);
    return e.scale * e.em1r + (e.scale - 1.0f);
}

// exp(x) for x in [-87, 0], relative error a few float roundings down to exp(-87) ~ 1.6e-38:
// 2^k (1 + expm1(r)).
inline float expNegative(float x) {
    const ExpParts e = expPartsNegative(x);
    return e.scale * e.em1r + e.scale;
}

// tanh(u) within 3 float roundings of the exact value: -expm1(-2|u|) / (2 + expm1(-2|u|)),
// with |u| clamped at 9, where tanh is 1 to float precision.
inline float tanh(float u) {
    const float a = u < 0.0f ? -u : u;
    const float z = expm1Negative(-2.0f * (a < 9.0f ? a : 9.0f));
    const float t = -z / (2.0f + z);
    return u < 0.0f ? -t : t;
}

// 1 / (1 + exp(-x)) within a few float roundings, tails included: with e = exp(-|x|) (|x|
// clamped at 87, past which the result is 0 or 1 to float precision, or a denormal), 1 / (1 + e)
// for x >= 0 and e / (1 + e) below.
inline float sigmoid(float x) {
    const float a = x < 0.0f ? -x : x;
    const float e = expNegative(-(a < 87.0f ? a : 87.0f));
    return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

} // namespace tb::vmath
