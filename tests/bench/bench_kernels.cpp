// Kernel benchmarks behind the CPU backend's library choices, on this model zoo's shapes:
// dense layers on OpenBLAS (the backend) vs oneDNN matmul, and convolution through the backend
// (oneDNN, blocked layouts) vs oneDNN on plain NCHW (its gemm path). Two threads, as the
// comparison with PyTorch runs.
#include "backend/backend.h"
#include "backend/kernels/random_math.h"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>
#include <omp.h>

#include <memory>

namespace {

using namespace tb;

constexpr int kThreads = 2;

Backend& backend() {
    static std::unique_ptr<Backend> b = createCpuBackend(kThreads);
    return *b;
}

Tensor filled(const Shape& s, uint64_t seed) {
    Tensor t = backend().empty(s, DType::F32);
    for (int64_t i = 0; i < t.numel(); ++i)
        t.data<float>()[i] = math::uniform01(seed, static_cast<uint64_t>(i)) - 0.5f;
    return t;
}

// mlp's first layer (784 -> 256) at batch 128: forward + backward.
void BM_LinearOpenBlas(benchmark::State& state) {
    const int64_t n = 128, in = 784, out = 256;
    Tensor x = filled({n, in}, 1), w = filled({out, in}, 2), b = filled({out}, 3);
    Tensor y = backend().empty({n, out}, DType::F32), dx = backend().empty({n, in}, DType::F32);
    Tensor dw = backend().empty({out, in}, DType::F32), db = backend().empty({out}, DType::F32);
    for (auto _ : state) {
        backend().linearForward(x, w, &b, y);
        backend().linearBackward(x, w, y, &dx, dw, &db);
    }
}
BENCHMARK(BM_LinearOpenBlas)->Unit(benchmark::kMicrosecond);

void BM_LinearOneDnnMatmul(benchmark::State& state) {
    backend(); // sets the OpenMP pool
    using namespace dnnl;
    using tag = memory::format_tag;
    const memory::dim n = 128, in = 784, out = 256;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    const auto md = [](memory::dims d, tag t) {
        return memory::desc(d, memory::data_type::f32, t);
    };
    // y = x w^T; dx = dy w; dw = dy^T x  (the same three products as the backend).
    matmul fwd(matmul::primitive_desc(
        matmul::desc(md({n, in}, tag::ab), md({in, out}, tag::ba), md({n, out}, tag::ab)), eng));
    matmul bwdData(matmul::primitive_desc(
        matmul::desc(md({n, out}, tag::ab), md({out, in}, tag::ab), md({n, in}, tag::ab)), eng));
    matmul bwdWeights(matmul::primitive_desc(
        matmul::desc(md({out, n}, tag::ba), md({n, in}, tag::ab), md({out, in}, tag::ab)), eng));
    memory x(md({n, in}, tag::ab), eng), w(md({in, out}, tag::ba), eng),
        y(md({n, out}, tag::ab), eng), dx(md({n, in}, tag::ab), eng),
        wPlain(md({out, in}, tag::ab), eng, w.get_data_handle()),
        dyT(md({out, n}, tag::ba), eng, y.get_data_handle()), dw(md({out, in}, tag::ab), eng);
    for (auto _ : state) {
        fwd.execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}});
        bwdData.execute(s, {{DNNL_ARG_SRC, y}, {DNNL_ARG_WEIGHTS, wPlain}, {DNNL_ARG_DST, dx}});
        bwdWeights.execute(s, {{DNNL_ARG_SRC, dyT}, {DNNL_ARG_WEIGHTS, x}, {DNNL_ARG_DST, dw}});
        s.wait();
    }
}
BENCHMARK(BM_LinearOneDnnMatmul)->Unit(benchmark::kMicrosecond);

// resnet20's first-stage convolution (16 -> 16, 3x3, 32x32) at batch 128: fwd + both bwd.
ConvDesc stageOneConv() {
    ConvDesc d;
    d.n = 128;
    d.c = d.k = 16;
    d.h = d.w = 32;
    d.r = d.s = 3;
    d.pad = 1;
    return d;
}

void BM_ConvBackendBlocked(benchmark::State& state) {
    const ConvDesc d = stageOneConv();
    Tensor x = filled({d.n, d.c, d.h, d.w}, 4), w = filled({d.k, d.c, d.r, d.s}, 5);
    Tensor y = backend().empty({d.n, d.k, d.h, d.w}, DType::F32);
    Tensor dx = backend().empty(x.shape(), DType::F32), dw = backend().empty(w.shape(), DType::F32);
    for (auto _ : state) {
        backend().convForward(d, x, w, nullptr, y);
        backend().convBackward(d, x, w, y, &dx, dw, nullptr);
    }
}
BENCHMARK(BM_ConvBackendBlocked)->Unit(benchmark::kMillisecond);

void BM_ConvOneDnnPlainNchw(benchmark::State& state) {
    backend();
    using namespace dnnl;
    using tag = memory::format_tag;
    const ConvDesc c = stageOneConv();
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    const memory::desc src({c.n, c.c, c.h, c.w}, memory::data_type::f32, tag::nchw),
        wei({c.k, c.c, c.r, c.s}, memory::data_type::f32, tag::oihw),
        dst({c.n, c.k, c.h, c.w}, memory::data_type::f32, tag::nchw);
    const memory::dims strides{1, 1}, pad{1, 1};
    const auto algo = algorithm::convolution_direct;
    convolution_forward::primitive_desc fpd(convolution_forward::desc(prop_kind::forward_training,
                                                                      algo, src, wei, dst, strides,
                                                                      pad, pad),
                                            eng);
    convolution_backward_data bwdData(convolution_backward_data::primitive_desc(
        convolution_backward_data::desc(algo, src, wei, dst, strides, pad, pad), eng, fpd));
    convolution_backward_weights bwdWeights(convolution_backward_weights::primitive_desc(
        convolution_backward_weights::desc(algo, src, wei, dst, strides, pad, pad), eng, fpd));
    convolution_forward fwd(fpd);
    memory x(src, eng), w(wei, eng), y(dst, eng), dx(src, eng), dw(wei, eng);
    state.SetLabel(fpd.impl_info_str());
    for (auto _ : state) {
        fwd.execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}});
        bwdData.execute(s,
                        {{DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, dx}});
        bwdWeights.execute(
            s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_DIFF_WEIGHTS, dw}});
        s.wait();
    }
}
BENCHMARK(BM_ConvOneDnnPlainNchw)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
