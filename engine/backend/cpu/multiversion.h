// TB_MULTIVERSION compiles a hot loop for AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3) and the
// x86-64 baseline the binary targets, and the loader picks the best this CPU runs (GCC's
// target_clones, an ifunc). The engine's own loops otherwise get only SSE2, where bf16 <-> f32
// conversions take more shuffles than the arithmetic. oneDNN does the same for its kernels at
// run time (JIT). Functions with it are called per plane or per chunk, so the dispatch is cheap.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TB_MULTIVERSION                                                                            \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TB_MULTIVERSION
#endif
