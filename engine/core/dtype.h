// Element types a tensor can hold.
#pragma once

#include <cstddef>
#include <string_view>

namespace tb {

enum class DType { F32, F16, BF16, I32, U8 };

constexpr std::size_t dtypeSize(DType t) {
    switch (t) {
    case DType::F32:
    case DType::I32:
        return 4;
    case DType::F16:
    case DType::BF16:
        return 2;
    case DType::U8:
        return 1;
    }
    return 0;
}

constexpr std::string_view dtypeName(DType t) {
    switch (t) {
    case DType::F32:
        return "f32";
    case DType::F16:
        return "f16";
    case DType::BF16:
        return "bf16";
    case DType::I32:
        return "i32";
    case DType::U8:
        return "u8";
    }
    return "?";
}

constexpr bool isFloating(DType t) {
    return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

} // namespace tb
