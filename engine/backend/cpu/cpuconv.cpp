// oneDNN convolution: forward, backward-data and backward-weights primitives per shape. oneDNN
// picks its blocked layouts (format any; on AVX-512 nChw16c), measured far faster here than its
// plain-NCHW gemm path, especially for backward-weights. Activations already blocked are read
// in place and outputs stay blocked (cpulayout.h); plain ones are reordered at the boundary,
// with reorder primitives and staging buffers created once per shape and reused. With
// bf16 activations the same reorders also narrow the f32 master weights to bf16, so bf16
// compute costs no extra pass over the weights.
#include "backend/cpu/cpuconv.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <string>
#include <unordered_map>

namespace tb {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

// Moves data between the layout a tensor is in and the layout a primitive wants, with the
// reorder primitives made once. Activations that already are in the primitive's blocked layout
// (Buffer::layout() == its block) are used in place, and outputs stay blocked; data in plain
// NCHW (or a different block) is reordered through a staging buffer, allocated on first need
// (most never are, now that activations stay blocked). Each reorder adds one to *reorders.
class LayoutBridge {
public:
    LayoutBridge() = default;
    // `block`: the primitive's layout as a Buffer::layout() (cpulayout.h), 0 when it is not
    // one a tensor can be kept in (weights, or channels that do not fill whole blocks).
    LayoutBridge(const dnnl::engine& e, const memory::desc& plain, const memory::desc& wanted,
                 int block, int64_t* reorders)
        : m_engine(e), m_plain(plain, e, DNNL_MEMORY_NONE), m_wanted(wanted),
          m_direct(wanted, e, DNNL_MEMORY_NONE), m_same(plain == wanted), m_block(block),
          m_reorders(reorders) {
        if (m_same)
            return;
        m_toWanted = dnnl::reorder(m_plain, m_direct);
        m_toPlain = dnnl::reorder(m_direct, m_plain);
    }

    // `data`, laid out as `layout`, in the primitive's layout.
    memory in(dnnl::stream& s, const void* data, int layout) {
        void* p = const_cast<void*>(data);
        if (layout != 0 && layout == m_block) {
            m_direct.set_data_handle(p);
            return m_direct;
        }
        if (layout == 0) {
            m_plain.set_data_handle(p);
            if (m_same)
                return m_plain;
            m_toWanted.execute(s, m_plain, staging());
        } else { // blocked, but not as this primitive wants: one reorder between the two
            if (m_otherLayout != layout) {
                const memory::dims& dims = m_wanted.dims();
                m_other =
                    memory(activationDesc(Shape(std::vector<int64_t>(dims.begin(), dims.end())),
                                          wantedType(), layout),
                           m_engine, DNNL_MEMORY_NONE);
                m_fromOther = dnnl::reorder(m_other, m_direct);
                m_otherLayout = layout;
            }
            m_other.set_data_handle(p);
            m_fromOther.execute(s, m_other, staging());
        }
        ++*m_reorders;
        return staging();
    }
    // Where a primitive writes output destined for `data`; call flush() afterwards. With a
    // block and keepBlocked, the output stays blocked in `data` and flush() returns the block
    // for the caller to mark the tensor with; otherwise flush() reorders it to plain, returns 0.
    memory out(void* data, bool keepBlocked) {
        m_keep = keepBlocked && m_block != 0;
        if (m_keep) {
            m_direct.set_data_handle(data);
            return m_direct;
        }
        m_plain.set_data_handle(data);
        return m_same ? m_plain : staging();
    }
    int flush(dnnl::stream& s) {
        if (m_keep)
            return m_block;
        if (!m_same) {
            m_toPlain.execute(s, staging(), m_plain);
            ++*m_reorders;
        }
        return 0;
    }

private:
    memory& staging() {
        if (!m_stagingAllocated) {
            m_staging = memory(m_wanted, m_engine);
            m_stagingAllocated = true;
        }
        return m_staging;
    }
    DType wantedType() const { return m_wanted.data_type() == dt::bf16 ? DType::BF16 : DType::F32; }

