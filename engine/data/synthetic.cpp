// Spirals, blobs and their seeded train/validation splits (shapes are drawn in shapes.cpp).
#include "data/synthetic.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "data/rawsplits.h"

#include <cmath>
#include <memory>
#include <numbers>

namespace tb {

namespace {

// Standard normal draw number k of a sample (Box-Muller over two uniforms).
float gaussian(uint64_t seed, uint64_t k) {
    const float u1 = std::max(math::uniform01(seed, 2 * k), 1e-7f);
    const float u2 = math::uniform01(seed, 2 * k + 1);
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(2.0f * std::numbers::pi_v<float> * u2);
}

} // namespace

SpiralsDataset::SpiralsDataset(int64_t samples, int classes, uint64_t seed, std::string description)
    : SyntheticDataset(samples, classes, seed, std::move(description)) {}

int32_t SpiralsDataset::get(int64_t index, float* out, uint64_t /*seed*/) const {
    const uint64_t s = math::mix64(m_seed, static_cast<uint64_t>(index));
    const int32_t k = label(index);
    const float t = math::uniform01(s, 0);
    const float pi = std::numbers::pi_v<float>;
    const float angle = 2.0f * pi * static_cast<float>(k) / static_cast<float>(m_classes) +
                        3.0f * pi * t + 0.15f * gaussian(s, 1);
    const float r = 0.1f + 0.9f * t;
    out[0] = r * std::cos(angle) + 0.02f * gaussian(s, 2);
    out[1] = r * std::sin(angle) + 0.02f * gaussian(s, 3);
    return k;
}

BlobsDataset::BlobsDataset(int64_t samples, int classes, int dims, uint64_t centreSeed,
                           uint64_t seed, std::string description)
    : SyntheticDataset(samples, classes, seed, std::move(description)), m_dims(dims),
      m_centreSeed(centreSeed) {}

int32_t BlobsDataset::get(int64_t index, float* out, uint64_t /*seed*/) const {
    const uint64_t s = math::mix64(m_seed, static_cast<uint64_t>(index));
    const int32_t k = label(index);
    for (int d = 0; d < m_dims; ++d) {
        const auto c = static_cast<uint64_t>(k * m_dims + d);
        const float centre = -4.0f + 8.0f * math::uniform01(m_centreSeed, c);
        out[d] = centre + gaussian(s, static_cast<uint64_t>(d));
    }
    return k;
}

RawSplits openSyntheticSplits(const DataConfig& config, uint64_t seed) {
    const int64_t n = config.syntheticSamples;
    const int classes = config.syntheticClasses;
    if (n < 1 || n > 10'000'000)
        throw ConfigError("data.synthetic_samples", "must be between 1 and 10000000");
    const int maxClasses = config.name == "shapes" ? ShapesDataset::kMaxClasses : 16;
    if (classes < 2 || classes > maxClasses)
        throw ConfigError("data.synthetic_classes", "must be between 2 and " +
                                                        std::to_string(maxClasses) + " for " +
                                                        config.name);
    const int64_t nVal = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(static_cast<double>(n) * config.valFraction)));
    // Validation is generated with its own seed: new samples from the same distribution.
    const uint64_t trainSeed = math::mix64(seed, 1);
    const uint64_t valSeed = math::mix64(seed, 2);
    RawSplits s;
    const std::string train = config.name + " train", val = config.name + " validation";
    if (config.name == "spirals") {
        s.train = std::make_shared<SpiralsDataset>(n, classes, trainSeed, train);
        s.validation = std::make_shared<SpiralsDataset>(nVal, classes, valSeed, val);
    } else if (config.name == "blobs") {
        const uint64_t centres = math::mix64(seed, 3);
        s.train = std::make_shared<BlobsDataset>(n, classes, 2, centres, trainSeed, train);
        s.validation = std::make_shared<BlobsDataset>(nVal, classes, 2, centres, valSeed, val);
    } else {
        s.train = std::make_shared<ShapesDataset>(n, classes, config.imageSize, trainSeed, train);
        s.validation =
            std::make_shared<ShapesDataset>(nVal, classes, config.imageSize, valSeed, val);
        s.cropPadding = std::max(1, config.imageSize / 8);
        s.flip = true;
        s.statsSamples = 1000;
    }
    return s;
}

} // namespace tb
