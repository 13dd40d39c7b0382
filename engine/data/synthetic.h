// Synthetic datasets that need no files: 2-D spirals, Gaussian blobs and drawn shapes. Every
// sample is computed from (dataset seed, index), so a set is reproducible and costs no memory.
#pragma once

#include "data/dataset.h"

#include <cstdint>
#include <string>

namespace tb {

// `classes` interleaved spiral arms in 2-D; label = index % classes.
class SpiralsDataset : public Dataset {
public:
    SpiralsDataset(int64_t samples, int classes, uint64_t seed, std::string description);
    int64_t size() const override { return m_samples; }
    Shape sampleShape() const override { return {2}; }
    int numClasses() const override { return m_classes; }
    int32_t label(int64_t index) const override { return static_cast<int32_t>(index % m_classes); }
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    int64_t m_samples;
    int m_classes;
    uint64_t m_seed;
    std::string m_description;
};

// One unit-variance Gaussian blob per class in `dims` dimensions; the centres are drawn from
// `centreSeed` so train and validation (different sample seeds) share them.
class BlobsDataset : public Dataset {
public:
    BlobsDataset(int64_t samples, int classes, int dims, uint64_t centreSeed, uint64_t seed,
                 std::string description);
    int64_t size() const override { return m_samples; }
    Shape sampleShape() const override { return {m_dims}; }
    int numClasses() const override { return m_classes; }
    int32_t label(int64_t index) const override { return static_cast<int32_t>(index % m_classes); }
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    int64_t m_samples;
    int m_classes;
    int m_dims;
    uint64_t m_centreSeed;
    uint64_t m_seed;
    std::string m_description;
};

// Grey images {1, size, size} of one shape each, at a random place, size, slant and brightness
// on a noisy background: circle, square, triangle, cross, ring, diamond (classes <= 6).
class ShapesDataset : public Dataset {
public:
    static constexpr int kMaxClasses = 6;
    ShapesDataset(int64_t samples, int classes, int imageSize, uint64_t seed,
                  std::string description);
    int64_t size() const override { return m_samples; }
    Shape sampleShape() const override { return {1, m_size, m_size}; }
    int numClasses() const override { return m_classes; }
    std::vector<std::string> classNames() const override;
    int32_t label(int64_t index) const override { return static_cast<int32_t>(index % m_classes); }
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    int64_t m_samples;
    int m_classes;
    int64_t m_size;
    uint64_t m_seed;
    std::string m_description;
};

} // namespace tb
