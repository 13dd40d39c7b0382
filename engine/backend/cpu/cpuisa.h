// Whether this CPU computes in bf16 / f16 natively, as oneDNN (the library that would use it)
// sees it: its effective ISA, which also honours ONEDNN_MAX_CPU_ISA and dnnl::set_max_cpu_isa.
#pragma once

#include <optional>
#include <string>

namespace tb {

struct CpuLowPrecisionSupport {
    std::string isa; // oneDNN's effective ISA, "avx512_core_bf16"
    bool bf16Native = false;
    bool f16Native = false;
    // AMX tiles: oneDNN's bf16 convolutions there are channels-last kernels.
    bool amx = false;
};

// Asks oneDNN; never throws. Emulated means oneDNN (and so the CPU backend) widens to f32.
CpuLowPrecisionSupport cpuLowPrecisionSupport();

// For a run on the CPU at `precision` ("32", "16-mixed", "bf16-mixed"): the line the run log
// shows once when that precision's arithmetic is emulated on this CPU, else nothing.
std::optional<std::string> emulatedPrecisionNote(const std::string& precision,
                                                 const CpuLowPrecisionSupport& support);

} // namespace tb
