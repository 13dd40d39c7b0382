// Normalize, random crop + flip, subsets and seeded splits.
#include "data/transforms.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>

namespace tb {

int64_t channelCount(const Shape& s) {
    return s.rank() == 3 ? s[0] : s.numel();
}

NormalizeDataset::NormalizeDataset(std::shared_ptr<const Dataset> inner, std::vector<float> mean,
                                   std::vector<float> stdDev)
    : WrappedDataset(std::move(inner)), m_mean(std::move(mean)) {
    const int64_t channels = channelCount(m_inner->sampleShape());
    if (static_cast<int64_t>(m_mean.size()) != channels ||
        static_cast<int64_t>(stdDev.size()) != channels)
        throw Error("normalize: expected " + std::to_string(channels) + " channel statistics");
    for (float s : stdDev)
        m_invStd.push_back(s > 1e-6f ? 1.0f / s : 1.0f);
}

int32_t NormalizeDataset::get(int64_t index, float* out, uint64_t seed) const {
    const int32_t label = m_inner->get(index, out, seed);
    normalize(out);
    return label;
}

void NormalizeDataset::sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const {
    m_inner->sample(index, out, targets, seed);
    normalize(out);
}

void NormalizeDataset::normalize(float* out) const {
    const int64_t channels = static_cast<int64_t>(m_mean.size());
    const int64_t plane = m_inner->sampleShape().numel() / channels;
    for (int64_t c = 0; c < channels; ++c) {
        const float m = m_mean[static_cast<std::size_t>(c)];
        const float k = m_invStd[static_cast<std::size_t>(c)];
        float* p = out + c * plane;
        for (int64_t i = 0; i < plane; ++i)
            p[i] = (p[i] - m) * k;
    }
}

std::string NormalizeDataset::description() const {
    return m_inner->description();
}

RandomCropFlipDataset::RandomCropFlipDataset(std::shared_ptr<const Dataset> inner, int padding,
                                             bool flip)
    : WrappedDataset(std::move(inner)), m_padding(padding), m_flip(flip) {
    if (m_inner->sampleShape().rank() != 3)
        throw Error("random crop needs {C, H, W} samples, got " +
                    m_inner->sampleShape().toString());
}

int32_t RandomCropFlipDataset::get(int64_t index, float* out, uint64_t seed) const {
    const Shape s = m_inner->sampleShape();
    const int64_t c = s[0], h = s[1], w = s[2];
    // One scratch buffer per thread: no allocation per sample in the steady state.
    thread_local std::vector<float> scratch;
    scratch.resize(static_cast<std::size_t>(s.numel()));
    const int32_t label = m_inner->get(index, scratch.data(), seed);
    const int span = 2 * m_padding + 1;
    const int64_t dy = static_cast<int64_t>(math::mix64(seed, 101) % span) - m_padding;
    const int64_t dx = static_cast<int64_t>(math::mix64(seed, 102) % span) - m_padding;
    const bool flip = m_flip && math::uniform01(seed, 103) < 0.5f;
    for (int64_t ch = 0; ch < c; ++ch) {
        const float* src = scratch.data() + ch * h * w;
        float* dst = out + ch * h * w;
        for (int64_t y = 0; y < h; ++y) {
            const int64_t sy = y + dy;
            for (int64_t x = 0; x < w; ++x) {
                const int64_t ox = flip ? w - 1 - x : x;
                const int64_t sx = ox + dx;
                dst[y * w + x] = (sy >= 0 && sy < h && sx >= 0 && sx < w) ? src[sy * w + sx] : 0.0f;
            }
        }
    }
    return label;
}

std::string RandomCropFlipDataset::description() const {
    return m_inner->description() + " + crop(pad " + std::to_string(m_padding) + ")" +
           (m_flip ? " + flip" : "");
}

SubsetDataset::SubsetDataset(std::shared_ptr<const Dataset> inner, std::vector<int64_t> indices,
                             std::string description)
    : WrappedDataset(std::move(inner)), m_indices(std::move(indices)),
      m_description(std::move(description)) {}

int32_t SubsetDataset::label(int64_t index) const {
    return m_inner->label(m_indices[static_cast<std::size_t>(index)]);
}

int32_t SubsetDataset::get(int64_t index, float* out, uint64_t seed) const {
    return m_inner->get(m_indices[static_cast<std::size_t>(index)], out, seed);
}

std::vector<int64_t> seededPermutation(int64_t n, uint64_t seed) {
    std::vector<int64_t> p(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        p[static_cast<std::size_t>(i)] = i;
    for (int64_t i = n - 1; i > 0; --i) {
        const auto j = static_cast<int64_t>(math::mix64(seed, static_cast<uint64_t>(i)) %
                                            static_cast<uint64_t>(i + 1));
        std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(j)]);
    }
    return p;
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> splitIndices(int64_t n, double valFraction,
                                                                   uint64_t seed) {
    if (!(valFraction >= 0.0 && valFraction < 1.0))
        throw ConfigError("data.val_fraction", "must be in [0, 1)");
    int64_t nVal = static_cast<int64_t>(std::llround(static_cast<double>(n) * valFraction));
    if (valFraction > 0.0 && n > 1)
        nVal = std::clamp<int64_t>(nVal, 1, n - 1);
    const std::vector<int64_t> perm = seededPermutation(n, math::mix64(seed, 0x5eed5011ull));
    std::vector<int64_t> val(perm.begin(), perm.begin() + nVal);
    std::vector<int64_t> train(perm.begin() + nVal, perm.end());
    std::sort(val.begin(), val.end());
    std::sort(train.begin(), train.end());
    return {std::move(train), std::move(val)};
}

} // namespace tb
