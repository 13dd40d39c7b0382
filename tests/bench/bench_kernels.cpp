// Kernel benchmarks behind the CPU backend's library choices, on this model zoo's shapes:
// dense layers through the backend (oneDNN matmul) vs OpenBLAS sgemm, convolution through the
// backend (oneDNN, blocked layouts) vs oneDNN on plain NCHW (its gemm path), and batch norm +
// ReLU forward and backward on plain, channel-blocked and channels-last activations in f32 and
// bf16. Two threads, as the comparison with PyTorch runs.
#include "backend/backend.h"
#include "backend/kernels/random_math.h"

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.hpp>
#include <omp.h>

#include <memory>
#include <string>

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

// Dense layers of the zoo, forward + backward: mlp fc1 (128 x 784 -> 256), mlp fc2
// (128 x 256 -> 128), fmnist-cnn fc1 (64 x 3136 -> 128), lenet5 fc1 (64 x 400 -> 120).
void linearShapes(benchmark::internal::Benchmark* b) {
    b->Args({128, 784, 256})->Args({128, 256, 128})->Args({64, 3136, 128})->Args({64, 400, 120});
}

void BM_LinearBackend(benchmark::State& state) {
    const int64_t n = state.range(0), in = state.range(1), out = state.range(2);
    Tensor x = filled({n, in}, 1), w = filled({out, in}, 2), b = filled({out}, 3);
    Tensor y = backend().empty({n, out}, DType::F32), dx = backend().empty({n, in}, DType::F32);
    Tensor dw = backend().empty({out, in}, DType::F32), db = backend().empty({out}, DType::F32);
    for (auto _ : state) {
        backend().linearForward(x, w, &b, y);
        backend().linearBackward(x, w, y, &dx, dw, &db);
    }
}
BENCHMARK(BM_LinearBackend)->Apply(linearShapes)->Unit(benchmark::kMicrosecond);

// The same three products (y = x w^T, dx = dy w, dw += dy^T x) on OpenBLAS, bias left out.
void BM_LinearOpenBlas(benchmark::State& state) {
    backend(); // sets the OpenMP pool
    openblas_set_num_threads(kThreads);
    const int n = static_cast<int>(state.range(0)), in = static_cast<int>(state.range(1)),
              out = static_cast<int>(state.range(2));
    Tensor x = filled({n, in}, 1), w = filled({out, in}, 2);
    Tensor y = backend().empty({n, out}, DType::F32), dx = backend().empty({n, in}, DType::F32);
    Tensor dw = backend().empty({out, in}, DType::F32);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, out, in, 1.0f, x.data<float>(), in,
                    w.data<float>(), in, 0.0f, y.data<float>(), out);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, in, out, 1.0f, y.data<float>(),
                    out, w.data<float>(), in, 0.0f, dx.data<float>(), in);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, n, 1.0f, y.data<float>(), out,
                    x.data<float>(), in, 1.0f, dw.data<float>(), in);
    }
}
BENCHMARK(BM_LinearOpenBlas)->Apply(linearShapes)->Unit(benchmark::kMicrosecond);

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

// resnet20's first-stage batch norm + ReLU (128 x 16 x 32 x 32), forward and backward, with the
// activations plain (layout 0), as a convolution leaves them on this ISA (1: nChw16c on AVX-512)
// or channels-last (2: as on AMX for bf16), in f32 (arg 0) or bf16 (arg 1). Every sum is in
// double (PyTorch's precision); the loop is memory-bound, which hides most of that cost.
void BM_BatchNormRelu(benchmark::State& state) {
    const int layout = static_cast<int>(state.range(0));
    const DType t = state.range(1) != 0 ? DType::BF16 : DType::F32;
    static const std::unique_ptr<Backend> channelsLast = [] {
        auto b = createCpuBackend(kThreads);
        b->setMemoryFormat(MemoryFormat::ChannelsLast);
        return b;
    }();
    Backend& b = layout == 2 ? *channelsLast : backend();
    const ConvDesc d = stageOneConv();
    const Shape s{d.n, d.c, d.h, d.w}, c{d.c};
    const Tensor source = filled(s, 6);
    Tensor x = b.empty(s, t), dy = b.empty(s, t);
    if (layout != 0) { // a 1x1 convolution with identity weights: exact, in the conv's layout
        ConvDesc identity = d;
        identity.r = identity.s = 1;
        identity.pad = 0;
        Tensor eye = filled({d.c, d.c, 1, 1}, 7);
        for (int64_t i = 0; i < d.c * d.c; ++i)
            eye.data<float>()[i] = i / d.c == i % d.c ? 1.0f : 0.0f;
        Tensor plain = b.empty(s, t);
        b.cast(source, plain);
        b.convForward(identity, plain, eye, nullptr, x);
        b.convForward(identity, plain, eye, nullptr, dy);
    } else {
        b.cast(source, x);
        b.cast(source, dy);
    }
    Tensor gamma = filled(c, 8), beta = filled(c, 9), mean = filled(c, 10), var = filled(c, 11),
           saveMean = filled(c, 12), saveInvStd = filled(c, 13), dgamma = filled(c, 14),
           dbeta = filled(c, 15);
    b.fill(var, 1.0f);
    Tensor bn = b.empty(s, t), relu = b.empty(s, t), drelu = b.empty(s, t), dx = b.empty(s, t);
    for (auto _ : state) {
        b.batchNormForwardTrain(x, gamma, beta, mean, var, 0.1f, 1e-5f, bn, saveMean, saveInvStd);
        b.activationForward(Activation::ReLU, 0.0f, bn, relu);
        b.activationBackward(Activation::ReLU, 0.0f, bn, dy, drelu);
        b.batchNormBackward(x, drelu, gamma, saveMean, saveInvStd, 1e-5f, dx, dgamma, dbeta);
    }
    static const char* const names[] = {"plain ", "conv-layout ", "channels-last "};
    state.SetLabel(names[layout] + std::string(dtypeName(t)));
}
BENCHMARK(BM_BatchNormRelu)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"layout", "bf16"})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
