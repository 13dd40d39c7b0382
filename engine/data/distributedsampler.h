// The samples one rank of a data-parallel job reads in an epoch, as PyTorch's
// DistributedSampler picks them: the epoch's order (the same seeded shuffle on every rank)
// padded by repeating its start until every rank has as many (drop_last=false) or cut to a
// multiple of the rank count (drop_last=true), then every size-th sample from the rank's.
#pragma once

#include <cstdint>
#include <vector>

namespace tb {

// Samples per rank and epoch for n samples over `ranks`.
int64_t shardSize(int64_t n, int ranks, bool dropLast);
// Rank `rank`'s samples of `order`, in the order it reads them.
std::vector<int64_t> shardOf(const std::vector<int64_t>& order, int rank, int ranks, bool dropLast);

} // namespace tb
