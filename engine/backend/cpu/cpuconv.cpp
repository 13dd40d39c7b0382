// oneDNN convolution: forward, backward-data and backward-weights primitives per shape. oneDNN
// picks its blocked layouts (format any; on AVX-512 nChw16c), measured far faster here than its
// plain-NCHW gemm path, especially for backward-weights. Our NCHW tensors are reordered at the
// boundary; reorder primitives and blocked buffers are created once per shape and reused. With
// bf16 activations the same reorders also narrow the f32 master weights to bf16, so bf16
// compute costs no extra pass over the weights.
#include "backend/cpu/cpuconv.h"

#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <dnnl.hpp>

#include <string>
#include <unordered_map>

namespace tb {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

// Moves data between our plain layout and the layout a primitive wants, with the reorder
// primitive and the blocked buffer made once. When the layouts agree it is a no-op view. Each
// reorder it runs adds one to *reorders.
class LayoutBridge {
public:
    LayoutBridge() = default;
    LayoutBridge(const dnnl::engine& e, const memory::desc& plain, const memory::desc& blocked,
                 int64_t* reorders)
        : m_plain(plain, e, DNNL_MEMORY_NONE), m_same(plain == blocked), m_reorders(reorders) {
        if (m_same)
            return;
        m_blocked = memory(blocked, e);
        m_toBlocked = dnnl::reorder(m_plain, m_blocked);
        m_toPlain = dnnl::reorder(m_blocked, m_plain);
    }
    // The data at `plain` in the primitive's layout (reordered into the bridge's buffer).
    memory in(dnnl::stream& s, const void* plain) {
        m_plain.set_data_handle(const_cast<void*>(plain));
        if (m_same)
            return m_plain;
        m_toBlocked.execute(s, m_plain, m_blocked);
        ++*m_reorders;
        return m_blocked;
    }
    // Where a primitive should write output destined for `plain`; call flush() afterwards.
    memory out(void* plain) {
        m_plain.set_data_handle(plain);
        return m_same ? m_plain : m_blocked;
    }
    void flush(dnnl::stream& s) {
        if (m_same)
            return;
        m_toPlain.execute(s, m_blocked, m_plain);
        ++*m_reorders;
    }

private:
    memory m_plain, m_blocked;
    dnnl::reorder m_toBlocked, m_toPlain;
    bool m_same = true;
    int64_t* m_reorders = nullptr;
};

} // namespace

struct CpuConvCache::Entry {
    ConvDesc desc;
    DType act = DType::F32;
    bool bias = false;
    memory::desc biasPlain;
    dnnl::convolution_forward fwd;
    dnnl::convolution_backward_data bwdData;
    dnnl::convolution_backward_weights bwdWei;
    LayoutBridge fwdSrc, fwdWei, fwdDst;
    LayoutBridge bwdDiffDst, bwdWeights, bwdDiffSrc;
    LayoutBridge wwSrc, wwDiffDst, wwDiffWei;
    bool diffDstShared = false; // bwd-data and bwd-weights want the same diff_dst layout
    std::vector<float> diffWeights, diffBias;
};

struct CpuConvCache::Impl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    std::vector<std::unique_ptr<Entry>> entries;
    int64_t reorders = 0;
};

CpuConvCache::CpuConvCache() : m_impl(std::make_unique<Impl>()) {}
CpuConvCache::~CpuConvCache() = default;

void CpuConvCache::clear() {
    m_impl->entries.clear();
}

int64_t CpuConvCache::reorders() const {
    return m_impl->reorders;
}

void CpuConvCache::resetReorders() {
    m_impl->reorders = 0;
}

