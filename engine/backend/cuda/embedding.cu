// The token embedding: a gather forward, and a backward that scales with the vocabulary and the
// batch and still adds each table row's gradients in position order (bit-reproducible, as the
// CPU's loop): the positions sorted by their row with CUB's stable radix sort, then a block per
// run of equal rows adds that run's gradient rows column by column.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/embedding_math.h"

#include <cub/device/device_radix_sort.cuh>

namespace tb::cuda {

namespace {

template <typename Io>
__global__ void embeddingForwardKernel(const float* ids, int64_t m, const float* table,
                                       int64_t rows, int64_t d, typename Io::Storage* y) {
    TB_GRID_STRIDE(i, m * d) {
        const int64_t row = math::tokenRow(ids[i / d], rows);
        Io::store(y, i, row < 0 ? 0.0f : table[row * d + i % d]);
    }
}

// Each position's table row (an id that reads none sorts last, as `rows`) and the position.
__global__ void embeddingKeysKernel(const float* ids, int64_t m, int64_t rows, int32_t* keys,
                                    int32_t* positions) {
    TB_GRID_STRIDE(i, m) {
        const int64_t row = math::tokenRow(ids[i], rows);
        keys[i] = static_cast<int32_t>(row < 0 ? rows : row);
        positions[i] = static_cast<int32_t>(i);
    }
}

// A block for each sorted position that starts a run of one row: the run's gradient rows added
// in position order (the sort is stable), each column by its own thread.
template <typename Io>
__global__ void embeddingRunsKernel(const int32_t* keys, const int32_t* positions, int64_t m,
                                    const typename Io::Storage* dy, float* dtable, int64_t rows,
                                    int64_t d) {
    for (int64_t k = blockIdx.x; k < m; k += gridDim.x) {
        const int32_t row = keys[k];
        if (row == rows || (k > 0 && keys[k - 1] == row))
            continue;
        for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
            float sum = 0.0f;
            for (int64_t p = k; p < m && keys[p] == row; ++p)
                sum += Io::load(dy, static_cast<int64_t>(positions[p]) * d + j);
            dtable[row * d + j] += sum;
        }
    }
}

// Radix sort passes only over the bits a row index (and the `rows` sentinel) uses.
int keyBits(int64_t rows) {
    int bits = 1;
    while ((int64_t{1} << bits) <= rows)
        ++bits;
    return bits;
}

constexpr std::size_t kAlign = 256;

std::size_t aligned(std::size_t bytes) {
    return (bytes + kAlign - 1) / kAlign * kAlign;
}

std::size_t sortTempBytes(int64_t m, int64_t rows) {
    std::size_t bytes = 0;
    TB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr),
        static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), static_cast<int>(m),
        0, keyBits(rows)));
    return bytes;
}

} // namespace

std::size_t embeddingBackwardScratchBytes(int64_t m, int64_t rows) {
    if (m > INT32_MAX || rows >= INT32_MAX)
        throw Error("embeddingBackward: more than 2^31 positions or table rows");
    return 4 * aligned(static_cast<std::size_t>(m) * sizeof(int32_t)) + sortTempBytes(m, rows);
}

void launchEmbeddingForward(const float* ids, int64_t m, const float* table, int64_t rows,
                            int64_t d, void* y, DType dtype, cudaStream_t stream) {
    if (m * d == 0)
        return;
    dispatchFloat(dtype, "embeddingForward", [&](auto io) {
        using Io = decltype(io);
        embeddingForwardKernel<Io>
            <<<gridFor(m * d), kBlock, 0, stream>>>(ids, m, table, rows, d, out<Io>(y));
    });
    TB_KERNEL_CHECK("embeddingForwardKernel");
}

void launchEmbeddingBackward(const float* ids, int64_t m, const void* dy, DType dtype,
                             float* dtable, int64_t rows, int64_t d, void* scratch,
                             std::size_t scratchBytes, cudaStream_t stream) {
    if (m * d == 0)
        return;
    // The scratch embeddingBackwardScratchBytes sized: four arrays of keys, then CUB's own.
    const std::size_t keyBytes = aligned(static_cast<std::size_t>(m) * sizeof(int32_t));
    if (scratchBytes < 4 * keyBytes)
        throw Error("embeddingBackward: scratch smaller than embeddingBackwardScratchBytes");
    std::size_t tempBytes = scratchBytes - 4 * keyBytes;
    auto* base = static_cast<char*>(scratch);
    auto* keys = reinterpret_cast<int32_t*>(base);
    auto* sortedKeys = reinterpret_cast<int32_t*>(base + keyBytes);
    auto* positions = reinterpret_cast<int32_t*>(base + 2 * keyBytes);
    auto* sortedPositions = reinterpret_cast<int32_t*>(base + 3 * keyBytes);
    embeddingKeysKernel<<<gridFor(m), kBlock, 0, stream>>>(ids, m, rows, keys, positions);
    TB_KERNEL_CHECK("embeddingKeysKernel");
    TB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(base + 4 * keyBytes, tempBytes, keys, sortedKeys,
                                                  positions, sortedPositions, static_cast<int>(m),
                                                  0, keyBits(rows), stream));
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(m, int64_t{1} << 20));
    dispatchFloat(dtype, "embeddingBackward", [&](auto io) {
        using Io = decltype(io);
        embeddingRunsKernel<Io><<<blocks, kBlock, 0, stream>>>(sortedKeys, sortedPositions, m,
                                                               in<Io>(dy), dtable, rows, d);
    });
    TB_KERNEL_CHECK("embeddingRunsKernel");
}

} // namespace tb::cuda
