// IEEE fp16 and bfloat16 conversions shared by the CPU backend and the CUDA kernels.
// Round-to-nearest-even, overflow to infinity and gradual underflow, as the hardware does.
#pragma once

#include "core/hostdevice.h"

#include <cstdint>
#include <cstring>

namespace tb {

TB_HD uint32_t floatBits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}

TB_HD float bitsToFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

TB_HD uint16_t floatToHalf(float f) {
    const uint32_t x = floatBits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // inf or NaN
        return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    if (absx >= 0x477ff000u) // rounds to a value above 65504: overflow
        return static_cast<uint16_t>(sign | 0x7c00u);
    if (absx < 0x38800000u) {   // below 2^-14: subnormal half or zero
        if (absx < 0x33000000u) // below half the smallest subnormal: flushes to zero
            return static_cast<uint16_t>(sign);
        // value / 2^-24 = mant * 2^(exp - 126): shift the mantissa right and round to even.
        const uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - (absx >> 23);
        uint32_t result = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1u);
        const uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (result & 1u)))
            ++result;
        return static_cast<uint16_t>(sign | result);
    }
    // Normal range: rebias the exponent and round the mantissa to 10 bits.
    uint32_t result = ((absx - 0x38000000u) >> 13);
    const uint32_t rem = absx & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (result & 1u)))
        ++result;
    return static_cast<uint16_t>(sign | result);
}

TB_HD float halfToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0)
            return bitsToFloat(sign);
        // Subnormal: value = mant * 2^-24.
        const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    if (exp == 31)
        return bitsToFloat(sign | 0x7f800000u | (mant << 13));
    return bitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

TB_HD uint16_t floatToBf16(float f) {
    const uint32_t x = floatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) // NaN stays a quiet NaN
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    const uint32_t roundingBias = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + roundingBias) >> 16);
}

TB_HD float bf16ToFloat(uint16_t b) {
    return bitsToFloat(static_cast<uint32_t>(b) << 16);
}

} // namespace tb
