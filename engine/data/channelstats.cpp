// Computing per-channel statistics and caching them as JSON keyed by dataset, files and mtimes.
#include "data/channelstats.h"

#include "data/transforms.h"
#include "io/cachefile.h"
#include "io/jsontext.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCacheFile = "dataset-stats.json";
// The cache stays small, since every dataset opened reads all of it: statistics for more
// channels than this (a wide CSV table's columns) are cheap to recompute and not kept, and
// past kMaxEntries the entries stored longest ago go.
constexpr std::size_t kMaxCachedChannels = 1024;
constexpr std::size_t kMaxEntries = 64;
constexpr uintmax_t kPruneOnReadBytes = 1 << 20; // 64 entries of 1,024 channels stay below it

// Drops entries too wide to keep (left by older versions), then the entries stored longest ago
// (by their "stored" time) until at most kMaxEntries remain.
void prune(nlohmann::json& cache) {
    for (auto it = cache.begin(); it != cache.end();) {
        const auto mean = it->find("mean");
        if (it->is_object() && mean != it->end() && mean->is_array() &&
            mean->size() <= kMaxCachedChannels)
            ++it;
        else
            it = cache.erase(it);
    }
    while (cache.size() > kMaxEntries) {
        auto oldest = cache.begin();
        const auto storedAt = [](const nlohmann::json& e) {
            const auto it = e.find("stored");
            return it != e.end() && it->is_number() ? it->get<double>() : 0.0;
        };
        for (auto it = cache.begin(); it != cache.end(); ++it)
            if (storedAt(*it) < storedAt(*oldest))
                oldest = it;
        cache.erase(oldest);
    }
}

nlohmann::json readCache(const fs::path& file) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        return nlohmann::json::object(); // missing, or a FIFO that would block: start afresh
    std::ifstream in(file);
    if (!in)
        return nlohmann::json::object();
    std::ostringstream text;
    text << in.rdbuf();
    nlohmann::json j = tryParseJson(text.str()).value_or(nlohmann::json());
    return j.is_object() ? j : nlohmann::json::object();
}

} // namespace

ChannelStats computeChannelStats(const Dataset& dataset, int64_t maxSamples) {
    const Shape shape = dataset.sampleShape();
    const int64_t channels = channelCount(shape);
    const int64_t plane = shape.numel() / channels;
    const int64_t n = dataset.size();
    const int64_t count = (maxSamples > 0 && maxSamples < n) ? maxSamples : n;
    std::vector<double> sum(static_cast<std::size_t>(channels)), sq(sum.size());
    std::vector<float> buf(static_cast<std::size_t>(shape.numel()));
    for (int64_t k = 0; k < count; ++k) {
        const int64_t index = count == n ? k : k * n / count;
        dataset.get(index, buf.data(), 0);
        for (int64_t c = 0; c < channels; ++c) {
            double s = 0.0, s2 = 0.0;
            const float* p = buf.data() + c * plane;
            for (int64_t i = 0; i < plane; ++i) {
                s += p[i];
                s2 += static_cast<double>(p[i]) * p[i];
            }
            sum[static_cast<std::size_t>(c)] += s;
            sq[static_cast<std::size_t>(c)] += s2;
        }
    }
    ChannelStats st;
    const double total = static_cast<double>(std::max<int64_t>(count, 1) * plane);
    for (std::size_t c = 0; c < sum.size(); ++c) {
        const double mean = sum[c] / total;
        const double var = std::max(0.0, sq[c] / total - mean * mean);
        st.mean.push_back(static_cast<float>(mean));
        st.stdDev.push_back(static_cast<float>(std::sqrt(var)));
    }
    return st;
}

std::string statsCacheDirectory() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "TrainBench").string();
    if (const char* home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "TrainBench").string();
    return {};
}

std::string statsCacheKey(const std::string& datasetName, const std::vector<std::string>& files,
                          const std::string& extra) {
    std::string key = datasetName;
    for (const std::string& f : files) {
        std::error_code ec;
        const fs::path abs = fs::absolute(f, ec);
        const auto size = fs::file_size(f, ec);
        const auto mtime = fs::last_write_time(f, ec).time_since_epoch().count();
        key += "|" + abs.string() + ":" + std::to_string(ec ? 0 : size) + ":" +
               std::to_string(ec ? 0 : mtime);
    }
    if (!extra.empty())
        key += "|" + extra;
    return key;
}

std::optional<ChannelStats> loadCachedStats(const std::string& key) {
    const std::string dir = statsCacheDirectory();
    if (dir.empty())
        return std::nullopt;
    const fs::path file = fs::path(dir) / kCacheFile;
    nlohmann::json j = readCache(file);
    // A cache grown large by an older version is pruned once, on its next read.
    if (std::error_code ec; fs::file_size(file, ec) > kPruneOnReadBytes && !ec) {
        prune(j);
        replaceCacheFile(file.string(), j.dump(1) + "\n");
    }
    const auto it = j.find(key);
    if (it == j.end() || !it->is_object())
        return std::nullopt;
    try {
        ChannelStats st;
        st.mean = it->at("mean").get<std::vector<float>>();
        st.stdDev = it->at("std").get<std::vector<float>>();
        if (st.mean.empty() || st.mean.size() != st.stdDev.size())
            return std::nullopt;
        return st;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

void storeCachedStats(const std::string& key, const ChannelStats& stats) noexcept {
    try {
        const std::string dir = statsCacheDirectory();
        if (dir.empty() || stats.mean.size() > kMaxCachedChannels)
            return;
        const fs::path file = fs::path(dir) / kCacheFile;
        nlohmann::json j = readCache(file);
        const auto now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        j[key] = {{"mean", stats.mean}, {"std", stats.stdDev}, {"stored", now}};
        prune(j);
        replaceCacheFile(file.string(), j.dump(1) + "\n");
    } catch (...) {
        // A cache that cannot be written is not an error.
    }
}

ChannelStats cachedChannelStats(const Dataset& dataset, const std::string& key,
                                int64_t maxSamples) {
    if (!key.empty()) {
        if (auto st = loadCachedStats(key);
            st && static_cast<int64_t>(st->mean.size()) == channelCount(dataset.sampleShape()))
            return *st;
    }
    ChannelStats st = computeChannelStats(dataset, maxSamples);
    if (!key.empty())
        storeCachedStats(key, st);
    return st;
}

} // namespace tb
