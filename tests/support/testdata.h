// Helpers for tests that write their own small data files.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::test {

// Writes bytes to path (creating or truncating it); fails the test on error by throwing.
void writeFile(const std::string& path, const std::vector<uint8_t>& bytes);
void writeGzipFile(const std::string& path, const std::vector<uint8_t>& bytes);

// Host f32 tensor with values drawn uniformly from [lo, hi) by a seeded generator.
Tensor randomTensor(const Shape& shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
// Why Fashion-MNIST (the default run's data, Debian's dataset-fashion-mnist) cannot be used
// here, or empty when it is installed; tests of the default set-up QSKIP with it.
std::string fashionMnistMissing();

// A zoo model's sample shape for a test: ImageNet's 224 px cut to 64 (big models are tested
// small; their full size belongs to tests/bench), the rest as they are.
Shape testSampleShape(const Shape& designed);

// Largest absolute difference between two host f32 tensors of equal size.
float maxAbsDiff(const Tensor& a, const Tensor& b);

} // namespace tb::test
