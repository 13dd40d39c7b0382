// Where a tensor lives: the host (CPU) or one CUDA device.
#pragma once

#include <string>

namespace tb {

struct Device {
    enum class Kind { Cpu, Cuda };
    Kind kind = Kind::Cpu;
    int index = 0;

    static Device cpu() { return {}; }
    static Device cuda(int index) { return {Kind::Cuda, index}; }
    bool isCuda() const { return kind == Kind::Cuda; }
    std::string toString() const { return isCuda() ? "cuda:" + std::to_string(index) : "cpu"; }
    bool operator==(const Device&) const = default;
};

} // namespace tb
