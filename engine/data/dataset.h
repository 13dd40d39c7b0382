// A dataset: numbered samples, each a float tensor of sampleShape() and an integer label (or,
// for text, one integer target per position; for detection, rows of boxes).
#pragma once

#include "core/shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

// Columns of a detection target row: class, x1, y1, x2, y2, crowd (1 for COCO's iscrowd).
inline constexpr int64_t kBoxColumns = 6;

class Dataset {
public:
    virtual ~Dataset() = default;

    virtual int64_t size() const = 0;
    // Shape of one sample without the batch dimension: {1, 28, 28}, {3, 32, 32}, {2}.
    virtual Shape sampleShape() const = 0;
    virtual int numClasses() const = 0;
    virtual std::vector<std::string> classNames() const;
    virtual int32_t label(int64_t index) const = 0;
    // Writes sample `index` as sampleShape().numel() floats into out and returns its label.
    // `seed` drives every random choice (augmentation) for this sample, so the result does not
    // depend on which thread asks. Must be safe to call from several threads at once.
    virtual int32_t get(int64_t index, float* out, uint64_t seed) const = 0;
    // Targets per sample: 1 (the label) for classification; a text window has one at each
    // position (the token that follows it), more than get() returns, so sample() writes them.
    virtual int64_t targetsPerSample() const { return 1; }
    // Writes sample `index` as get() does and its targetsPerSample() targets; by default the
    // one label get() returns.
    virtual void sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const {
        targets[0] = get(index, out, seed);
    }
    // Detection: rows of a sample's boxes (kBoxColumns floats each) that a batch holds for it,
    // 0 for the other tasks. When above 0 the loader calls sampleBoxes() instead of sample().
    virtual int64_t maxBoxes() const { return 0; }
    // Writes sample `index` as get() does and its boxes, after the same augmentation, as
    // maxBoxes() rows (class, x1, y1, x2, y2, crowd) in the input's pixels, unused rows with
    // class -1. By default a sample has no boxes.
    virtual void sampleBoxes(int64_t index, float* out, float* /*boxes*/, uint64_t seed) const {
        get(index, out, seed);
    }
    // Short description for logs and the run record: "fashion-mnist train (60000 samples)".
    virtual std::string description() const = 0;
};

} // namespace tb
