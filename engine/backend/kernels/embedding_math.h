// Which table row a token id reads, shared by the CPU loops and the CUDA kernels.
#pragma once

#include "core/hostdevice.h"

#include <cstdint>

namespace tb::math {

// Ids arrive as f32 (the data batch, never cast): a whole number in [0, rows) is its row;
// anything else reads no row (-1), its embedding zero and its gradient dropped.
TB_HD int64_t tokenRow(float id, int64_t rows) {
    const auto row = static_cast<int64_t>(id);
    return id == static_cast<float>(row) && row >= 0 && row < rows ? row : -1;
}

} // namespace tb::math
