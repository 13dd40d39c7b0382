// Shape: construction, printing and parsing.
#include "core/shape.h"

#include "core/errors.h"

#include <charconv>

namespace tb {

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}

Shape::Shape(const std::vector<int64_t>& dims) {
    if (dims.size() > kMaxRank)
        throw Error("a shape has at most 6 dimensions, got " + std::to_string(dims.size()));
    m_rank = static_cast<int>(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i)
        m_dims[i] = dims[i];
}

int64_t Shape::numel() const {
    int64_t n = 1;
    for (int i = 0; i < m_rank; ++i)
        n *= m_dims[static_cast<std::size_t>(i)];
    return n;
}

std::vector<int64_t> Shape::dims() const {
    return {m_dims.begin(), m_dims.begin() + m_rank};
}

Shape Shape::withBatch(int64_t n) const {
    std::vector<int64_t> d{n};
    for (int i = 0; i < m_rank; ++i)
        d.push_back((*this)[i]);
    return Shape(d);
}

Shape Shape::dropBatch() const {
    std::vector<int64_t> d;
    for (int i = 1; i < m_rank; ++i)
        d.push_back((*this)[i]);
    return Shape(d);
}

std::string Shape::toString() const {
    std::string s;
    for (int i = 0; i < m_rank; ++i) {
        if (i)
            s += 'x';
        s += std::to_string((*this)[i]);
    }
    return s;
}

Shape Shape::parse(const std::string& text, const std::string& field) {
    std::vector<int64_t> dims;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        int64_t v = 0;
        auto [next, ec] = std::from_chars(p, end, v);
        // Sizes joined by 'x' (3x224x224) or by commas (3,224,224, as PyTorch prints them).
        if (ec != std::errc() || v <= 0 ||
            (next != end && ((*next != 'x' && *next != ',') || next + 1 == end)))
            throw ConfigError(field, "'" + text +
                                         "' is not a shape; write positive sizes "
                                         "joined by 'x' or ',', e.g. 1x28x28");
        dims.push_back(v);
        p = next == end ? end : next + 1;
    }
    if (dims.empty() || dims.size() > kMaxRank)
        throw ConfigError(field, "'" + text + "' must have 1 to 6 dimensions, e.g. 1x28x28");
    return Shape(dims);
}

bool Shape::operator==(const Shape& other) const {
    if (m_rank != other.m_rank)
        return false;
    for (int i = 0; i < m_rank; ++i)
        if ((*this)[i] != other[i])
            return false;
    return true;
}

} // namespace tb
