// Central-difference gradient checker. Float32 central differences with step h carry a
// truncation error ~h^2 and a rounding error ~1e-7 * |L| / h; h = 1e-2 on inputs of order 1
// keeps both near 1e-4 relative, so 1e-2 relative in norm is a strict but reliable bound.
#include "support/gradcheck.h"

#include "backend/kernels/random_math.h"

#include <cmath>

namespace tb::test {

namespace {

constexpr float kStep = 1e-2f;
constexpr int kMaxProbes = 48; // entries probed per tensor, spread over it

double lossOf(Backend& b, Layer& layer, const std::vector<Tensor>& in, Tensor& out,
              const Tensor& r) {
    layer.setPasses(0); // the same mask on every evaluation
    Inputs ptrs;
    for (const Tensor& t : in)
        ptrs.push_back(&t);
    layer.forward(b, ptrs, out, true);
    double l = 0.0;
    for (int64_t i = 0; i < out.numel(); ++i)
        l += static_cast<double>(out.data<float>()[i]) * r.data<float>()[i];
    return l;
}

// Compares analytic gradient `ana` of tensor `x` with central differences.
float relativeError(Backend& b, Layer& layer, std::vector<Tensor>& in, Tensor& out, const Tensor& r,
                    Tensor& x, const Tensor& ana) {
    double diff2 = 0.0, num2 = 0.0;
    const int64_t n = x.numel();
    const int64_t stride = std::max<int64_t>(1, n / kMaxProbes);
    for (int64_t i = 0; i < n; i += stride) {
        float& v = x.data<float>()[i];
        const float saved = v;
        v = saved + kStep;
        const double plus = lossOf(b, layer, in, out, r);
        v = saved - kStep;
        const double minus = lossOf(b, layer, in, out, r);
        v = saved;
        const double numeric = (plus - minus) / (2.0 * kStep);
        const double analytic = ana.data<float>()[i];
        diff2 += (numeric - analytic) * (numeric - analytic);
        num2 += numeric * numeric;
    }
    return static_cast<float>(std::sqrt(diff2) / std::max(std::sqrt(num2), 1e-6));
}

} // namespace

GradCheckResult gradCheckLayer(Backend& b, Layer& layer, const std::vector<Shape>& shapes,
                               uint64_t seed, float minAbs) {
    // A layer reading token ids gets ids 0..kTokenIds-1 (repeated, so rows gather several
    // gradients) and no input gradient: ids are not differentiable.
    constexpr uint64_t kTokenIds = 4;
    const bool ids = layer.readsTokenIds();
    std::vector<Tensor> in;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        Tensor t = Tensor::host(shapes[k], DType::F32);
        for (int64_t i = 0; i < t.numel(); ++i) {
            const float u = 2.0f * math::uniform01(seed + k, static_cast<uint64_t>(i)) - 1.0f;
            t.data<float>()[i] =
                ids ? static_cast<float>(math::mix64(seed + k, static_cast<uint64_t>(i)) %
                                         kTokenIds)
                    : (u < 0 ? u - minAbs : u + minAbs);
        }
        in.push_back(t);
    }
    layer.init(b, shapes, seed);
    Tensor out = Tensor::host(layer.outputShape(shapes), DType::F32);
    Tensor r = Tensor::host(out.shape(), DType::F32);
    for (int64_t i = 0; i < r.numel(); ++i)
        r.data<float>()[i] =
            2.0f * math::uniform01(seed ^ 0xabcdu, static_cast<uint64_t>(i)) - 1.0f;

    // Analytic gradients.
    for (Param* p : layer.params())
        b.fill(p->grad, 0.0f);
    lossOf(b, layer, in, out, r);
    std::vector<Tensor> din;
    std::vector<Tensor*> dinPtrs;
    for (const Tensor& t : in) {
        din.push_back(Tensor::host(t.shape(), DType::F32));
    }
    for (Tensor& t : din)
        dinPtrs.push_back(ids ? nullptr : &t);
    Inputs ptrs;
    for (const Tensor& t : in)
        ptrs.push_back(&t);
    layer.backward(b, ptrs, out, r, dinPtrs);
    std::vector<Tensor> paramGrads;
    for (Param* p : layer.params()) {
        paramGrads.push_back(Tensor::host(p->grad.shape(), DType::F32));
        b.copy(p->grad, paramGrads.back());
    }

    GradCheckResult result;
    const auto consider = [&](float err, const std::string& name) {
        if (err >= result.worstRelativeError) {
            result.worstRelativeError = err;
            result.worstTensor = name;
        }
    };
    for (std::size_t k = 0; k < in.size() && !ids; ++k)
        consider(relativeError(b, layer, in, out, r, in[k], din[k]), "input " + std::to_string(k));
    const auto params = layer.params();
    for (std::size_t k = 0; k < params.size(); ++k)
        consider(relativeError(b, layer, in, out, r, params[k]->value, paramGrads[k]),
                 params[k]->name);
    return result;
}

} // namespace tb::test
