// Composable dataset transforms: each wraps a Dataset and is itself a Dataset. Every random choice
// is drawn from the per-sample seed handed to get(), so results do not depend on the thread.
#pragma once

#include "data/dataset.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb {

// Channels of a sample shape: C for {C, H, W}, every feature for {F}.
int64_t channelCount(const Shape& sampleShape);

// A dataset over another one: size, shape, classes and labels are the inner set's unless a
// wrapper changes them.
class WrappedDataset : public Dataset {
public:
    int64_t size() const override { return m_inner->size(); }
    Shape sampleShape() const override { return m_inner->sampleShape(); }
    int numClasses() const override { return m_inner->numClasses(); }
    std::vector<std::string> classNames() const override { return m_inner->classNames(); }
    int32_t label(int64_t index) const override { return m_inner->label(index); }

protected:
    explicit WrappedDataset(std::shared_ptr<const Dataset> inner) : m_inner(std::move(inner)) {}

    std::shared_ptr<const Dataset> m_inner;
};

// (x - mean[c]) / std[c] per channel. std values below 1e-6 are treated as 1.
class NormalizeDataset : public WrappedDataset {
public:
    NormalizeDataset(std::shared_ptr<const Dataset> inner, std::vector<float> mean,
                     std::vector<float> stdDev);
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    // A sample with several targets (a segmentation's mask) keeps them; its pixels normalised.
    int64_t targetsPerSample() const override { return m_inner->targetsPerSample(); }
    void sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const override;
    std::string description() const override;

private:
    void normalize(float* sample) const;

    std::vector<float> m_mean;
    std::vector<float> m_invStd;
};

// Random crop of a {C, H, W} image after zero padding by `padding` pixels on each side, then a
// horizontal flip with probability 1/2 (torchvision's RandomCrop(32, padding=4) + flip).
class RandomCropFlipDataset : public WrappedDataset {
public:
    RandomCropFlipDataset(std::shared_ptr<const Dataset> inner, int padding = 4, bool flip = true);
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override;

private:
    int m_padding;
    bool m_flip;
};

// The samples of `inner` listed in `indices`, in that order (train/validation splits).
class SubsetDataset : public WrappedDataset {
public:
    SubsetDataset(std::shared_ptr<const Dataset> inner, std::vector<int64_t> indices,
                  std::string description);
    int64_t size() const override { return static_cast<int64_t>(m_indices.size()); }
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    std::vector<int64_t> m_indices;
    std::string m_description;
};

// Seeded split of [0, n) into (train, validation) index lists: a seeded permutation of which
// round(n * valFraction) indices (at least 1 when n > 1 and valFraction > 0) go to validation.
// Both lists are returned sorted.
std::pair<std::vector<int64_t>, std::vector<int64_t>> splitIndices(int64_t n, double valFraction,
                                                                   uint64_t seed);

// A seeded permutation of [0, n) (Fisher-Yates driven by the counter-based generator).
std::vector<int64_t> seededPermutation(int64_t n, uint64_t seed);

} // namespace tb
