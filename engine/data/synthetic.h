// Synthetic datasets that need no files: 2-D spirals, Gaussian blobs and drawn shapes. Every
// sample is computed from (dataset seed, index), so a set is reproducible and costs no memory.
#pragma once

#include "data/dataset.h"

#include <cstdint>
#include <string>
#include <utility>

namespace tb {

// What the synthetic sets share: a size, `classes` labels assigned round-robin (label = index %
// classes, so every class has the same count) and a dataset seed the samples derive from.
class SyntheticDataset : public Dataset {
public:
    int64_t size() const override { return m_samples; }
    int numClasses() const override { return m_classes; }
    int32_t label(int64_t index) const override { return static_cast<int32_t>(index % m_classes); }
    std::string description() const override { return m_description; }

protected:
    SyntheticDataset(int64_t samples, int classes, uint64_t seed, std::string description)
        : m_samples(samples), m_classes(classes), m_seed(seed),
          m_description(std::move(description)) {}

    int64_t m_samples;
    int m_classes;
    uint64_t m_seed;
    std::string m_description;
};

// `classes` interleaved spiral arms in 2-D.
class SpiralsDataset : public SyntheticDataset {
public:
    SpiralsDataset(int64_t samples, int classes, uint64_t seed, std::string description);
    Shape sampleShape() const override { return {2}; }
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
};

// One unit-variance Gaussian blob per class in `dims` dimensions; the centres are drawn from
// `centreSeed` so train and validation (different sample seeds) share them.
class BlobsDataset : public SyntheticDataset {
public:
    BlobsDataset(int64_t samples, int classes, int dims, uint64_t centreSeed, uint64_t seed,
                 std::string description);
    Shape sampleShape() const override { return {m_dims}; }
    int32_t get(int64_t index, float* out, uint64_t seed) const override;

private:
    int m_dims;
    uint64_t m_centreSeed;
};

// Grey images {1, size, size} of one shape each, at a random place, size, slant and brightness
// on a noisy background: circle, square, triangle, cross, ring, diamond (classes <= 6).
class ShapesDataset : public SyntheticDataset {
public:
    static constexpr int kMaxClasses = 6;
    ShapesDataset(int64_t samples, int classes, int imageSize, uint64_t seed,
                  std::string description);
    Shape sampleShape() const override { return {1, m_size, m_size}; }
    std::vector<std::string> classNames() const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;

private:
    int64_t m_size;
};

} // namespace tb
