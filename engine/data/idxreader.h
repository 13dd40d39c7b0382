// IDX files (the MNIST / Fashion-MNIST layout: big-endian header, unsigned bytes), plain or gzip,
// and the image-classification Dataset made from an images file and a labels file.
#pragma once

#include "data/bytereader.h"
#include "data/dataset.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tb {

// An IDX array of unsigned bytes: dims outermost first, data row-major.
struct IdxArray {
    std::vector<int64_t> dims;
    std::vector<uint8_t> data;
};

// Reads an unsigned-byte IDX array of `rank` dimensions. Checks the magic number, the rank and
// the header's sizes against what the stream can hold before allocating; throws DatasetError with
// the file and byte offset for a wrong magic number, a truncated file or trailing data.
IdxArray readIdx(ByteReader& in, int rank);
// The same from a memory buffer (plain or gzip), for the fuzzers and tests.
IdxArray parseIdx(std::span<const uint8_t> data, const std::string& name, int rank);

// Images (n, rows, cols) and labels (n) held in memory as u8 and converted per sample to floats
// in [0, 1], shape {1, rows, cols}.
class IdxDataset : public Dataset {
public:
    // Checks that the counts agree and that every label is below classNames.size(); throws
    // DatasetError naming labelsName otherwise.
    IdxDataset(IdxArray images, IdxArray labels, std::vector<std::string> classNames,
               std::string description, const std::string& labelsName);

    // Reads both files (plain or .gz).
    static std::shared_ptr<IdxDataset> open(const std::string& imagesPath,
                                            const std::string& labelsPath,
                                            std::vector<std::string> classNames,
                                            std::string description);

    int64_t size() const override { return m_count; }
    Shape sampleShape() const override { return {1, m_rows, m_cols}; }
    int numClasses() const override { return static_cast<int>(m_classNames.size()); }
    std::vector<std::string> classNames() const override { return m_classNames; }
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    std::vector<uint8_t> m_images;
    std::vector<uint8_t> m_labels;
    std::vector<std::string> m_classNames;
    std::string m_description;
    int64_t m_count = 0;
    int64_t m_rows = 0;
    int64_t m_cols = 0;
};

// Fashion-MNIST's ten class names, in label order.
const std::vector<std::string>& fashionMnistClassNames();

} // namespace tb
