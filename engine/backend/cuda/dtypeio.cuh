// Device-side loads and stores for the floating storage types (through core/half.h, so the GPU
// rounds exactly as the CPU backend) and a host-side dispatch from DType to those types.
#pragma once

#include "core/dtype.h"
#include "core/errors.h"
#include "core/half.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tb::cuda {

struct F32Io {
    using Storage = float;
    static __device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
    static __device__ __forceinline__ void store(float* p, int64_t i, float v) { p[i] = v; }
};

struct F16Io {
    using Storage = uint16_t;
    static __device__ __forceinline__ float load(const uint16_t* p, int64_t i) {
        return halfToFloat(p[i]);
    }
    static __device__ __forceinline__ void store(uint16_t* p, int64_t i, float v) {
        p[i] = floatToHalf(v);
    }
};

struct Bf16Io {
    using Storage = uint16_t;
    static __device__ __forceinline__ float load(const uint16_t* p, int64_t i) {
        return bf16ToFloat(p[i]);
    }
    static __device__ __forceinline__ void store(uint16_t* p, int64_t i, float v) {
        p[i] = floatToBf16(v);
    }
};

// Calls f(F32Io{}), f(F16Io{}) or f(Bf16Io{}) for a floating dtype; throws tb::Error otherwise.
template <typename F> void dispatchFloat(DType dtype, const char* op, F&& f) {
    switch (dtype) {
    case DType::F32:
        f(F32Io{});
        return;
    case DType::F16:
        f(F16Io{});
        return;
    case DType::BF16:
        f(Bf16Io{});
        return;
    default:
        throw Error(std::string(op) + ": needs a floating dtype, got " +
                    std::string(dtypeName(dtype)));
    }
}

template <typename Io> __host__ __device__ inline const typename Io::Storage* in(const void* p) {
    return static_cast<const typename Io::Storage*>(p);
}
template <typename Io> __host__ __device__ inline typename Io::Storage* out(void* p) {
    return static_cast<typename Io::Storage*>(p);
}

constexpr int kBlock = 256;

// Blocks for a grid-stride loop over n elements (capped; the loop covers the rest).
inline unsigned gridFor(int64_t n) {
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, int64_t{1} << 20));
}

#define TB_GRID_STRIDE(i, n)                                                                       \
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);         \
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)

} // namespace tb::cuda
