// Activations in the CPU backend's kept layouts, for tests: the same values plain or in the
// layout the backend's convolutions write (nChw16c, nChw8c or, with memory_format
// channels_last, NHWC), and back to the host.
#pragma once

#include "core/tensor.h"

namespace tb {
class Backend;
}

namespace tb::test {

// x's values in a buffer of the backend's own, plain, in type t (f32 or bf16).
Tensor onBackendPlain(Backend& backend, const Tensor& x, DType t);
// x's values in the layout the backend's convolutions keep: a 1x1 convolution with identity
// weights writes them there, exactly.
Tensor onBackendInConvLayout(Backend& backend, const Tensor& x, DType t);
// t's values as a plain host f32 tensor.
Tensor toHostF32(Backend& backend, const Tensor& t);

} // namespace tb::test
