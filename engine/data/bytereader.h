// Bounded sequential reading of dataset files, plain or gzip, from disk or from memory, so readers
// can check a header's claims against what the data can hold before they allocate anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace tb {

class ByteReader {
public:
    virtual ~ByteReader() = default;

    // Reads up to n bytes into dst and returns how many it read; fewer than n only at the end of
    // the data. Throws DatasetError (with the file and the offset) on corrupt compressed data.
    virtual std::size_t read(uint8_t* dst, std::size_t n) = 0;
    // The most bytes the whole stream can hold: exact for plain data, a bound from the
    // compression ratio for gzip. Readers compare header claims against it before allocating.
    virtual uint64_t sizeLimit() const = 0;
    // Whether sizeLimit() is the exact size (plain data) rather than an upper bound.
    virtual bool exactSize() const = 0;

    // Offset of the next byte in the (uncompressed) stream.
    uint64_t position() const { return m_position; }
    // The file name used in error messages.
    const std::string& name() const { return m_name; }
    bool compressed() const { return m_compressed; }

    // Reads exactly n bytes or throws DatasetError("truncated ... while reading <what>").
    void readExact(uint8_t* dst, std::size_t n, const std::string& what);
    // Whether the stream has no bytes left (reads ahead one byte at most).
    bool atEnd();

protected:
    ByteReader(std::string name, bool compressed)
        : m_name(std::move(name)), m_compressed(compressed) {}
    uint64_t m_position = 0;
    int m_peeked = -1; // one byte read ahead by atEnd(), or -1

private:
    std::string m_name;
    bool m_compressed;
};

// Opens a file for bounded reading; gzip is detected by its magic bytes, not the name.
// Throws DatasetError(path, -1, ...) when the file is missing or unreadable.
std::unique_ptr<ByteReader> openByteReader(const std::string& path);

// Reads from a memory buffer (which must outlive the reader); gzip is detected by magic bytes.
// `name` stands for the file in error messages. This is the entry point the fuzzers use.
std::unique_ptr<ByteReader> memoryByteReader(std::span<const uint8_t> data, std::string name);

// Big-endian 32-bit value at p (IDX headers).
inline uint32_t readBigEndian32(const uint8_t* p) {
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

} // namespace tb
