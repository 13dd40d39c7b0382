// Tensor dimensions, outermost first (N, C, H, W for images).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tb {

class Shape {
public:
    static constexpr int kMaxRank = 6;

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims);
    explicit Shape(const std::vector<int64_t>& dims);

    int rank() const { return m_rank; }
    int64_t operator[](int i) const { return m_dims[static_cast<std::size_t>(i)]; }
    int64_t& operator[](int i) { return m_dims[static_cast<std::size_t>(i)]; }
    int64_t numel() const;
    std::vector<int64_t> dims() const;

    // The same shape with a new outermost (batch) dimension in front.
    Shape withBatch(int64_t n) const;
    // Everything but the outermost dimension.
    Shape dropBatch() const;

    // "1x28x28"; parse() accepts that form and "1,28,28", and throws ConfigError on anything
    // else.
    std::string toString() const;
    static Shape parse(const std::string& text, const std::string& field);

    bool operator==(const Shape& other) const;

private:
    std::array<int64_t, kMaxRank> m_dims{};
    int m_rank = 0;
};

} // namespace tb
