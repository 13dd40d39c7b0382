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

memory::desc md(memory::dim rows, memory::dim cols, tag t, DType type = DType::F32) {
    return memory::desc({rows, cols},
                        type == DType::BF16 ? memory::data_type::bf16 : memory::data_type::f32, t);
}

} // namespace

struct CpuMatmulCache::Impl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    std::map<std::tuple<Kind, DType, int64_t, int64_t, int64_t>, dnnl::matmul> primitives;

    dnnl::matmul& get(Kind kind, DType a, int64_t n, int64_t in, int64_t out) {
        const auto key = std::make_tuple(kind, a, n, in, out);
        auto it = primitives.find(key);
        if (it != primitives.end())
            return it->second;
        dnnl::matmul::desc d = [&] {
            switch (kind) {
            case Kind::Forward: // x(n, in) . w^T(in, out): w(out, in) read transposed
                return dnnl::matmul::desc(md(n, in, tag::ab, a), md(in, out, tag::ba, a),
                                          md(n, out, tag::ab, a));
            case Kind::ForwardBias:
                return dnnl::matmul::desc(md(n, in, tag::ab, a), md(in, out, tag::ba, a),
                                          md(1, out, tag::ab), md(n, out, tag::ab, a));
            case Kind::Data: // dy(n, out) . w(out, in)
                return dnnl::matmul::desc(md(n, out, tag::ab, a), md(out, in, tag::ab, a),
                                          md(n, in, tag::ab, a));
            case Kind::Weights: // dy^T(out, n) . x(n, in), into the f32 gradient
                break;
            }
            return dnnl::matmul::desc(md(out, n, tag::ba, a), md(n, in, tag::ab, a),
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

    void run(dnnl::matmul& p, const memory::desc& src, const void* a, const memory::desc& wei,
             const void* b, const memory::desc& dst, void* c, const float* bias = nullptr,
             memory::dim biasCols = 0) {
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, memory(src, engine, const_cast<void*>(a))},
            {DNNL_ARG_WEIGHTS, memory(wei, engine, const_cast<void*>(b))},
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

void CpuMatmulCache::forward(DType a, int64_t n, int64_t in, int64_t out, const void* x,
                             const void* w, const float* b, void* y) {
    auto& p = m_impl->get(b ? Kind::ForwardBias : Kind::Forward, a, n, in, out);
    m_impl->run(p, md(n, in, tag::ab, a), x, md(in, out, tag::ba, a), w, md(n, out, tag::ab, a), y,
                b, out);
}

void CpuMatmulCache::backwardData(DType a, int64_t n, int64_t in, int64_t out, const void* dy,
                                  const void* w, void* dx) {
    auto& p = m_impl->get(Kind::Data, a, n, in, out);
    m_impl->run(p, md(n, out, tag::ab, a), dy, md(out, in, tag::ab, a), w, md(n, in, tag::ab, a),
                dx);
}

void CpuMatmulCache::backwardWeights(DType a, int64_t n, int64_t in, int64_t out, const void* dy,
                                     const void* x, float* dw) {
    auto& p = m_impl->get(Kind::Weights, a, n, in, out);
    m_impl->run(p, md(out, n, tag::ba, a), dy, md(n, in, tag::ab, a), x, md(out, in, tag::ab), dw);
}

} // namespace tb
