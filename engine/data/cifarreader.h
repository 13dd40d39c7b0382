// CIFAR-10 and CIFAR-100 binary batches: fixed-size records of label byte(s) and 3x32x32 pixels,
// held in memory as u8 and converted per sample to floats in [0, 1].
#pragma once

#include "data/bytereader.h"
#include "data/dataset.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tb {

struct CifarArray {
    std::vector<uint8_t> pixels; // (n, 3, 32, 32)
    std::vector<uint8_t> labels; // (n), the fine label for CIFAR-100
};

// Appends the records of one batch file to out. CIFAR-100 records carry a coarse and a fine
// label (the fine one is kept). Throws DatasetError with the file and byte offset for a size
// that is not a whole number of records, a truncated record or a label >= its class count.
void readCifarBatch(ByteReader& in, bool hundred, CifarArray& out);
// The same from a memory buffer (plain or gzip), for the fuzzers and tests.
CifarArray parseCifar(std::span<const uint8_t> data, const std::string& name, bool hundred);

class CifarDataset : public Dataset {
public:
    CifarDataset(CifarArray data, std::vector<std::string> classNames, std::string description);

    int64_t size() const override { return static_cast<int64_t>(m_data.labels.size()); }
    Shape sampleShape() const override { return {3, 32, 32}; }
    int numClasses() const override { return static_cast<int>(m_classNames.size()); }
    std::vector<std::string> classNames() const override { return m_classNames; }
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    CifarArray m_data;
    std::vector<std::string> m_classNames;
    std::string m_description;
};

} // namespace tb
