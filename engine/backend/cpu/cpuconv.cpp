// oneDNN convolution: forward, backward-data and backward-weights primitives per shape. oneDNN
// picks the layouts (format any; on AVX-512 nChw16c, channels-last for bf16 on AMX), measured
// far faster here than its plain-NCHW gemm path, especially for backward-weights. Activations
// already blocked are read in place and outputs stay blocked (cpulayout.h); plain ones are
// reordered at the boundary, with reorder primitives and staging buffers created once per shape and
// reused. With bf16 activations the same reorders also narrow the f32 master weights to bf16, so
// bf16 compute costs no extra pass over the weights. 3x3 stride-1 f32 convolutions use oneDNN's
// Winograd algorithm where it has one and the setting allows (setWinograd).
#include "backend/cpu/cpuconv.h"

#include "backend/cpu/cpuisa.h"
#include "backend/cpu/cpulayout.h"
#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <optional>
#include <string>
#include <unordered_map>

namespace tb {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

// Moves data between the layout a tensor is in and the layout a primitive wants, with the
// reorder primitives made once. Activations that already are in the primitive's layout
// (Buffer::layout() == its kept layout) are used in place, and outputs stay in it; data in
// plain NCHW (or another kept layout) is reordered through a staging buffer, allocated on first
// need (most never are, now that activations keep the convolutions' layout). Each reorder adds
// one to *reorders.
class LayoutBridge {
public:
    LayoutBridge() = default;
    // `kept`: the primitive's layout as a Buffer::layout() (cpulayout.h), 0 when it is not
    // one a tensor can be kept in (weights, or channels that do not fill whole blocks).
    // Reorders are counted in *counts, as weights' when `weights`.
    LayoutBridge(const dnnl::engine& e, const memory::desc& plain, const memory::desc& wanted,
                 int kept, ReorderCounts* counts, bool weights)
        : m_engine(e), m_plain(plain, e, DNNL_MEMORY_NONE), m_wanted(wanted),
          m_direct(wanted, e, DNNL_MEMORY_NONE), m_same(plain == wanted), m_kept(kept),
          m_counts(counts), m_weights(weights) {
        if (m_same)
            return;
        m_toWanted = dnnl::reorder(m_plain, m_direct);
        m_toPlain = dnnl::reorder(m_direct, m_plain);
    }

