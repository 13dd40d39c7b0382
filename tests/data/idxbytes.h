// Builders for small IDX and CIFAR files that the data tests write into temporary folders.
#pragma once

#include <cstdint>
#include <vector>

namespace tb::test {

// An unsigned-byte IDX file: magic 0x0000080<rank>, big-endian dims, then data.
inline std::vector<uint8_t> idxBytes(const std::vector<uint32_t>& dims,
                                     const std::vector<uint8_t>& data) {
    std::vector<uint8_t> b = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
    for (uint32_t d : dims) {
        b.push_back(static_cast<uint8_t>(d >> 24));
        b.push_back(static_cast<uint8_t>(d >> 16));
        b.push_back(static_cast<uint8_t>(d >> 8));
        b.push_back(static_cast<uint8_t>(d));
    }
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

// n images of rows x cols where pixel p of image i is (i * 7 + p) % 256.
inline std::vector<uint8_t> idxImages(uint32_t n, uint32_t rows, uint32_t cols) {
    std::vector<uint8_t> px(static_cast<std::size_t>(n) * rows * cols);
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t p = 0; p < rows * cols; ++p)
            px[static_cast<std::size_t>(i) * rows * cols + p] =
                static_cast<uint8_t>((i * 7 + p) % 256);
    return idxBytes({n, rows, cols}, px);
}

// n labels i % classes.
inline std::vector<uint8_t> idxLabels(uint32_t n, uint32_t classes = 10) {
    std::vector<uint8_t> l(n);
    for (uint32_t i = 0; i < n; ++i)
        l[i] = static_cast<uint8_t>(i % classes);
    return idxBytes({n}, l);
}

// n CIFAR records: [coarse label when hundred] label, then 3072 pixel bytes (i + p) % 256.
inline std::vector<uint8_t> cifarRecords(uint32_t n, bool hundred, uint32_t classes) {
    std::vector<uint8_t> b;
    for (uint32_t i = 0; i < n; ++i) {
        if (hundred)
            b.push_back(static_cast<uint8_t>(i % 20));
        b.push_back(static_cast<uint8_t>(i % classes));
        for (uint32_t p = 0; p < 3072; ++p)
            b.push_back(static_cast<uint8_t>((i + p) % 256));
    }
    return b;
}

} // namespace tb::test
