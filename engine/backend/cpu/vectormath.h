// Transcendental functions written so that a `#pragma omp simd` loop vectorises them (no
// branches, no libm calls), for the CPU backend's elementwise loops. The CUDA kernels keep
// libdevice's versions (backend/kernels/); the two agree to a few float roundings.
#pragma once

#include <bit>
#include <cstdint>

namespace tb::vmath {

// exp(x) - 1 for x in [-87, 0], relative error below 2e-7 everywhere (no cancellation near 0):
// x = k ln2 + r with |r| <= ln2 / 2, expm1(r) by its Taylor series to r^7, then
// 2^k expm1(r) + (2^k - 1).
inline float expm1Negative(float x) {
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
    const float scale = std::bit_cast<float>((static_cast<int32_t>(k) + 127) << 23);
    return scale * p + (scale - 1.0f);
}

// tanh(u) within 3 float roundings of the exact value: -expm1(-2|u|) / (2 + expm1(-2|u|)),
// with |u| clamped at 9, where tanh is 1 to float precision.
inline float tanh(float u) {
    const float a = u < 0.0f ? -u : u;
    const float z = expm1Negative(-2.0f * (a < 9.0f ? a : 9.0f));
    const float t = -z / (2.0f + z);
    return u < 0.0f ? -t : t;
}

} // namespace tb::vmath
