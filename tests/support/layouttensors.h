// Activations in the CPU backend's kept layouts, for tests: the same values plain or in the
// layout the backend's convolutions write (nChw16c, nChw8c or, with memory_format
// channels_last, NHWC), and back to the host, one tensor or a model's whole state.
#pragma once

#include "core/tensor.h"

#include <map>
#include <string>

namespace tb {
class Backend;
class Graph;
} // namespace tb

namespace tb::test {

// x's values in a buffer of the backend's own, plain, in type t (f32 or bf16).
Tensor onBackendPlain(Backend& backend, const Tensor& x, DType t);
// x's values in the layout the backend's convolutions keep: a 1x1 convolution with identity
// weights writes them there, exactly.
Tensor onBackendInConvLayout(Backend& backend, const Tensor& x, DType t);
// t's values as a plain host f32 tensor.
Tensor toHostF32(Backend& backend, const Tensor& t);
// The graph's parameters and buffers by qualified name, as plain host f32 tensors.
std::map<std::string, Tensor> hostStateOf(Backend& backend, Graph& graph);
// Whether two host f32 tensors have the same shape and bit-identical values.
bool sameValues(const Tensor& a, const Tensor& b);

} // namespace tb::test
