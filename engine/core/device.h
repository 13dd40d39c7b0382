// Where a tensor lives: the host (CPU), one CUDA device, or nowhere (meta: a shape without
// memory, for planning a model before allocating it).
#pragma once

#include <string>

namespace tb {

struct Device {
    enum class Kind { Cpu, Cuda, Meta };
    Kind kind = Kind::Cpu;
    int index = 0;

    static Device cpu() { return {}; }
    static Device cuda(int index) { return {Kind::Cuda, index}; }
    static Device meta() { return {Kind::Meta, 0}; }
    bool isCuda() const { return kind == Kind::Cuda; }
    bool isMeta() const { return kind == Kind::Meta; }
    std::string toString() const {
        return isCuda() ? "cuda:" + std::to_string(index) : isMeta() ? "meta" : "cpu";
    }
    bool operator==(const Device&) const = default;
};

} // namespace tb
