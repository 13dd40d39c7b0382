// CIFAR batch parsing (record by record, size checked first) and the CifarDataset.
#include "data/cifarreader.h"

#include "core/errors.h"

namespace tb {

namespace {

constexpr std::size_t kPixels = 3 * 32 * 32;

} // namespace

void readCifarBatch(ByteReader& in, bool hundred, CifarArray& out) {
    const std::size_t labelBytes = hundred ? 2 : 1;
    const std::size_t record = labelBytes + kPixels;
    const uint8_t classes = hundred ? 100 : 10;
    if (in.exactSize()) {
        const uint64_t size = in.sizeLimit();
        if (size == 0)
            throw DatasetError(in.name(), 0, "file is empty");
        if (size % record != 0)
            throw DatasetError(in.name(), static_cast<int64_t>(size / record * record),
                               "file is truncated: " + std::to_string(size) +
                                   " bytes is not a whole number of " + std::to_string(record) +
                                   "-byte records");
        out.labels.reserve(out.labels.size() + size / record);
        out.pixels.reserve(out.pixels.size() + size / record * kPixels);
    }
    std::size_t records = 0;
    while (true) {
        const uint64_t start = in.position();
        uint8_t label[2] = {0, 0};
        const std::size_t got = in.read(label, labelBytes);
        if (got == 0)
            break;
        if (got < labelBytes)
            throw DatasetError(in.name(), static_cast<int64_t>(start + got),
                               "file is truncated inside a record's labels");
        if (hundred && label[0] >= 20)
            throw DatasetError(in.name(), static_cast<int64_t>(start),
                               "coarse label " + std::to_string(label[0]) +
                                   " is out of range for 20 superclasses");
        const uint8_t fine = label[labelBytes - 1];
        if (fine >= classes)
            throw DatasetError(in.name(), static_cast<int64_t>(start + labelBytes - 1),
                               "label " + std::to_string(fine) + " is out of range for " +
                                   std::to_string(classes) + " classes");
        const std::size_t at = out.pixels.size();
        out.pixels.resize(at + kPixels);
        in.readExact(out.pixels.data() + at, kPixels, "a record's pixels");
        out.labels.push_back(fine);
        ++records;
    }
    if (records == 0)
        throw DatasetError(in.name(), 0, "file holds no records");
}

CifarArray parseCifar(std::span<const uint8_t> data, const std::string& name, bool hundred) {
    auto in = memoryByteReader(data, name);
    CifarArray out;
    readCifarBatch(*in, hundred, out);
    return out;
}

CifarDataset::CifarDataset(CifarArray data, std::vector<std::string> classNames,
                           std::string description)
    : m_data(std::move(data)), m_classNames(std::move(classNames)),
      m_description(std::move(description)) {}

int32_t CifarDataset::label(int64_t index) const {
    return m_data.labels[static_cast<std::size_t>(index)];
}

int32_t CifarDataset::get(int64_t index, float* out, uint64_t /*seed*/) const {
    const uint8_t* p = m_data.pixels.data() + static_cast<std::size_t>(index) * kPixels;
    constexpr float kScale = 1.0f / 255.0f;
    for (std::size_t i = 0; i < kPixels; ++i)
        out[i] = static_cast<float>(p[i]) * kScale;
    return label(index);
}

} // namespace tb
