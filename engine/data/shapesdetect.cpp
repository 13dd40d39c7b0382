// ShapesDetectSource: scenes laid out from the seed, boxes from the shapes' corners, pixels drawn
// with 2x2 supersampling over a two-colour striped and noisy background.
#include "data/shapesdetect.h"

#include "backend/kernels/random_math.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <span>

namespace tb {

namespace {

constexpr float kPi = std::numbers::pi_v<float>;
constexpr const char* kNames[] = {"circle", "square", "triangle", "star", "cross"};
constexpr int kCategories = 5;

struct Point {
    float u, v;
};

// The star's five outer points and the cross's arm ends: the corners that bound each shape in
// its own frame, radius 1 (a circle is bounded by its radius whatever its slant).
std::span<const Point> corners(int category) {
    static const std::array<Point, 4> square{
        {{-0.8f, -0.8f}, {0.8f, -0.8f}, {0.8f, 0.8f}, {-0.8f, 0.8f}}};
    static const std::array<Point, 3> triangle{{{0.0f, -1.0f}, {0.95f, 0.7f}, {-0.95f, 0.7f}}};
    static const std::array<Point, 5> star = [] {
        std::array<Point, 5> p{};
        for (int k = 0; k < 5; ++k)
            p[static_cast<std::size_t>(k)] = {std::sin(2.0f * kPi * static_cast<float>(k) / 5.0f),
                                              -std::cos(2.0f * kPi * static_cast<float>(k) / 5.0f)};
        return p;
    }();
    static const std::array<Point, 8> cross{{{-0.28f, -1.0f},
                                             {0.28f, -1.0f},
                                             {1.0f, -0.28f},
                                             {1.0f, 0.28f},
                                             {0.28f, 1.0f},
                                             {-0.28f, 1.0f},
                                             {-1.0f, 0.28f},
                                             {-1.0f, -0.28f}}};
    switch (category) {
    case 1:
        return square;
    case 2:
        return triangle;
    case 3:
        return star;
    case 4:
        return cross;
    default:
        return {};
    }
}

// Whether (u, v), in the shape's frame at radius 1, is inside it.
bool insideShape(int category, float u, float v) {
    const float au = std::fabs(u), av = std::fabs(v);
    switch (category) {
    case 0:
        return u * u + v * v <= 1.0f;
    case 1:
        return au <= 0.8f && av <= 0.8f;
    case 2: // apex at v = -1, base at v = 0.7
        return v <= 0.7f && v >= -1.0f && au <= 0.95f * (v + 1.0f) / 1.7f;
    case 3: { // five points at radius 1, the notches between them at radius 0.4
        const float r = std::sqrt(u * u + v * v);
        if (r > 1.0f)
            return false;
        // The angle from the first point (straight up), folded into half a point's sector.
        float t = std::fmod(std::atan2(u, -v) + 2.0f * kPi, 2.0f * kPi / 5.0f);
        t = std::min(t, 2.0f * kPi / 5.0f - t);
        const float px = r * std::cos(t), py = r * std::sin(t);
        const float bx = 0.4f * std::cos(kPi / 5.0f), by = 0.4f * std::sin(kPi / 5.0f);
        // Inside when on the centre's side of the edge from the point (1, 0) to the notch.
        return (bx - 1.0f) * py - by * (px - 1.0f) >= 0.0f;
    }
    default: // cross
        return (au <= 0.28f && av <= 1.0f) || (av <= 0.28f && au <= 1.0f);
    }
}

// The shape's extent in the image's pixels, clipped to it.
LabeledBox boundsOf(const ShapesDetectSource::Shape& s, int size) {
    float x1 = s.cx - s.radius, x2 = s.cx + s.radius, y1 = s.cy - s.radius, y2 = s.cy + s.radius;
    if (s.category != 0) {
        x1 = y1 = 1e30f;
        x2 = y2 = -1e30f;
        const float c = std::cos(s.angle), sn = std::sin(s.angle);
        for (const Point& p : corners(s.category)) {
            const float x = s.cx + s.radius * (p.u * c - p.v * sn);
            const float y = s.cy + s.radius * (p.u * sn + p.v * c);
            x1 = std::min(x1, x);
            x2 = std::max(x2, x);
            y1 = std::min(y1, y);
            y2 = std::max(y2, y);
        }
    }
    const auto side = static_cast<float>(size);
    return {s.category, std::clamp(x1, 0.0f, side), std::clamp(y1, 0.0f, side),
            std::clamp(x2, 0.0f, side), std::clamp(y2, 0.0f, side)};
}

// Calls visit(x, y, hits) for each pixel the shape touches, hits (1 to 4) the samples of its
// 2x2 supersampling inside the shape.
template <class Visit> void coverShape(const ShapesDetectSource::Shape& s, int side, Visit visit) {
    const auto size = static_cast<std::size_t>(side);
    const float c = std::cos(s.angle) / s.radius, sn = std::sin(s.angle) / s.radius;
    const LabeledBox box = boundsOf(s, side);
    const auto x0 = static_cast<std::size_t>(box.x1), y0 = static_cast<std::size_t>(box.y1);
    const auto x1 = std::min(size, static_cast<std::size_t>(std::ceil(box.x2)));
    const auto y1 = std::min(size, static_cast<std::size_t>(std::ceil(box.y2)));
    for (std::size_t y = y0; y < y1; ++y)
        for (std::size_t x = x0; x < x1; ++x) {
            int hits = 0;
            for (int sub = 0; sub < 4; ++sub) {
                const float px = static_cast<float>(x) + 0.25f + 0.5f * (sub & 1) - s.cx;
                const float py = static_cast<float>(y) + 0.25f + 0.5f * (sub >> 1) - s.cy;
                hits += insideShape(s.category, c * px + sn * py, -sn * px + c * py) ? 1 : 0;
            }
            if (hits > 0)
                visit(x, y, hits);
        }
}

float overlapArea(const LabeledBox& a, const LabeledBox& b) {
    const float w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
    return w > 0 && h > 0 ? w * h : 0.0f;
}

// An RGB colour from hue, saturation and value in [0, 1].
void hsvToRgb(float h, float s, float v, float* rgb) {
    const float k[3] = {5.0f, 3.0f, 1.0f};
    for (int c = 0; c < 3; ++c) {
        const float n = std::fmod(k[c] + h * 6.0f, 6.0f);
        rgb[c] = v - v * s * std::max(0.0f, std::min({n, 4.0f - n, 1.0f}));
    }
}

} // namespace

ShapesDetectSource::ShapesDetectSource(int64_t images, int imageSize, uint64_t seed,
                                       std::string description)
    : m_size(imageSize), m_description(std::move(description)) {
    m_scenes.reserve(static_cast<std::size_t>(images));
    for (int64_t i = 0; i < images; ++i)
        m_scenes.push_back(compose(math::mix64(seed, static_cast<uint64_t>(i))));
}

std::vector<std::string> ShapesDetectSource::classNames() const {
    return {std::begin(kNames), std::end(kNames)};
}

// Lays out one scene: a light or dark background, then 1 to kMaxObjects shapes of the other
// brightness, each placed where it covers at most a third of the shapes before it (or of
// itself), so that every object stays recognisable.
ShapesDetectSource::Scene ShapesDetectSource::compose(uint64_t seed) const {
    Scene scene;
    scene.seed = seed;
    uint64_t draw = 0;
    auto next = [&] { return math::uniform01(seed, draw++); };
    const bool darkBackground = next() < 0.5f;
    const float bgValue = darkBackground ? 0.1f + 0.25f * next() : 0.6f + 0.3f * next();
    hsvToRgb(next(), 0.5f * next(), bgValue, scene.background);
    hsvToRgb(next(), 0.5f * next(), bgValue + (darkBackground ? 0.12f : -0.12f), scene.stripe);
    const auto side = static_cast<float>(m_size);
    const int wanted = 1 + static_cast<int>(next() * kMaxObjects);
    for (int attempt = 0; attempt < 4 * kMaxObjects && std::ssize(scene.shapes) < wanted;
         ++attempt) {
        Shape s{};
        s.category = std::min(kCategories - 1, static_cast<int>(next() * kCategories));
        // Sizes from small to large as COCO counts them at 640 px: radius 4% to 26% of the side.
        const float u = next();
        s.radius = side * (0.04f + 0.22f * u * u);
        s.cx = s.radius + (side - 2.0f * s.radius) * next();
        s.cy = s.radius + (side - 2.0f * s.radius) * next();
        s.angle = 2.0f * kPi * next();
        hsvToRgb(next(), 0.5f + 0.5f * next(),
                 darkBackground ? 0.6f + 0.4f * next() : 0.05f + 0.3f * next(), s.rgb);
        const LabeledBox box = boundsOf(s, m_size);
        const float area = box.width() * box.height();
        bool crowded = false;
        for (const Shape& other : scene.shapes) {
            const LabeledBox o = boundsOf(other, m_size);
            const float shared = overlapArea(box, o);
            crowded = crowded || shared > area / 3.0f || shared > o.width() * o.height() / 3.0f;
        }
        if (crowded)
            continue;
        scene.shapes.push_back(s);
        scene.labels.boxes.push_back(
            {s.category, box.x1 / side, box.y1 / side, box.x2 / side, box.y2 / side});
    }
    scene.labels.width = scene.labels.height = m_size;
    return scene;
}

const ImageLabels& ShapesDetectSource::labels(int64_t index) const {
    return m_scenes[static_cast<std::size_t>(index)].labels;
}

std::string ShapesDetectSource::imageName(int64_t index) const {
    char name[32];
    std::snprintf(name, sizeof name, "%06lld.png", static_cast<long long>(index));
    return name;
}

LabeledImage ShapesDetectSource::load(int64_t index) const {
    const Scene& scene = m_scenes[static_cast<std::size_t>(index)];
    const auto size = static_cast<std::size_t>(m_size);
    std::vector<float> rgb(size * size * 3);
    // Stripes at a seeded angle and period, and pixel noise: a texture the detector must learn
    // to ignore.
    const float angle = kPi * math::uniform01(scene.seed, 1000);
    const float period =
        static_cast<float>(m_size) * (0.05f + 0.2f * math::uniform01(scene.seed, 1001));
    const float fx = std::cos(angle) * 2.0f * kPi / period,
                fy = std::sin(angle) * 2.0f * kPi / period;
    for (std::size_t y = 0; y < size; ++y)
        for (std::size_t x = 0; x < size; ++x) {
            const float wave =
                0.5f + 0.5f * std::sin(fx * static_cast<float>(x) + fy * static_cast<float>(y));
            const float noise = 0.06f * (math::uniform01(scene.seed, 2000 + y * size + x) - 0.5f);
            for (std::size_t c = 0; c < 3; ++c)
                rgb[(y * size + x) * 3 + c] =
                    scene.background[c] + wave * (scene.stripe[c] - scene.background[c]) + noise;
        }
    for (const Shape& s : scene.shapes)
        coverShape(s, m_size, [&](std::size_t x, std::size_t y, int hits) {
            const float cover = 0.25f * static_cast<float>(hits);
            for (std::size_t ch = 0; ch < 3; ++ch) {
                float& p = rgb[(y * size + x) * 3 + ch];
                p += cover * (s.rgb[ch] - p);
            }
        });
    LabeledImage out;
    out.image.width = out.image.height = m_size;
    out.image.pixels.resize(rgb.size());
    for (std::size_t i = 0; i < rgb.size(); ++i)
        out.image.pixels[i] =
            static_cast<uint8_t>(std::lround(std::clamp(rgb[i], 0.0f, 1.0f) * 255.0f));
    for (const LabeledBox& b : scene.labels.boxes)
        out.boxes.push_back(toPixels(b, m_size, m_size));
    return out;
}

ClassMask ShapesDetectSource::mask(int64_t index) const {
    const auto size = static_cast<std::size_t>(m_size);
    ClassMask out;
    out.width = out.height = m_size;
    out.classes.assign(size * size, 0);
    for (const Shape& s : m_scenes[static_cast<std::size_t>(index)].shapes)
        coverShape(s, m_size, [&](std::size_t x, std::size_t y, int hits) {
            out.classes[y * size + x] =
                hits == 4 ? static_cast<uint8_t>(1 + s.category) : kMaskIgnore;
        });
    return out;
}

} // namespace tb
