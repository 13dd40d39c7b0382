// Layer norm on oneDNN's layer_normalization primitive (2.x API: op descriptor, then primitive
// descriptor), scale and shift as separate f32 vectors (use_scale | use_shift).
#include "backend/cpu/cpulayernorm.h"

#include <dnnl.hpp>

#include <map>
#include <tuple>

namespace tb {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

const auto kFlags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;

memory::desc rows(int64_t m, int64_t d) {
    return memory::desc({m, d}, dt::f32, tag::ab);
}
memory::desc vec(int64_t n) {
    return memory::desc({n}, dt::f32, tag::a);
}

} // namespace

struct CpuLayerNormCache::Impl {
    struct Primitives {
        dnnl::layer_normalization_forward forward;
        dnnl::layer_normalization_backward backward;
    };
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    std::map<std::tuple<int64_t, int64_t, float>, Primitives> primitives;

    Primitives& get(int64_t m, int64_t d, float eps) {
        const auto key = std::make_tuple(m, d, eps);
        if (auto it = primitives.find(key); it != primitives.end())
            return it->second;
        const dnnl::layer_normalization_forward::primitive_desc fwd(
            {dnnl::prop_kind::forward_training, rows(m, d), vec(m), eps, kFlags}, engine);
        const dnnl::layer_normalization_backward::primitive_desc bwd(
            {dnnl::prop_kind::backward, rows(m, d), rows(m, d), vec(m), eps, kFlags}, engine, fwd);
        return primitives
            .emplace(key, Primitives{dnnl::layer_normalization_forward(fwd),
                                     dnnl::layer_normalization_backward(bwd)})
            .first->second;
    }

    memory mem(const memory::desc& md, const float* p) {
        return memory(md, engine, const_cast<float*>(p));
    }
};

CpuLayerNormCache::CpuLayerNormCache() : m_impl(std::make_unique<Impl>()) {}
CpuLayerNormCache::~CpuLayerNormCache() = default;

void CpuLayerNormCache::forward(int64_t m, int64_t d, float eps, const float* x, const float* gamma,
                                const float* beta, float* y, float* mean, float* variance) {
    Impl& s = *m_impl;
    s.get(m, d, eps).forward.execute(s.stream, {{DNNL_ARG_SRC, s.mem(rows(m, d), x)},
                                                {DNNL_ARG_DST, s.mem(rows(m, d), y)},
                                                {DNNL_ARG_SCALE, s.mem(vec(d), gamma)},
                                                {DNNL_ARG_SHIFT, s.mem(vec(d), beta)},
                                                {DNNL_ARG_MEAN, s.mem(vec(m), mean)},
                                                {DNNL_ARG_VARIANCE, s.mem(vec(m), variance)}});
    s.stream.wait();
}

void CpuLayerNormCache::backward(int64_t m, int64_t d, float eps, const float* x, const float* dy,
                                 const float* gamma, const float* shift, const float* mean,
                                 const float* variance, float* dx, float* dgamma, float* dbeta) {
    Impl& s = *m_impl;
    s.get(m, d, eps).backward.execute(s.stream, {{DNNL_ARG_SRC, s.mem(rows(m, d), x)},
                                                 {DNNL_ARG_DIFF_DST, s.mem(rows(m, d), dy)},
                                                 {DNNL_ARG_SCALE, s.mem(vec(d), gamma)},
                                                 {DNNL_ARG_SHIFT, s.mem(vec(d), shift)},
                                                 {DNNL_ARG_MEAN, s.mem(vec(m), mean)},
                                                 {DNNL_ARG_VARIANCE, s.mem(vec(m), variance)},
                                                 {DNNL_ARG_DIFF_SRC, s.mem(rows(m, d), dx)},
                                                 {DNNL_ARG_DIFF_SCALE, s.mem(vec(d), dgamma)},
                                                 {DNNL_ARG_DIFF_SHIFT, s.mem(vec(d), dbeta)}});
    s.stream.wait();
}

} // namespace tb
