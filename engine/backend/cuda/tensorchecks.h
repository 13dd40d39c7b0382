// Argument checks the CUDA ops run before any work: the kernels index what they are given, so a
// wrong dtype or size must be an error here rather than an out-of-bounds access on the device.
#pragma once

#include "core/errors.h"
#include "core/tensor.h"

#include <string>

namespace tb::cuda {

inline void requireSameSize(const Tensor& a, const Tensor& b, const char* op) {
    if (a.numel() != b.numel() || a.dtype() != b.dtype())
        throw Error(std::string(op) + ": tensors " + a.shape().toString() + " " +
                    std::string(dtypeName(a.dtype())) + " and " + b.shape().toString() + " " +
                    std::string(dtypeName(b.dtype())) + " differ");
}

inline void requireDType(const Tensor& t, DType dtype, const char* op, const char* what) {
    if (t.dtype() != dtype)
        throw Error(std::string(op) + ": " + what + " must be " + std::string(dtypeName(dtype)));
}

// Per-channel or per-feature f32 vectors: biases, batch-norm parameters and statistics.
inline void requireF32Vector(const Tensor& t, int64_t size, const char* op, const char* what) {
    if (t.dtype() != DType::F32 || t.numel() != size)
        throw Error(std::string(op) + ": " + what + " must be f32 of size " + std::to_string(size));
}

// Device scalars the kernels read (loss scale, scaler state, foundInf): f32, at least `count`.
inline void requireF32Scalars(const Tensor& t, int64_t count, const char* op, const char* what) {
    requireDType(t, DType::F32, op, what);
    if (t.numel() < count)
        throw Error(std::string(op) + ": " + what + " needs " + std::to_string(count) +
                    " element(s)");
}

} // namespace tb::cuda
