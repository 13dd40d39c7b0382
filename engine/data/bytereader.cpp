// Plain and gzip ByteReaders over files and memory buffers (zlib inflate, read incrementally).
#include "data/bytereader.h"

#include "core/errors.h"
#include "core/regularfile.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tb {

namespace {

// deflate cannot compress better than about 1032:1; a gzip stream of n bytes therefore holds at
// most this many times n bytes (plus slack for tiny files).
constexpr uint64_t kMaxGzipRatio = 1100;
constexpr uint64_t kGzipSlack = 1 << 16;
constexpr std::size_t kChunk = 1 << 16;

bool isGzip(const uint8_t* p, std::size_t n) {
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

// Where compressed bytes come from: a FILE* or a memory span.
class Source {
public:
    virtual ~Source() = default;
    virtual std::size_t read(uint8_t* dst, std::size_t n) = 0;
};

class FileSource : public Source {
public:
    FileSource(std::FILE* f, std::string name) : m_file(f), m_name(std::move(name)) {}
    ~FileSource() override { std::fclose(m_file); }
    std::size_t read(uint8_t* dst, std::size_t n) override {
        const std::size_t got = std::fread(dst, 1, n, m_file);
        if (got < n && std::ferror(m_file))
            throw DatasetError(m_name, -1, std::string("read error: ") + std::strerror(errno));
        return got;
    }

private:
    std::FILE* m_file;
    std::string m_name;
};

class MemorySource : public Source {
public:
    explicit MemorySource(std::span<const uint8_t> data) : m_data(data) {}
    std::size_t read(uint8_t* dst, std::size_t n) override {
        const std::size_t got = std::min(n, m_data.size() - m_pos);
        if (got > 0)
            std::memcpy(dst, m_data.data() + m_pos, got);
        m_pos += got;
        return got;
    }

private:
    std::span<const uint8_t> m_data;
    std::size_t m_pos = 0;
};

class PlainReader : public ByteReader {
public:
    PlainReader(std::unique_ptr<Source> src, uint64_t size, std::string name)
        : ByteReader(std::move(name), false), m_src(std::move(src)), m_size(size) {}
    std::size_t read(uint8_t* dst, std::size_t n) override {
        std::size_t got = 0;
        if (m_peeked >= 0 && n > 0) {
            dst[got++] = static_cast<uint8_t>(m_peeked);
            m_peeked = -1;
        }
        got += m_src->read(dst + got, n - got);
        m_position += got;
        return got;
    }
    uint64_t sizeLimit() const override { return m_size; }
    bool exactSize() const override { return true; }

private:
    std::unique_ptr<Source> m_src;
    uint64_t m_size;
};

// Inflates a gzip stream (concatenated members allowed) chunk by chunk.
class GzipReader : public ByteReader {
public:
    GzipReader(std::unique_ptr<Source> src, uint64_t compressedSize, std::string name)
        : ByteReader(std::move(name), true), m_src(std::move(src)),
          m_limit(compressedSize * kMaxGzipRatio + kGzipSlack), m_in(kChunk) {
        std::memset(&m_z, 0, sizeof m_z);
        if (inflateInit2(&m_z, 15 + 16) != Z_OK)
            throw DatasetError(this->name(), 0, "cannot start zlib");
    }
    ~GzipReader() override { inflateEnd(&m_z); }

    std::size_t read(uint8_t* dst, std::size_t n) override {
        std::size_t got = 0;
        if (m_peeked >= 0 && n > 0) {
            dst[got++] = static_cast<uint8_t>(m_peeked);
            m_peeked = -1;
        }
        while (got < n && !m_done) {
            if (m_z.avail_in == 0) {
                m_z.avail_in = static_cast<uInt>(m_src->read(m_in.data(), m_in.size()));
                m_z.next_in = m_in.data();
                if (m_z.avail_in == 0) {
                    if (!m_memberEnded)
                        throw DatasetError(
                            name(), static_cast<int64_t>(m_position + got),
                            "gzip data ends early (offset in the uncompressed data)");
                    m_done = true;
                    break;
                }
            }
            if (m_memberEnded) {
                // Another gzip member follows (or trailing garbage, which zlib rejects).
                inflateReset(&m_z);
                m_memberEnded = false;
            }
            const std::size_t want = std::min<std::size_t>(n - got, 1u << 30);
            m_z.next_out = dst + got;
            m_z.avail_out = static_cast<uInt>(want);
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            got += want - m_z.avail_out;
            if (rc == Z_STREAM_END) {
                m_memberEnded = true;
            } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                throw DatasetError(name(), static_cast<int64_t>(m_position + got),
                                   std::string("corrupt gzip data (offset in the uncompressed "
                                               "data): ") +
                                       (m_z.msg ? m_z.msg : "zlib error"));
            }
        }
        m_position += got;
        return got;
    }
    uint64_t sizeLimit() const override { return m_limit; }
    bool exactSize() const override { return false; }

private:
    std::unique_ptr<Source> m_src;
    uint64_t m_limit;
    std::vector<uint8_t> m_in;
    z_stream m_z;
    bool m_memberEnded = false;
    bool m_done = false;
};

} // namespace

void ByteReader::readExact(uint8_t* dst, std::size_t n, const std::string& what) {
    const uint64_t start = m_position;
    const std::size_t got = read(dst, n);
    if (got < n)
        throw DatasetError(m_name, static_cast<int64_t>(start + got),
                           "file is truncated: it ends while reading " + what + " (" +
                               std::to_string(n - got) + " more bytes expected)");
}

bool ByteReader::atEnd() {
    if (m_peeked >= 0)
        return false;
    uint8_t b = 0;
    if (read(&b, 1) == 0)
        return true;
    --m_position; // the peeked byte is handed out again by the next read()
    m_peeked = b;
    return false;
}

std::unique_ptr<ByteReader> openByteReader(const std::string& path) {
    const uint64_t size = regularFileSize(path);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw DatasetError(path, -1, std::string("cannot open: ") + std::strerror(errno));
    auto src = std::make_unique<FileSource>(f, path);
    uint8_t magic[2] = {0, 0};
    const std::size_t n = src->read(magic, 2);
    if (std::fseek(f, 0, SEEK_SET) != 0)
        throw DatasetError(path, -1, "cannot seek");
    if (isGzip(magic, n))
        return std::make_unique<GzipReader>(std::move(src), size, path);
    return std::make_unique<PlainReader>(std::move(src), size, path);
}

std::unique_ptr<ByteReader> memoryByteReader(std::span<const uint8_t> data, std::string name) {
    if (isGzip(data.data(), data.size()))
        return std::make_unique<GzipReader>(std::make_unique<MemorySource>(data), data.size(),
                                            std::move(name));
    return std::make_unique<PlainReader>(std::make_unique<MemorySource>(data), data.size(),
                                         std::move(name));
}

} // namespace tb
