// cuBLAS's name for a floating dtype, for the GEMMs of the linear layers and of attention.
#pragma once

#include "core/dtype.h"
#include "core/errors.h"

#include <library_types.h>

#include <string>

namespace tb::cuda {

inline cudaDataType_t cudaTypeOf(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return CUDA_R_32F;
    case DType::F16:
        return CUDA_R_16F;
    case DType::BF16:
        return CUDA_R_16BF;
    default:
        throw Error("GEMM: unsupported dtype " + std::string(dtypeName(dtype)));
    }
}

} // namespace tb::cuda
