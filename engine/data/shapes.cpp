// ShapesDataset: procedurally drawn grey shapes with 2x2 supersampling.
#include "data/synthetic.h"

#include "backend/kernels/random_math.h"

#include <cmath>
#include <numbers>

namespace tb {

namespace {

// Whether (u, v), in the shape's own frame scaled to radius 1, is inside shape k.
bool inside(int k, float u, float v) {
    const float au = std::fabs(u), av = std::fabs(v);
    switch (k) {
    case 0: // circle
        return u * u + v * v <= 1.0f;
    case 1: // square
        return au <= 0.8f && av <= 0.8f;
    case 2: // triangle, apex up
        return v <= 0.7f && v >= -1.0f && au <= 0.95f * (v + 1.0f) / 1.7f;
    case 3: // cross
        return (au <= 0.28f && av <= 1.0f) || (av <= 0.28f && au <= 1.0f);
    case 4: { // ring
        const float r2 = u * u + v * v;
        return r2 <= 1.0f && r2 >= 0.36f;
    }
    default: // diamond
        return au + av <= 1.0f;
    }
}

} // namespace

ShapesDataset::ShapesDataset(int64_t samples, int classes, int imageSize, uint64_t seed,
                             std::string description)
    : SyntheticDataset(samples, classes, seed, std::move(description)), m_size(imageSize) {}

std::vector<std::string> ShapesDataset::classNames() const {
    static const char* kNames[kMaxClasses] = {"circle", "square", "triangle",
                                              "cross",  "ring",   "diamond"};
    return std::vector<std::string>(kNames, kNames + m_classes);
}

int32_t ShapesDataset::get(int64_t index, float* out, uint64_t /*seed*/) const {
    const uint64_t s = math::mix64(m_seed, static_cast<uint64_t>(index));
    const int32_t k = label(index);
    const auto size = static_cast<float>(m_size);
    const float radius = size * (0.18f + 0.14f * math::uniform01(s, 0));
    const float cx = size * (0.5f + 0.36f * (math::uniform01(s, 1) - 0.5f));
    const float cy = size * (0.5f + 0.36f * (math::uniform01(s, 2) - 0.5f));
    // A slant of up to +-15 degrees keeps squares and diamonds apart.
    const float angle = (math::uniform01(s, 3) - 0.5f) * std::numbers::pi_v<float> / 6.0f;
    const float ca = std::cos(angle) / radius, sa = std::sin(angle) / radius;
    const float ink = 0.6f + 0.4f * math::uniform01(s, 4);
    const float background = 0.1f * math::uniform01(s, 5);
    for (int64_t y = 0; y < m_size; ++y) {
        for (int64_t x = 0; x < m_size; ++x) {
            int hits = 0;
            for (int sub = 0; sub < 4; ++sub) {
                const float px = static_cast<float>(x) + 0.25f + 0.5f * (sub & 1) - cx;
                const float py = static_cast<float>(y) + 0.25f + 0.5f * (sub >> 1) - cy;
                hits += inside(k, ca * px + sa * py, -sa * px + ca * py) ? 1 : 0;
            }
            const float noise =
                0.08f * math::uniform01(s, 16 + static_cast<uint64_t>(y * m_size + x));
            const float base = background + noise;
            out[y * m_size + x] = base + (ink - base) * 0.25f * static_cast<float>(hits);
        }
    }
    return k;
}

} // namespace tb