    // `data`, laid out as `layout`, in the primitive's layout (`external`: see LaidOut).
    memory in(dnnl::stream& s, const void* data, int layout, bool external = false) {
        void* p = const_cast<void*>(data);
        m_stagedFrom = nullptr;
        if (layout != 0 && layout == m_kept) {
            m_direct.set_data_handle(p);
            return m_direct;
        }
        if (layout == 0) {
            m_plain.set_data_handle(p);
            if (m_same)
                return m_plain;
            m_toWanted.execute(s, m_plain, staging());
        } else { // kept in another layout than this primitive wants: one reorder between them
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
        ++(m_weights ? m_counts->weights : external ? m_counts->inputs : m_counts->activations);
        m_stagedFrom = data;
        m_stagedLayout = layout;
        return staging();
    }
    // The staging buffer when the last in() reordered exactly this data into it; else null.
    // (A convolution's input is unchanged between its forward and backward, so backward-weights
    // can read what forward staged instead of reordering the same tensor again.)
    const memory* stagedCopyOf(const void* data, int layout) {
        return m_stagedFrom == data && m_stagedLayout == layout ? &staging() : nullptr;
    }
    const memory::desc& wanted() const { return m_wanted; }
    // Where a primitive writes output destined for `data`; call flush() afterwards. With a kept
    // layout and keepBlocked, the output stays in it in `data` and flush() returns the layout
    // for the caller to mark the tensor with; otherwise flush() reorders it to plain, returns 0.
    memory out(void* data, bool keepBlocked) {
        m_keep = keepBlocked && m_kept != 0;
        if (m_keep) {
            m_direct.set_data_handle(data);
            return m_direct;
        }
        m_plain.set_data_handle(data);
        return m_same ? m_plain : staging();
    }
    int flush(dnnl::stream& s) {
        if (m_keep)
            return m_kept;
        if (!m_same) {
            m_toPlain.execute(s, staging(), m_plain);
            ++(m_weights ? m_counts->weights : m_counts->activations);
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
    int m_kept = 0, m_otherLayout = 0;
    ReorderCounts* m_counts = nullptr;
    bool m_weights = false;
    const void* m_stagedFrom = nullptr;
    int m_stagedLayout = 0;
};

} // namespace

struct CpuConvCache::Entry {
    ConvDesc desc;
    DType act = DType::F32;
    bool bias = false;
    bool inputLayer = false; // reads the data batch (LaidOut::external): computes no dx
    memory::desc biasPlain;
    dnnl::convolution_forward fwd;
    dnnl::convolution_backward_data bwdData;
    dnnl::convolution_backward_weights bwdWei;
    LayoutBridge fwdSrc, fwdWei, fwdDst;
    LayoutBridge bwdDiffDst, bwdWeights, bwdDiffSrc;
    LayoutBridge wwSrc, wwDiffDst, wwDiffWei;
    bool diffDstShared = false; // bwd-data and bwd-weights want the same diff_dst layout
    bool winograd = false;
    std::vector<float> diffWeights, diffBias;
};

struct CpuConvCache::Impl {
    dnnl::engine engine;
    dnnl::stream stream{engine};
    ReorderCounts* reorders;
    bool channelsLast = false;
    bool winograd = true;
    std::vector<std::unique_ptr<Entry>> entries;
};

CpuConvCache::CpuConvCache(const dnnl::engine& engine, ReorderCounts* reorders)
    : m_impl(
          std::make_unique<Impl>(Impl{engine, dnnl::stream(engine), reorders, false, true, {}})) {}
CpuConvCache::~CpuConvCache() = default;

void CpuConvCache::clear() {
    m_impl->entries.clear();
}

void CpuConvCache::setChannelsLast(bool on) {
    if (on != m_impl->channelsLast)
        clear();
    m_impl->channelsLast = on;
}

void CpuConvCache::setWinograd(bool on) {
    if (on != m_impl->winograd)
        clear();
    m_impl->winograd = on;
}

bool CpuConvCache::winogradFits(const ConvDesc& d, DType act) {
    return act == DType::F32 && d.groups == 1 && d.r == 3 && d.s == 3 && d.stride == 1 &&
           d.dilation == 1 && d.c >= kWinogradMinChannels && d.k >= kWinogradMinChannels &&
           d.c % 16 == 0 && d.k % 16 == 0;
}

ConvAlgorithmCounts CpuConvCache::algorithmCounts() const {
    ConvAlgorithmCounts counts;
    for (const auto& e : m_impl->entries) {
        ++counts.shapes;
        counts.winograd += e->winograd ? 1 : 0;
    }
    return counts;
}

CpuConvCache::Entry& CpuConvCache::entry(const ConvDesc& d, DType act, bool bias, bool inputLayer) {
    for (auto& e : m_impl->entries)
        if (e->desc == d && e->act == act && e->bias == bias && e->inputLayer == inputLayer)
            return *e;
    if (act != DType::F32 && act != DType::BF16)
        throw Error("convolution: oneDNN computes in f32 or bf16 here, not " +
                    std::string(dtypeName(act)));
    const auto& eng = m_impl->engine;
    auto e = std::make_unique<Entry>();
    e->desc = d;
    e->act = act;
    e->bias = bias;
    e->inputLayer = inputLayer;
    const dt a = act == DType::BF16 ? dt::bf16 : dt::f32; // activations and compute weights
    // Grouped weights are (groups, k / groups, c / groups, r, s) to oneDNN: the same memory as
    // PyTorch's (k, c / groups, r, s).
    const bool grouped = d.groups > 1;
    const memory::dims src{d.n, d.c, d.h, d.w},
        wei = grouped ? memory::dims{d.groups, d.k / d.groups, d.c / d.groups, d.r, d.s}
                      : memory::dims{d.k, d.c, d.r, d.s},
        dst{d.n, d.k, d.outH(), d.outW()}, b{d.k};
    // oneDNN counts the gaps between taps: PyTorch's dilation 1 (dense) is its 0.
    const memory::dims strides{d.stride, d.stride}, gaps{d.dilation - 1, d.dilation - 1},
        pad{d.pad, d.pad};
    const memory::desc srcPlain(src, a, tag::nchw),
        weiPlain(wei, dt::f32, grouped ? tag::goihw : tag::oihw), dstPlain(dst, a, tag::nchw);
    e->biasPlain = memory::desc(b, dt::f32, tag::x);
    const auto training = dnnl::prop_kind::forward_training;
    using Fwd = dnnl::convolution_forward;
    using BwdData = dnnl::convolution_backward_data;
    using BwdWei = dnnl::convolution_backward_weights;
    const Shape srcShape{d.n, d.c, d.h, d.w}, dstShape{d.n, d.k, d.outH(), d.outW()};
    struct Primitives {
        Fwd::primitive_desc fwd;
        BwdData::primitive_desc data;
        BwdWei::primitive_desc wei;
        // Whether every activation layout chosen is one a tensor is kept in, or plain. The
        // input layer's data gradient is never computed: its layout does not matter.
        bool keepable(const Shape& src, const Shape& dst, DType t, bool inputLayer) const {
            const auto fits = [&](const memory::desc& m, const Shape& s) {
                return m == activationDesc(s, t, 0) || layoutFromDesc(m, s, t) != 0;
            };
            return fits(fwd.src_desc(), src) && fits(fwd.dst_desc(), dst) &&
                   fits(data.diff_dst_desc(), dst) &&
                   (inputLayer || fits(data.diff_src_desc(), src)) && fits(wei.src_desc(), src) &&
                   fits(wei.diff_dst_desc(), dst);
        }
    };
    // Activations in layout `activations` (any: what oneDNN computes fastest in).
    const auto create = [&](tag activations, dnnl::algorithm algo) {
        const memory::desc srcAny(src, a, activations), weiAny(wei, a, tag::any),
            dstAny(dst, a, activations), diffWeiAny(wei, dt::f32, tag::any);
        const Fwd::primitive_desc fwdPd(
            bias ? Fwd::desc(training, algo, srcAny, weiAny, e->biasPlain, dstAny, strides, gaps,
                             pad, pad)
                 : Fwd::desc(training, algo, srcAny, weiAny, dstAny, strides, gaps, pad, pad),
            eng);
        const BwdData::primitive_desc dataPd(
            BwdData::desc(algo, srcAny, weiAny, dstAny, strides, gaps, pad, pad), eng, fwdPd);
        // Weight gradients stay f32: they accumulate into the f32 master gradients.
        const BwdWei::primitive_desc weiPd(
            bias ? BwdWei::desc(algo, srcAny, diffWeiAny, e->biasPlain, dstAny, strides, gaps, pad,
                                pad)
                 : BwdWei::desc(algo, srcAny, diffWeiAny, dstAny, strides, gaps, pad, pad),
            eng, fwdPd);
        return Primitives{fwdPd, dataPd, weiPd};
    };
    // oneDNN's choice, unless it is a layout no tensor can stay in (a block padding channels
    // that do not fill it, as LeNet-5's 6): then channels-last, which fits any channel count,
    // so the layers around this convolution need no reorders either.
    // On AMX every bf16 convolution but one with a few input channels asks for NHWC; asking
    // all of them keeps such a first layer from handing its neighbours a blocked tensor to
    // reorder (fmnist-cnn: 6 activation reorders a step -> 1, 18% faster).
    static const bool amx = cpuLowPrecisionSupport().amx;
    const bool lastOnly = m_impl->channelsLast || (amx && act == DType::BF16);
    const auto direct = [&] {
        Primitives p = create(lastOnly ? tag::nhwc : tag::any, dnnl::algorithm::convolution_direct);
        if (!lastOnly && !p.keepable(srcShape, dstShape, act, inputLayer))
            p = create(tag::nhwc, dnnl::algorithm::convolution_direct);
        return p;
    };
    // Winograd's F(4x4, 3x3) where oneDNN implements it for this CPU (AVX-512) and the layouts
    // it picks are ones a tensor can stay in; the direct algorithm everywhere else.
    const auto winograd = [&]() -> std::optional<Primitives> {
        if (!m_impl->winograd || lastOnly || !winogradFits(d, act))
            return std::nullopt;
        try {
            Primitives p = create(tag::any, dnnl::algorithm::convolution_winograd);
            if (p.keepable(srcShape, dstShape, act, inputLayer))
                return p;
        } catch (const dnnl::error&) { // not implemented on this ISA or for this shape
        }
        return std::nullopt;
    };
    std::optional<Primitives> fast = winograd();
    e->winograd = fast.has_value();
    const Primitives chosen = fast ? *fast : direct();
    const Fwd::primitive_desc& fwdPd = chosen.fwd;
    const BwdData::primitive_desc& dataPd = chosen.data;
    const BwdWei::primitive_desc& weiPd = chosen.wei;
    e->fwd = Fwd(fwdPd);
    e->bwdData = BwdData(dataPd);
    e->bwdWei = BwdWei(weiPd);
    ReorderCounts* reorders = m_impl->reorders;
    const auto activation = [&](const memory::desc& plain, const memory::desc& wanted,
                                const Shape& shape) {
        return LayoutBridge(eng, plain, wanted, layoutFromDesc(wanted, shape, act), reorders,
                            false);
    };
    const auto weights = [&](const memory::desc& wanted) {
        return LayoutBridge(eng, weiPlain, wanted, 0, reorders, true);
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
    e->diffWeights.resize(static_cast<std::size_t>(d.weightCount()));
    e->diffBias.resize(static_cast<std::size_t>(d.k));
    m_impl->entries.push_back(std::move(e));
    return *m_impl->entries.back();
}

int CpuConvCache::forward(const ConvDesc& d, DType act, LaidOut x, const float* w, const float* b,
                          void* y, bool keepBlocked) {
    Entry& e = entry(d, act, b != nullptr, x.external);
    auto& s = m_impl->stream;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, e.fwdSrc.in(s, x.data, x.layout, x.external)},
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
                           void* dx, bool keepBlocked, float* dw, float* db, bool xAsInForward) {
    Entry& e = entry(d, act, db != nullptr, x.external);
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
    const memory* staged = xAsInForward && e.wwSrc.wanted() == e.fwdSrc.wanted()
                               ? e.fwdSrc.stagedCopyOf(x.data, x.layout)
                               : nullptr;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, staged ? *staged : e.wwSrc.in(s, x.data, x.layout, x.external)},
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