    dnnl::engine m_engine;
    memory m_plain, m_staging, m_other;
    memory::desc m_wanted;
    memory m_direct;
    dnnl::reorder m_toWanted, m_toPlain, m_fromOther;
    bool m_same = true, m_keep = false, m_stagingAllocated = false;
    int m_block = 0, m_otherLayout = 0;
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
    dnnl::engine engine;
    dnnl::stream stream{engine};
    int64_t* reorders;
    std::vector<std::unique_ptr<Entry>> entries;
};

CpuConvCache::CpuConvCache(const dnnl::engine& engine, int64_t* reorders)
    : m_impl(std::make_unique<Impl>(Impl{engine, dnnl::stream(engine), reorders, {}})) {}
CpuConvCache::~CpuConvCache() = default;

void CpuConvCache::clear() {
    m_impl->entries.clear();
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
    int64_t* reorders = m_impl->reorders;
    const Shape srcShape{d.n, d.c, d.h, d.w}, dstShape{d.n, d.k, d.outH(), d.outW()};
    const auto activation = [&](const memory::desc& plain, const memory::desc& wanted,
                                const Shape& shape) {
        return LayoutBridge(eng, plain, wanted, blockOf(wanted, shape, act), reorders);
    };
    const auto weights = [&](const memory::desc& wanted) {
        return LayoutBridge(eng, weiPlain, wanted, 0, reorders);
    };
    e->fwdSrc = activation(srcPlain, fwdPd.src_desc(), srcShape);
    e->fwdWei = weights(fwdPd.weights_desc());
    e->fwdDst = activation(dstPlain, fwdPd.dst_desc(), dstShape);
    e->bwdDiffDst = activation(dstPlain, dataPd.diff_dst_desc(), dstShape);
    e->bwdWeights = weights(dataPd.weights_desc());
    e->bwdDiffSrc = activation(srcPlain, dataPd.diff_src_desc(), srcShape);
    e->wwSrc = activation(srcPlain, weiPd.src_desc(), srcShape);
    e->wwDiffDst = activation(dstPlain, weiPd.diff_dst_desc(), dstShape);
    e->wwDiffWei = weights(weiPd.diff_weights_desc());
    e->diffDstShared = dataPd.diff_dst_desc() == weiPd.diff_dst_desc();
    e->diffWeights.resize(static_cast<std::size_t>(d.k * d.c * d.r * d.s));
    e->diffBias.resize(static_cast<std::size_t>(d.k));
    m_impl->entries.push_back(std::move(e));
    return *m_impl->entries.back();
}

int CpuConvCache::forward(const ConvDesc& d, DType act, LaidOut x, const float* w, const float* b,
                          void* y, bool keepBlocked) {
    Entry& e = entry(d, act, b != nullptr);
    auto& s = m_impl->stream;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.fwdSrc.in(s, x.data, x.layout)},
                                         {DNNL_ARG_WEIGHTS, e.fwdWei.in(s, w, 0)},
                                         {DNNL_ARG_DST, e.fwdDst.out(y, keepBlocked)}};
    if (b)
        args.emplace(DNNL_ARG_BIAS, memory(e.biasPlain, m_impl->engine, const_cast<float*>(b)));
    e.fwd.execute(s, args);
    const int layout = e.fwdDst.flush(s);
    s.wait();
    return layout;
}

int CpuConvCache::backward(const ConvDesc& d, DType act, LaidOut x, const float* w, LaidOut dy,
                           void* dx, bool keepBlocked, float* dw, float* db) {
    Entry& e = entry(d, act, db != nullptr);
    auto& s = m_impl->stream;
    memory diffDst = e.wwDiffDst.in(s, dy.data, dy.layout);
    int dxLayout = 0;
    if (dx) {
        const memory dataDiffDst =
            e.diffDstShared ? diffDst : e.bwdDiffDst.in(s, dy.data, dy.layout);
        e.bwdData.execute(s, {{DNNL_ARG_DIFF_DST, dataDiffDst},
                              {DNNL_ARG_WEIGHTS, e.bwdWeights.in(s, w, 0)},
                              {DNNL_ARG_DIFF_SRC, e.bwdDiffSrc.out(dx, keepBlocked)}});
        dxLayout = e.bwdDiffSrc.flush(s);
    }
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, e.wwSrc.in(s, x.data, x.layout)},
        {DNNL_ARG_DIFF_DST, diffDst},
        {DNNL_ARG_DIFF_WEIGHTS, e.wwDiffWei.out(e.diffWeights.data(), false)}};
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
    return dxLayout;
}

} // namespace tb
