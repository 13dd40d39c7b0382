// A dataset: numbered samples, each a float tensor of sampleShape() and an integer label.
#pragma once

#include "core/shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

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
    // Short description for logs and the run record: "fashion-mnist train (60000 samples)".
    virtual std::string description() const = 0;
};

} // namespace tb
