// DetectionDataset: decode, transform, then lay the pixels out channels first and the boxes as
// fixed-size rows.
#include "data/detectiondataset.h"

#include "backend/kernels/random_math.h"

#include <algorithm>
#include <array>

namespace tb {

namespace {

// Draw slots of a sample's seed above those augmentForTraining() uses: the mosaic's partners.
constexpr uint64_t kPartnerDraw = 20;

LabeledImage withoutCrowds(LabeledImage image) {
    std::erase_if(image.boxes, [](const LabeledBox& b) { return b.crowd; });
    return image;
}

} // namespace

DetectionDataset::DetectionDataset(std::shared_ptr<const DetectionSource> source, int size,
                                   bool train, const DetectAugmentOptions& options)
    : m_source(std::move(source)), m_names(m_source->classNames()), m_size(size), m_train(train),
      m_options(options), m_mosaicOn(train && options.mosaic > 0) {
    int64_t most = 0;
    for (int64_t i = 0; i < m_source->size(); ++i)
        most = std::max<int64_t>(most, std::ssize(m_source->labels(i).boxes));
    // A mosaic joins four images; validation keeps crowd regions, so every box counts there.
    m_maxBoxes = std::max<int64_t>(1, m_mosaicOn ? 4 * maxBoxesPerImage(*m_source) : most);
}

int32_t DetectionDataset::label(int64_t index) const {
    int32_t best = -1;
    float area = -1;
    for (const LabeledBox& b : m_source->labels(index).boxes)
        if (!b.crowd && b.width() * b.height() > area) {
            area = b.width() * b.height();
            best = b.category;
        }
    return best;
}

LabeledImage DetectionDataset::labeledSample(int64_t index, uint64_t seed) const {
    if (!m_train)
        return letterbox(m_source->load(index), m_size);
    if (mosaic() && drawsMosaic(m_options, seed)) {
        std::array<LabeledImage, 4> four;
        four[0] = withoutCrowds(m_source->load(index));
        for (uint64_t k = 1; k < 4; ++k) {
            const auto other = static_cast<int64_t>(math::uniform01(seed, kPartnerDraw + k) *
                                                    static_cast<float>(size()));
            four[k] = withoutCrowds(m_source->load(std::min(other, size() - 1)));
        }
        return augmentForTraining(four, m_size, m_options, seed);
    }
    const LabeledImage one = withoutCrowds(m_source->load(index));
    return augmentForTraining({&one, 1}, m_size, m_options, seed);
}

void DetectionDataset::sampleBoxes(int64_t index, float* out, float* boxes, uint64_t seed) const {
    const LabeledImage sample = labeledSample(index, seed);
    const std::size_t plane = static_cast<std::size_t>(m_size) * static_cast<std::size_t>(m_size);
    for (std::size_t p = 0; p < plane; ++p)
        for (std::size_t c = 0; c < 3; ++c)
            out[c * plane + p] = static_cast<float>(sample.image.pixels[p * 3 + c]) / 255.0f;
    std::fill_n(boxes, m_maxBoxes * kBoxColumns, 0.0f);
    const auto kept = std::min<int64_t>(m_maxBoxes, std::ssize(sample.boxes));
    for (int64_t i = 0; i < m_maxBoxes; ++i) {
        float* row = boxes + i * kBoxColumns;
        if (i >= kept) {
            row[0] = -1.0f;
            continue;
        }
        const LabeledBox& b = sample.boxes[static_cast<std::size_t>(i)];
        row[0] = static_cast<float>(b.category);
        row[1] = b.x1;
        row[2] = b.y1;
        row[3] = b.x2;
        row[4] = b.y2;
        row[5] = b.crowd ? 1.0f : 0.0f;
    }
}

int32_t DetectionDataset::get(int64_t index, float* out, uint64_t seed) const {
    std::vector<float> boxes(static_cast<std::size_t>(m_maxBoxes * kBoxColumns));
    sampleBoxes(index, out, boxes.data(), seed);
    return label(index);
}

} // namespace tb
