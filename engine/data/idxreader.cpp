// IDX parsing with header checks before allocation, and the in-memory IdxDataset.
#include "data/idxreader.h"

#include "core/errors.h"

#include <algorithm>
#include <cstdio>

namespace tb {

namespace {

constexpr int64_t kMaxDim = int64_t{1} << 31;
constexpr std::size_t kReadChunk = std::size_t{4} << 20;

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i)
        s += (i ? " x " : "") + std::to_string(dims[i]);
    return s;
}

} // namespace

IdxArray readIdx(ByteReader& in, int rank) {
    uint8_t head[4];
    in.readExact(head, 4, "the IDX magic number");
    const uint32_t magic = readBigEndian32(head);
    const uint32_t expected = 0x00000800u | static_cast<uint32_t>(rank);
    if (magic != expected)
        throw DatasetError(in.name(), 0,
                           "wrong magic number " + hex32(magic) + ", expected " + hex32(expected) +
                               " (IDX unsigned bytes, " + std::to_string(rank) +
                               (rank == 1 ? " dimension)" : " dimensions)"));
    IdxArray a;
    uint64_t items = 1;
    for (int i = 0; i < rank; ++i) {
        uint8_t d[4];
        in.readExact(d, 4, "the IDX header");
        const int64_t dim = readBigEndian32(d);
        if (dim >= kMaxDim || (i > 0 && dim == 0))
            throw DatasetError(in.name(), 4 + 4 * i,
                               "implausible dimension " + std::to_string(dim) + " in the header");
        a.dims.push_back(dim);
        // items <= 2^40 before and dim < 2^31: check before multiplying so nothing overflows.
        if (dim > 0 && items > (uint64_t{1} << 40) / static_cast<uint64_t>(dim))
            throw DatasetError(in.name(), 4 + 4 * i, "header claims an implausible size");
        items *= static_cast<uint64_t>(dim);
    }
    const uint64_t headerBytes = 4 + 4 * static_cast<uint64_t>(rank);
    const uint64_t limit = in.sizeLimit() > headerBytes ? in.sizeLimit() - headerBytes : 0;
    if (a.dims[0] == 0)
        throw DatasetError(in.name(), 4, "header claims no items");
    if (items > limit) {
        throw DatasetError(in.name(), 4,
                           "header claims " + dimsText(a.dims) + " = " + std::to_string(items) +
                               " bytes of data but the " +
                               (in.exactSize()
                                    ? "file holds only " + std::to_string(limit)
                                    : "gzip stream can hold at most " + std::to_string(limit)));
    }
    if (in.exactSize() && items < limit)
        throw DatasetError(in.name(), static_cast<int64_t>(headerBytes + items),
                           std::to_string(limit - items) + " bytes of trailing data after the " +
                               dimsText(a.dims) + " the header claims");
    // Grow as data arrives, so a gzip header that lies costs no more than the data really holds.
    a.data.reserve(static_cast<std::size_t>(std::min<uint64_t>(items, kReadChunk * 16)));
    uint64_t done = 0;
    while (done < items) {
        const std::size_t chunk =
            static_cast<std::size_t>(std::min<uint64_t>(items - done, kReadChunk));
        a.data.resize(static_cast<std::size_t>(done) + chunk);
        const std::size_t got = in.read(a.data.data() + done, chunk);
        done += got;
        if (got < chunk)
            throw DatasetError(in.name(), static_cast<int64_t>(headerBytes + done),
                               "file is truncated: header claims " + dimsText(a.dims) + " (" +
                                   std::to_string(items) + " bytes) but the data ends after " +
                                   std::to_string(done) + " bytes");
    }
    if (!in.exactSize() && !in.atEnd())
        throw DatasetError(in.name(), static_cast<int64_t>(headerBytes + items),
                           "trailing data after the " + dimsText(a.dims) + " the header claims");
    return a;
}

IdxArray parseIdx(std::span<const uint8_t> data, const std::string& name, int rank) {
    auto in = memoryByteReader(data, name);
    return readIdx(*in, rank);
}

IdxDataset::IdxDataset(IdxArray images, IdxArray labels, std::vector<std::string> classNames,
                       std::string description, const std::string& labelsName)
    : m_images(std::move(images.data)), m_labels(std::move(labels.data)),
      m_classNames(std::move(classNames)), m_description(std::move(description)) {
    if (images.dims.size() != 3 || labels.dims.size() != 1)
        throw DatasetError(labelsName, -1, "expected 3-D images and 1-D labels");
    m_count = images.dims[0];
    m_rows = images.dims[1];
    m_cols = images.dims[2];
    if (labels.dims[0] != m_count)
        throw DatasetError(labelsName, 4,
                           "holds " + std::to_string(labels.dims[0]) +
                               " labels but the images file holds " + std::to_string(m_count) +
                               " images");
    const auto classes = static_cast<uint8_t>(std::min<std::size_t>(m_classNames.size(), 255));
    for (std::size_t i = 0; i < m_labels.size(); ++i) {
        if (m_labels[i] >= classes)
            throw DatasetError(labelsName, static_cast<int64_t>(8 + i),
                               "label " + std::to_string(m_labels[i]) + " of sample " +
                                   std::to_string(i) + " is out of range for " +
                                   std::to_string(m_classNames.size()) + " classes");
    }
}

std::shared_ptr<IdxDataset> IdxDataset::open(const std::string& imagesPath,
                                             const std::string& labelsPath,
                                             std::vector<std::string> classNames,
                                             std::string description) {
    auto labelsIn = openByteReader(labelsPath);
    IdxArray labels = readIdx(*labelsIn, 1);
    auto imagesIn = openByteReader(imagesPath);
    IdxArray images = readIdx(*imagesIn, 3);
    return std::make_shared<IdxDataset>(std::move(images), std::move(labels), std::move(classNames),
                                        std::move(description), labelsPath);
}

int32_t IdxDataset::label(int64_t index) const {
    return m_labels[static_cast<std::size_t>(index)];
}

int32_t IdxDataset::get(int64_t index, float* out, uint64_t /*seed*/) const {
    const int64_t n = m_rows * m_cols;
    const uint8_t* p = m_images.data() + index * n;
    constexpr float kScale = 1.0f / 255.0f;
    for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<float>(p[i]) * kScale;
    return m_labels[static_cast<std::size_t>(index)];
}

const std::vector<std::string>& fashionMnistClassNames() {
    static const std::vector<std::string> kNames = {
        "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
        "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
    return kNames;
}

} // namespace tb
