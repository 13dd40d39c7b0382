// Per-channel mean and standard deviation of a dataset, computed once and cached in a small JSON
// file in the user's cache folder ($XDG_CACHE_HOME/TrainBench or ~/.cache/TrainBench).
#pragma once

#include "data/dataset.h"

#include <optional>
#include <string>
#include <vector>

namespace tb {

struct ChannelStats {
    std::vector<float> mean;
    std::vector<float> stdDev;
};

// Mean and (population) standard deviation per channel over the samples of `dataset` (at most
// maxSamples of them, evenly spaced, when maxSamples > 0). Channels as in channelCount().
ChannelStats computeChannelStats(const Dataset& dataset, int64_t maxSamples = 0);

// The cache folder (not created); empty when neither XDG_CACHE_HOME nor HOME is set.
std::string statsCacheDirectory();

// A cache key naming the dataset, its files (absolute path, size and modification time of each)
// and anything else that changes the samples (`extra`, e.g. the image size).
std::string statsCacheKey(const std::string& datasetName, const std::vector<std::string>& files,
                          const std::string& extra = {});

// Cached statistics for key, if present and well formed.
std::optional<ChannelStats> loadCachedStats(const std::string& key);
// Stores statistics under key; a cache that cannot be written is silently skipped. The cache
// keeps the 64 entries stored last, and none with more than 1,024 channels.
void storeCachedStats(const std::string& key, const ChannelStats& stats) noexcept;

// loadCachedStats(key), or computeChannelStats() stored under key. An empty key skips the cache.
ChannelStats cachedChannelStats(const Dataset& dataset, const std::string& key,
                                int64_t maxSamples = 0);

} // namespace tb
