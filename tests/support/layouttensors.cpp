// Test tensors in the CPU backend's layouts.
#include "support/layouttensors.h"

#include "backend/backend.h"
#include "nn/graph.h"

#include <cstring>

namespace tb::test {

Tensor onBackendPlain(Backend& backend, const Tensor& x, DType t) {
    Tensor p = backend.empty(x.shape(), t);
    backend.cast(x, p);
    return p;
}

Tensor onBackendInConvLayout(Backend& backend, const Tensor& x, DType t) {
    const int64_t c = x.dim(1);
    const ConvDesc d{x.dim(0), c, x.dim(2), x.dim(3), c, 1, 1, 1, 0};
    Tensor eye = Tensor::host({c, c, 1, 1}, DType::F32);
    for (int64_t i = 0; i < c * c; ++i)
        eye.data<float>()[i] = i / c == i % c ? 1.0f : 0.0f;
    Tensor y = backend.empty(x.shape(), t);
    backend.convForward(d, onBackendPlain(backend, x, t), eye, nullptr, y);
    return y;
}

Tensor toHostF32(Backend& backend, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), DType::F32);
    if (t.dtype() == DType::F32)
        backend.copy(t, h);
    else
        backend.cast(t, h);
    return h;
}

std::map<std::string, Tensor> hostStateOf(Backend& backend, Graph& graph) {
    std::map<std::string, Tensor> state;
    for (const NamedTensor& t : graph.stateDict())
        state.emplace(t.name, toHostF32(backend, *t.tensor));
    return state;
}

bool sameValues(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() &&
           std::memcmp(a.data<float>(), b.data<float>(), a.numel() * sizeof(float)) == 0;
}

} // namespace tb::test
