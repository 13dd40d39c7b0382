// Folder scanning, bilinear crop-resize and torchvision-style random resized crop.
#include "data/imagefolder.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "data/channelstats.h"
#include "data/imagecodec.h"
#include "data/rawsplits.h"
#include "data/transforms.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace tb {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sortedEntries(const fs::path& dir, bool folders) {
    std::vector<fs::path> out;
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    if (ec)
        throw DatasetError(dir.string(), -1, "cannot list the folder: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw DatasetError(dir.string(), -1, "cannot list the folder: " + ec.message());
        const fs::path& p = it->path();
        if (p.filename().string().starts_with("."))
            continue;
        std::error_code typeEc;
        if (folders ? it->is_directory(typeEc)
                    : (it->is_regular_file(typeEc) && isDecodableImageName(p.string())))
            out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

ImageFolderIndex scanImageFolder(const std::string& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        throw DatasetError(root, -1, "image folder does not exist");
    ImageFolderIndex index;
    index.root = root;
    for (const fs::path& dir : sortedEntries(root, true)) {
        const std::vector<fs::path> files = sortedEntries(dir, false);
        if (files.empty())
            throw DatasetError(dir.string(), -1, "class folder holds no PNG or JPEG images");
        const auto label = static_cast<int32_t>(index.classNames.size());
        index.classNames.push_back(dir.filename().string());
        for (const fs::path& f : files) {
            index.files.push_back(f.string());
            index.labels.push_back(label);
        }
    }
    if (index.classNames.empty())
        throw DatasetError(root, -1,
                           "image folder holds no class folders (expected root/<class>/<image>)");
    return index;
}

void resampleCrop(const RgbImage& img, float x0, float y0, float w, float h, int size, bool flip,
                  float* out) {
    const float sx = w / static_cast<float>(size), sy = h / static_cast<float>(size);
    const int maxX = img.width - 1, maxY = img.height - 1;
    const std::size_t plane = static_cast<std::size_t>(size) * size;
    constexpr float kScale = 1.0f / 255.0f;
    for (int y = 0; y < size; ++y) {
        // Pixel centres map to pixel centres (align_corners = false).
        const float fy = std::clamp(y0 + (static_cast<float>(y) + 0.5f) * sy - 0.5f, 0.0f,
                                    static_cast<float>(maxY));
        const int y1 = static_cast<int>(fy);
        const int y2 = std::min(y1 + 1, maxY);
        const float wy = fy - static_cast<float>(y1);
        for (int x = 0; x < size; ++x) {
            const float fx = std::clamp(x0 + (static_cast<float>(x) + 0.5f) * sx - 0.5f, 0.0f,
                                        static_cast<float>(maxX));
            const int x1 = static_cast<int>(fx);
            const int x2 = std::min(x1 + 1, maxX);
            const float wx = fx - static_cast<float>(x1);
            const std::size_t o = static_cast<std::size_t>(y) * size + (flip ? size - 1 - x : x);
            auto px = [&](int yy, int xx, int c) {
                return static_cast<float>(
                    img.pixels[(static_cast<std::size_t>(yy) * img.width + xx) * 3 + c]);
            };
            for (int c = 0; c < 3; ++c) {
                const float top = px(y1, x1, c) * (1 - wx) + px(y1, x2, c) * wx;
                const float bottom = px(y2, x1, c) * (1 - wx) + px(y2, x2, c) * wx;
                out[c * plane + o] = (top * (1 - wy) + bottom * wy) * kScale;
            }
        }
    }
}

CropBox randomResizedCrop(int width, int height, uint64_t seed) {
    const auto W = static_cast<float>(width), H = static_cast<float>(height);
    const float minRatio = 3.0f / 4.0f, maxRatio = 4.0f / 3.0f;
    for (uint64_t attempt = 0; attempt < 10; ++attempt) {
        const float area = W * H * (0.08f + 0.92f * math::uniform01(seed, 4 * attempt));
        const float ratio =
            std::exp(std::log(minRatio) +
                     std::log(maxRatio / minRatio) * math::uniform01(seed, 4 * attempt + 1));
        const float w = std::round(std::sqrt(area * ratio));
        const float h = std::round(std::sqrt(area / ratio));
        if (w >= 1 && h >= 1 && w <= W && h <= H)
            return {std::floor((W - w + 1) * math::uniform01(seed, 4 * attempt + 2)),
                    std::floor((H - h + 1) * math::uniform01(seed, 4 * attempt + 3)), w, h};
    }
    // A very long or tall image: the whole of it, cut to the nearest allowed ratio, centred.
    float w = W, h = H;
    if (W / H < minRatio)
        h = std::round(W / minRatio);
    else if (W / H > maxRatio)
        w = std::round(H * maxRatio);
    return {std::floor((W - w) / 2), std::floor((H - h) / 2), w, h};
}

CropBox centerCrop(int width, int height, int size) {
    const auto resized = static_cast<float>(std::lround(size * 8.0 / 7.0)); // the shorter side
    const float shorter = static_cast<float>(std::min(width, height));
    const float scale = shorter / resized; // stored pixels per resized pixel
    // torchvision: the longer side becomes int(resized * longer / shorter), the crop starts at
    // round((side - size) / 2) of the resized image.
    const auto resizedSide = [&](int side) {
        return side == std::min(width, height)
                   ? resized
                   : std::floor(resized * static_cast<float>(side) / shorter);
    };
    const auto s = static_cast<float>(size);
    // Python's round, halves to even, as torchvision's CenterCrop has it.
    return {std::nearbyint((resizedSide(width) - s) / 2) * scale,
            std::nearbyint((resizedSide(height) - s) / 2) * scale, s * scale, s * scale};
}

ImageFolderDataset::ImageFolderDataset(std::shared_ptr<const ImageFolderIndex> index, int size,
                                       bool augment, std::string description)
    : m_index(std::move(index)), m_size(size), m_augment(augment),
      m_description(std::move(description)) {}

int32_t ImageFolderDataset::label(int64_t index) const {
    return m_index->labels[static_cast<std::size_t>(index)];
}

int32_t ImageFolderDataset::get(int64_t index, float* out, uint64_t seed) const {
    const std::string& path = m_index->files[static_cast<std::size_t>(index)];
    // Each loader worker reuses its buffers: no allocation per sample once they have grown.
    thread_local std::vector<uint8_t> bytes;
    thread_local RgbImage img;
    readWholeFileInto(path, bytes);
    struct Choice {
        const ImageFolderDataset* self;
        uint64_t seed;
        CropBox box;
    } choice{this, seed, {}};
    // The crop is drawn from the stored size alone, so the decoder can skip what it does not need.
    decodeImageInto(bytes, path, img, [&choice](int width, int height) {
        const auto size = static_cast<int>(choice.self->m_size);
        choice.box = choice.self->m_augment ? randomResizedCrop(width, height, choice.seed)
                                            : centerCrop(width, height, size);
        return dctScaleFor(choice.box.width, choice.box.height, size);
    });
    const bool flip = m_augment && math::uniform01(seed, 100) < 0.5f;
    const float sx = static_cast<float>(img.width) / static_cast<float>(img.storedWidth);
    const float sy = static_cast<float>(img.height) / static_cast<float>(img.storedHeight);
    const CropBox& b = choice.box;
    resampleCrop(img, b.x * sx, b.y * sy, b.width * sx, b.height * sy, static_cast<int>(m_size),
                 flip, out);
    return label(index);
}

RawSplits openImageFolderSplits(const DataConfig& config, uint64_t seed) {
    if (config.root.empty())
        throw ConfigError("data.root", "imagefolder needs data.root: a folder with one sub-folder "
                                       "of PNG/JPEG images per class");
    auto index = std::make_shared<ImageFolderIndex>(scanImageFolder(config.root));
    // One class makes every label the same: the loss is 0 from the first step and nothing is
    // learned, so say so rather than train silently.
    if (index->classNames.size() < 2)
        throw DatasetError(config.root, -1,
                           "image folder holds one class folder ('" + index->classNames.front() +
                               "'); a classifier needs at least two (root/<class>/<image>)");
    const int64_t n = static_cast<int64_t>(index->files.size());
    auto plain =
        std::make_shared<ImageFolderDataset>(index, config.imageSize, false, "imagefolder");
    auto augmented = std::make_shared<ImageFolderDataset>(index, config.imageSize, config.augment,
                                                          "imagefolder");
    auto [trainIdx, valIdx] = splitIndices(n, config.valFraction, seed);
    RawSplits s;
    const std::string where = " (" + config.root + ")";
    s.train = std::make_shared<SubsetDataset>(augmented, std::move(trainIdx),
                                              "imagefolder train" + where);
    s.validation =
        std::make_shared<SubsetDataset>(plain, std::move(valIdx), "imagefolder validation" + where);
    // Statistics come from un-augmented images of the whole folder (a sample of them).
    s.statsKey =
        statsCacheKey("imagefolder", {config.root},
                      "files=" + std::to_string(n) + ";size=" + std::to_string(config.imageSize));
    s.statsSamples = 500;
    s.statsSource = plain;
    return s;
}

} // namespace tb