CpuConvCache::Entry& CpuConvCache::entry(const ConvDesc& d, DType act, bool bias) {
    for (auto& e : m_impl->entries)
        if (e->desc == d && e->act == act && e->bias == bias)
            return *e;
    if (act != DType::F32 && act != DType::BF16)
        throw Error("convolution: oneDNN computes in f32 or bf16 here, not " +
                    std::string(dtypeName(act)));
    const auto& eng = m_impl->engine;
    auto e = std::make_unique<Entry>();
    e->desc = d;
    e->act = act;
    e->bias = bias;
    const dt a = act == DType::BF16 ? dt::bf16 : dt::f32; // activations and compute weights
    const memory::dims src{d.n, d.c, d.h, d.w}, wei{d.k, d.c, d.r, d.s},
        dst{d.n, d.k, d.outH(), d.outW()}, b{d.k};
    const memory::dims strides{d.stride, d.stride}, pad{d.pad, d.pad};
    const memory::desc srcPlain(src, a, tag::nchw), weiPlain(wei, dt::f32, tag::oihw),
        dstPlain(dst, a, tag::nchw);
    e->biasPlain = memory::desc(b, dt::f32, tag::x);
    const memory::desc srcAny(src, a, tag::any), weiAny(wei, a, tag::any), dstAny(dst, a, tag::any),
        diffWeiAny(wei, dt::f32, tag::any);
    const auto algo = dnnl::algorithm::convolution_direct;
    const auto training = dnnl::prop_kind::forward_training;
    using Fwd = dnnl::convolution_forward;
    using BwdData = dnnl::convolution_backward_data;
    using BwdWei = dnnl::convolution_backward_weights;
    const Fwd::primitive_desc fwdPd(
        bias ? Fwd::desc(training, algo, srcAny, weiAny, e->biasPlain, dstAny, strides, pad, pad)
             : Fwd::desc(training, algo, srcAny, weiAny, dstAny, strides, pad, pad),
        eng);
    const BwdData::primitive_desc dataPd(
        BwdData::desc(algo, srcAny, weiAny, dstAny, strides, pad, pad), eng, fwdPd);
    // Weight gradients stay f32: they accumulate into the f32 master gradients.
    const BwdWei::primitive_desc weiPd(
        bias ? BwdWei::desc(algo, srcAny, diffWeiAny, e->biasPlain, dstAny, strides, pad, pad)
             : BwdWei::desc(algo, srcAny, diffWeiAny, dstAny, strides, pad, pad),
        eng, fwdPd);
    e->fwd = Fwd(fwdPd);
    e->bwdData = BwdData(dataPd);
    e->bwdWei = BwdWei(weiPd);
    int64_t* reorders = &m_impl->reorders;
    e->fwdSrc = LayoutBridge(eng, srcPlain, fwdPd.src_desc(), reorders);
    e->fwdWei = LayoutBridge(eng, weiPlain, fwdPd.weights_desc(), reorders);
    e->fwdDst = LayoutBridge(eng, dstPlain, fwdPd.dst_desc(), reorders);
    e->bwdDiffDst = LayoutBridge(eng, dstPlain, dataPd.diff_dst_desc(), reorders);
    e->bwdWeights = LayoutBridge(eng, weiPlain, dataPd.weights_desc(), reorders);
    e->bwdDiffSrc = LayoutBridge(eng, srcPlain, dataPd.diff_src_desc(), reorders);
    e->wwSrc = LayoutBridge(eng, srcPlain, weiPd.src_desc(), reorders);
    e->wwDiffDst = LayoutBridge(eng, dstPlain, weiPd.diff_dst_desc(), reorders);
    e->wwDiffWei = LayoutBridge(eng, weiPlain, weiPd.diff_weights_desc(), reorders);
    e->diffDstShared = dataPd.diff_dst_desc() == weiPd.diff_dst_desc();
    e->diffWeights.resize(static_cast<std::size_t>(d.k * d.c * d.r * d.s));
    e->diffBias.resize(static_cast<std::size_t>(d.k));
    m_impl->entries.push_back(std::move(e));
    return *m_impl->entries.back();
}

void CpuConvCache::forward(const ConvDesc& d, DType act, const void* x, const float* w,
                           const float* b, void* y) {
    Entry& e = entry(d, act, b != nullptr);
    auto& s = m_impl->stream;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.fwdSrc.in(s, x)},
                                         {DNNL_ARG_WEIGHTS, e.fwdWei.in(s, w)},
                                         {DNNL_ARG_DST, e.fwdDst.out(y)}};
    if (b)
        args.emplace(DNNL_ARG_BIAS, memory(e.biasPlain, m_impl->engine, const_cast<float*>(b)));
    e.fwd.execute(s, args);
    e.fwdDst.flush(s);
    s.wait();
}

void CpuConvCache::backward(const ConvDesc& d, DType act, const void* x, const float* w,
                            const void* dy, void* dx, float* dw, float* db) {
    Entry& e = entry(d, act, db != nullptr);
    auto& s = m_impl->stream;
    memory diffDst = e.wwDiffDst.in(s, dy);
    if (dx) {
        const memory dataDiffDst = e.diffDstShared ? diffDst : e.bwdDiffDst.in(s, dy);
        e.bwdData.execute(s, {{DNNL_ARG_DIFF_DST, dataDiffDst},
                              {DNNL_ARG_WEIGHTS, e.bwdWeights.in(s, w)},
                              {DNNL_ARG_DIFF_SRC, e.bwdDiffSrc.out(dx)}});
        e.bwdDiffSrc.flush(s);
    }
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, e.wwSrc.in(s, x)},
        {DNNL_ARG_DIFF_DST, diffDst},
        {DNNL_ARG_DIFF_WEIGHTS, e.wwDiffWei.out(e.diffWeights.data())}};
    if (db)
        args.emplace(DNNL_ARG_DIFF_BIAS, memory(e.biasPlain, m_impl->engine, e.diffBias.data()));
    e.bwdWei.execute(s, args);
    e.wwDiffWei.flush(s);
    s.wait();
    // Parameter gradients accumulate (gradient accumulation, shared weights).
    const float* g = e.diffWeights.data();
    parallelFor(static_cast<int64_t>(e.diffWeights.size()), [&](int64_t i) { dw[i] += g[i]; });
    if (db)
        for (int64_t i = 0; i < d.k; ++i)
            db[i] += e.diffBias[static_cast<std::size_t>(i)];
}

} // namespace tb
