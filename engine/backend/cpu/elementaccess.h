// Loads and stores of activation values as f32 arithmetic sees them, for kernels templated on
// the stored type (float, or bf16 held as uint16_t): bf16 activations are read and written in
// place instead of being widened into f32 scratch and narrowed back, which cost more than the
// arithmetic.
#pragma once

#include "core/dtype.h"
#include "core/half.h"

#include <cstdint>

namespace tb {

inline float loadValue(float v) {
    return v;
}
inline float loadValue(uint16_t bf16) {
    return bitsToFloat(static_cast<uint32_t>(bf16) << 16);
}

inline void storeValue(float& dst, float v) {
    dst = v;
}
// floatToBf16 (round to nearest even, NaN kept quiet) without branches, so loops vectorise.
inline void storeValue(uint16_t& dst, float v) {
    const uint32_t x = floatBits(v);
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    const uint32_t quietNan = (x >> 16) | 0x40u;
    dst = static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quietNan : rounded);
}

// f(E{}) with E an unsigned integer of dtype's width, for kernels that only move values.
template <typename F> void withElementWidth(DType t, F f) {
    if (dtypeSize(t) == 2)
        f(uint16_t{});
    else
        f(uint32_t{});
}

} // namespace tb
