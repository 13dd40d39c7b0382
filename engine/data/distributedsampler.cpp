#include "data/distributedsampler.h"

#include <cstddef>

namespace tb {

int64_t shardSize(int64_t n, int ranks, bool dropLast) {
    return dropLast ? n / ranks : (n + ranks - 1) / ranks;
}

std::vector<int64_t> shardOf(const std::vector<int64_t>& order, int rank, int ranks,
                             bool dropLast) {
    const auto n = static_cast<int64_t>(order.size());
    const int64_t each = shardSize(n, ranks, dropLast);
    std::vector<int64_t> shard;
    shard.reserve(static_cast<std::size_t>(each));
    for (int64_t k = 0; k < each; ++k) {
        const int64_t position = k * ranks + rank; // in the padded order
        shard.push_back(order[static_cast<std::size_t>(n ? position % n : 0)]);
    }
    return shard;
}

} // namespace tb
