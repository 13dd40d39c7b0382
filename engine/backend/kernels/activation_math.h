// Per-element activation math, shared by the CPU loops and the CUDA kernels.
#pragma once

#include "backend/opdesc.h"
#include "core/hostdevice.h"

#include <cmath>

namespace tb::math {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

// GELU as PyTorch's default (exact, with erf).
TB_HD float gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
}
TB_HD float geluGrad(float x) {
    const float cdf = 0.5f * (1.0f + erff(x * kInvSqrt2));
    const float pdf = kInvSqrt2Pi * expf(-0.5f * x * x);
    return cdf + x * pdf;
}

// GELU's tanh approximation (PyTorch's approximate='tanh'):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kGeluCubic = 0.044715f;
TB_HD float geluTanh(float x) {
    return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
}
TB_HD float geluTanhGrad(float x) {
    const float t = tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
    return 0.5f * (1.0f + t) +
           0.5f * x * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
}

// SiLU: x sigmoid(x); its derivative sigmoid(x) (1 + x (1 - sigmoid(x))).
TB_HD float sigmoid(float x) {
    return 1.0f / (1.0f + expf(-x));
}
TB_HD float silu(float x) {
    return x * sigmoid(x);
}
TB_HD float siluGrad(float x) {
    const float s = sigmoid(x);
    return s * (1.0f + x * (1.0f - s));
}

TB_HD float activate(Activation a, float alpha, float x) {
    switch (a) {
    case Activation::ReLU:
        return x > 0.0f ? x : 0.0f;
    case Activation::LeakyReLU:
        return x > 0.0f ? x : alpha * x;
    case Activation::GELU:
        return gelu(x);
    case Activation::GELUTanh:
        return geluTanh(x);
    case Activation::ReLU6:
        return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
    case Activation::SiLU:
        return silu(x);
    }
    return x;
}

// d activation / dx at input x, times the upstream gradient dy.
TB_HD float activateBackward(Activation a, float alpha, float x, float dy) {
    switch (a) {
    case Activation::ReLU:
        return x > 0.0f ? dy : 0.0f;
    case Activation::LeakyReLU:
        return x > 0.0f ? dy : alpha * dy;
    case Activation::GELU:
        return dy * geluGrad(x);
    case Activation::GELUTanh:
        return dy * geluTanhGrad(x);
    case Activation::ReLU6: // PyTorch's hardtanh: no gradient at either bound
        return x > 0.0f && x < 6.0f ? dy : 0.0f;
    case Activation::SiLU:
        return dy * siluGrad(x);
    }
    return dy;
}

} // namespace tb::math
