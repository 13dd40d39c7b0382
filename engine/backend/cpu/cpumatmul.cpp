// Dense layers on oneDNN matmul: measured 1.25-1.8x faster than OpenBLAS sgemm on the zoo's
// dense shapes here (tests/bench/bench_kernels.cpp). The transposes are memory descriptors
// (format tags), never copies, and the weight gradient accumulates through a sum post-op.
#include "backend/cpu/cpumatmul.h"

#include <dnnl.hpp>

#include <map>
#include <tuple>

namespace tb {

using dnnl::memory;
using tag = memory::format_tag;

namespace {

enum class Kind { Forward, ForwardBias, Data, Weights };

memory::desc md(memory::dim rows, memory::dim cols, tag t) {
    return memory::desc({rows, cols}, memory::data_type::f32, t);
}

} // namespace

struct CpuMatmulCache::Impl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    std::map<std::tuple<Kind, int64_t, int64_t, int64_t>, dnnl::matmul> primitives;

    dnnl::matmul& get(Kind kind, int64_t n, int64_t in, int64_t out) {
        const auto key = std::make_tuple(kind, n, in, out);
        auto it = primitives.find(key);
        if (it != primitives.end())
            return it->second;
        dnnl::matmul::desc d = [&] {
            switch (kind) {
            case Kind::Forward: // x(n, in) . w^T(in, out): w(out, in) read transposed
                return dnnl::matmul::desc(md(n, in, tag::ab), md(in, out, tag::ba),
                                          md(n, out, tag::ab));
            case Kind::ForwardBias:
                return dnnl::matmul::desc(md(n, in, tag::ab), md(in, out, tag::ba),
                                          md(1, out, tag::ab), md(n, out, tag::ab));
            case Kind::Data: // dy(n, out) . w(out, in)
                return dnnl::matmul::desc(md(n, out, tag::ab), md(out, in, tag::ab),
                                          md(n, in, tag::ab));
            case Kind::Weights: // dy^T(out, n) . x(n, in)
                break;
            }
            return dnnl::matmul::desc(md(out, n, tag::ba), md(n, in, tag::ab),
                                      md(out, in, tag::ab));
        }();
        dnnl::primitive_attr attr;
        if (kind == Kind::Weights) {
            dnnl::post_ops accumulate;
            accumulate.append_sum(1.0f);
            attr.set_post_ops(accumulate);
        }
        return primitives.emplace(key, dnnl::matmul(dnnl::matmul::primitive_desc(d, attr, engine)))
            .first->second;
    }

    void run(dnnl::matmul& p, const memory::desc& src, const float* a, const memory::desc& wei,
             const float* b, const memory::desc& dst, float* c, const float* bias = nullptr,
             memory::dim biasCols = 0) {
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, memory(src, engine, const_cast<float*>(a))},
            {DNNL_ARG_WEIGHTS, memory(wei, engine, const_cast<float*>(b))},
            {DNNL_ARG_DST, memory(dst, engine, c)}};
        if (bias)
            args.emplace(DNNL_ARG_BIAS,
                         memory(md(1, biasCols, tag::ab), engine, const_cast<float*>(bias)));
        p.execute(stream, args);
        stream.wait();
    }
};

CpuMatmulCache::CpuMatmulCache() : m_impl(std::make_unique<Impl>()) {}
CpuMatmulCache::~CpuMatmulCache() = default;

void CpuMatmulCache::clear() {
    m_impl->primitives.clear();
}

void CpuMatmulCache::forward(int64_t n, int64_t in, int64_t out, const float* x, const float* w,
                             const float* b, float* y) {
    auto& p = m_impl->get(b ? Kind::ForwardBias : Kind::Forward, n, in, out);
    m_impl->run(p, md(n, in, tag::ab), x, md(in, out, tag::ba), w, md(n, out, tag::ab), y, b, out);
}

void CpuMatmulCache::backwardData(int64_t n, int64_t in, int64_t out, const float* dy,
                                  const float* w, float* dx) {
    auto& p = m_impl->get(Kind::Data, n, in, out);
    m_impl->run(p, md(n, out, tag::ab), dy, md(out, in, tag::ab), w, md(n, in, tag::ab), dx);
}

void CpuMatmulCache::backwardWeights(int64_t n, int64_t in, int64_t out, const float* dy,
                                     const float* x, float* dw) {
    auto& p = m_impl->get(Kind::Weights, n, in, out);
    m_impl->run(p, md(out, n, tag::ba), dy, md(n, in, tag::ab), x, md(out, in, tag::ab), dw);
}

} // namespace tb
