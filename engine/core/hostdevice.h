// Marks functions that compile both for the host and, under nvcc, for the device.
#pragma once

#if defined(__CUDACC__)
#define TB_HD __host__ __device__ __forceinline__
#else
#define TB_HD inline
#endif
