// A counter-based generator: the random value for (seed, index) needs no state, so the CPU and
// the GPU produce the same dropout masks and augmentations in any order and on any thread.
#pragma once

#include "core/hostdevice.h"

#include <cstdint>

namespace tb::math {

// SplitMix64 finaliser over seed and index: well mixed, cheap, stateless.
TB_HD uint64_t mix64(uint64_t seed, uint64_t index) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Uniform in [0, 1) with 24 bits of resolution.
TB_HD float uniform01(uint64_t seed, uint64_t index) {
    return static_cast<float>(mix64(seed, index) >> 40) * (1.0f / 16777216.0f);
}

// Dropout keeps an element when its uniform draw is at least p.
TB_HD bool dropoutKeep(uint64_t seed, uint64_t index, float p) {
    return uniform01(seed, index) >= p;
}

} // namespace tb::math
