// Activation layouts: names, descriptors and the reorders back to plain NCHW.
#include "backend/cpu/cpulayout.h"

#include "core/errors.h"

namespace tb {

using dnnl::memory;

dnnl::memory::data_type dnnlType(DType t) {
    switch (t) {
    case DType::F32:
        return memory::data_type::f32;
    case DType::BF16:
        return memory::data_type::bf16;
    default:
        throw Error("oneDNN: unsupported dtype " + std::string(dtypeName(t)));
    }
}

std::string layoutName(int layout) {
    switch (layout) {
    case 0:
        return "nchw";
    case kChannelsLast:
        return "nhwc";
    default:
        return "nChw" + std::to_string(layout) + "c";
    }
}

memory::desc activationDesc(const Shape& s, DType t, int layout) {
    if (s.rank() != 4)
        throw Error("activation layout: " + s.toString() + " is not (N, C, H, W)");
    const memory::format_tag format = layout == 16              ? memory::format_tag::nChw16c
                                      : layout == 8             ? memory::format_tag::nChw8c
                                      : layout == kChannelsLast ? memory::format_tag::nhwc
                                                                : memory::format_tag::nchw;
    return memory::desc({s[0], s[1], s[2], s[3]}, dnnlType(t), format);
}

int layoutFromDesc(const memory::desc& d, const Shape& s, DType t) {
    if (s.rank() != 4 || d == activationDesc(s, t, 0))
        return 0;
    for (int layout : {16, 8, kChannelsLast})
        if (layoutFits(layout, s[1]) && d == activationDesc(s, t, layout))
            return layout;
    return 0;
}

void CpuLayoutConverter::toPlain(const void* laidOut, void* plain, const Shape& s, DType fromType,
                                 DType toType, int layout) {
    const auto key = std::make_tuple(s.dims(), fromType, toType, layout);
    auto it = m_primitives.find(key);
    const memory::desc from = activationDesc(s, fromType, layout),
                       to = activationDesc(s, toType, 0);
    if (it == m_primitives.end())
        it = m_primitives
                 .emplace(key, dnnl::reorder(memory(from, m_engine, DNNL_MEMORY_NONE),
                                             memory(to, m_engine, DNNL_MEMORY_NONE)))
                 .first;
    memory src(from, m_engine, const_cast<void*>(laidOut)), dst(to, m_engine, plain);
    it->second.execute(m_stream, src, dst);
    m_stream.wait();
    ++*m_reorders;
}

} // namespace tb
