// cpuLowPrecisionSupport: oneDNN's effective ISA against the ISAs with bf16 / f16 arithmetic.
#include "backend/cpu/cpuisa.h"

#include <dnnl.hpp>

namespace tb {

namespace {

// oneDNN's x86 ISA values are bit masks in which each ISA contains the bits of those it
// extends, so "has at least `wanted`" is a mask test (avx512_core_amx contains avx512_core_bf16).
bool atLeast(dnnl::cpu_isa effective, dnnl::cpu_isa wanted) {
    const auto e = static_cast<unsigned>(effective), w = static_cast<unsigned>(wanted);
    return w != 0 && (e & w) == w;
}

const char* isaName(dnnl::cpu_isa isa) {
    using I = dnnl::cpu_isa;
    switch (isa) {
    case I::sse41:
        return "sse41";
    case I::avx:
        return "avx";
    case I::avx2:
        return "avx2";
    case I::avx2_vnni:
        return "avx2_vnni";
    case I::avx512_mic:
        return "avx512_mic";
    case I::avx512_mic_4ops:
        return "avx512_mic_4ops";
    case I::avx512_core:
        return "avx512_core";
    case I::avx512_core_vnni:
        return "avx512_core_vnni";
    case I::avx512_core_bf16:
        return "avx512_core_bf16";
    case I::avx512_core_amx:
        return "avx512_core_amx";
    default:
        return "other";
    }
}

} // namespace

CpuLowPrecisionSupport cpuLowPrecisionSupport() {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    CpuLowPrecisionSupport s;
    s.isa = isaName(isa);
    s.bf16Native = atLeast(isa, dnnl::cpu_isa::avx512_core_bf16);
    s.amx = atLeast(isa, dnnl::cpu_isa::avx512_core_amx);
    // oneDNN 2.x has no x86 ISA with f16 arithmetic (avx512_core_fp16 came with 3.0).
#if DNNL_VERSION_MAJOR >= 3
    s.f16Native = atLeast(isa, dnnl::cpu_isa::avx512_core_fp16);
#endif
    return s;
}

std::optional<std::string> emulatedPrecisionNote(const std::string& precision,
                                                 const CpuLowPrecisionSupport& support) {
    const bool bf16 = precision == "bf16-mixed", f16 = precision == "16-mixed";
    if ((!bf16 || support.bf16Native) && (!f16 || support.f16Native))
        return std::nullopt;
    const std::string type = bf16 ? "bf16" : "f16";
    return type + " is emulated on this CPU: expect it slower than 32 (oneDNN's ISA here is " +
           support.isa + ", without " + type + " arithmetic; each op widens to f32 and back)";
}

} // namespace tb
