// Reading, checking and tokenising text, and the windows a language model trains on. UTF-8 is
// validated here (RFC 3629: no overlongs, surrogates or code points past U+10FFFF); it is the
// one decoding the engine needs, so no library is pulled in for it.
#include "data/textdataset.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "core/regularfile.h"
#include "data/rawsplits.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace tb {

namespace {

namespace fs = std::filesystem;

std::string readText(const std::string& path) {
    const uint64_t size = regularFileSize(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DatasetError(path, -1, "cannot be opened for reading");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (static_cast<uint64_t>(in.gcount()) != size)
        throw DatasetError(path, in.gcount(), "could not be read to its end");
    if (text.empty())
        throw DatasetError(path, -1, "is empty: a text dataset needs text");
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw DatasetError(path, static_cast<int64_t>(nul),
                           "is binary (a NUL byte), not text: give a UTF-8 text file");
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8Length(text, i);
        if (len == 0)
            throw DatasetError(path, static_cast<int64_t>(i),
                               "is not UTF-8 text (an invalid byte sequence): convert it, e.g. "
                               "iconv -f latin1 -t utf-8");
        i += len;
    }
    return text;
}

// A folder's text files: no extension (fortune's files) or .txt, regular, not hidden.
std::vector<std::string> textFilesIn(const std::string& folder) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const fs::path& p = entry.path();
        const std::string name = p.filename().string();
        if (name.empty() || name[0] == '.' || entry.is_symlink() || !entry.is_regular_file())
            continue;
        if (p.extension().empty() || p.extension() == ".txt")
            files.push_back(p.string());
    }
    if (ec)
        throw DatasetError(folder, -1, "cannot be listed: " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty())
        throw DatasetError(folder, -1,
                           "holds no text files (names without an extension or ending in .txt)");
    return files;
}

} // namespace

std::size_t utf8Length(const std::string& s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    std::size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (std::size_t k = 1; k < len; ++k) {
        if ((byte(i + k) & 0xc0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3fu);
    }
    const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
    return overlong || surrogate || cp > 0x10ffff ? 0 : len;
}

std::string byteTokenName(int b) {
    if (b >= 0x20 && b < 0x7f)
        return std::string(1, static_cast<char>(b));
    if (b == '\n')
        return "\n";
    if (b == '\t')
        return "\t";
    static const char* kHex = "0123456789abcdef";
    return std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
}

std::shared_ptr<const TextCorpus> readTextCorpus(const std::string& root,
                                                 const std::string& vocabulary) {
    if (vocabulary != "char" && vocabulary != "byte")
        throw ConfigError("data.vocabulary",
                          "must be char or byte, got " + quoteUserData(vocabulary));
    auto corpus = std::make_shared<TextCorpus>();
    corpus->byteLevel = vocabulary == "byte";
    std::error_code ec;
    corpus->files = fs::is_directory(root, ec) ? textFilesIn(root) : std::vector{root};
    std::string text;
    for (const std::string& file : corpus->files)
        text += readText(file);
    if (corpus->byteLevel) {
        for (int b = 0; b < 256; ++b)
            corpus->tokens.push_back(byteTokenName(b));
        corpus->ids.reserve(text.size());
        for (const char c : text)
            corpus->ids.push_back(static_cast<unsigned char>(c));
        return corpus;
    }
    // Characters as their UTF-8 strings; byte order of UTF-8 is code-point order.
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    std::set<std::string> distinct;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8Length(text, i);
        spans.emplace_back(i, len);
        distinct.insert(text.substr(i, len));
        i += len;
    }
    corpus->tokens.assign(distinct.begin(), distinct.end());
    std::map<std::string, int32_t> idOf;
    for (std::size_t k = 0; k < corpus->tokens.size(); ++k)
        idOf[corpus->tokens[k]] = static_cast<int32_t>(k);
    corpus->ids.reserve(spans.size());
    for (const auto& [at, len] : spans)
        corpus->ids.push_back(idOf[text.substr(at, len)]);
    return corpus;
}

std::string decodeTokens(const std::vector<std::string>& vocabulary, bool byteLevel,
                         const std::vector<int32_t>& ids) {
    std::string out;
    for (const int32_t id : ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= vocabulary.size())
            continue;
        if (byteLevel)
            out += static_cast<char>(id);
        else
            out += vocabulary[static_cast<std::size_t>(id)];
    }
    if (!byteLevel)
        return out;
    std::string valid;
    for (std::size_t i = 0; i < out.size();) {
        const std::size_t len = utf8Length(out, i);
        valid += len == 0 ? std::string("\xef\xbf\xbd") : out.substr(i, len);
        i += len == 0 ? 1 : len;
    }
    return valid;
}

TextDataset::TextDataset(std::shared_ptr<const TextCorpus> corpus, int64_t begin, int64_t end,
                         int blockSize, bool random, std::string description)
    : m_corpus(std::move(corpus)), m_begin(begin), m_end(end), m_blockSize(blockSize),
      m_random(random), m_samples((end - begin - 1) / blockSize),
      m_description(std::move(description)) {}

int64_t TextDataset::windowStart(int64_t index, uint64_t seed) const {
    if (!m_random)
        return m_begin + index * m_blockSize;
    // Any window whose targets stay in the split: [begin, end - blockSize - 1].
    const auto span = static_cast<uint64_t>(m_end - m_begin - m_blockSize);
    return m_begin + static_cast<int64_t>(math::mix64(seed, 0x7e47ull) % span);
}

// The token after sample index's window, the training split's drawn from the index alone.
int32_t TextDataset::label(int64_t index) const {
    const int64_t start = windowStart(index, static_cast<uint64_t>(index));
    return m_corpus->ids[static_cast<std::size_t>(start + m_blockSize)];
}

int32_t TextDataset::get(int64_t index, float* out, uint64_t seed) const {
    const int64_t start = windowStart(index, seed);
    for (int64_t i = 0; i < m_blockSize; ++i)
        out[i] = static_cast<float>(m_corpus->ids[static_cast<std::size_t>(start + i)]);
    return m_corpus->ids[static_cast<std::size_t>(start + m_blockSize)];
}

void TextDataset::sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const {
    const int64_t start = windowStart(index, seed);
    const int32_t* ids = m_corpus->ids.data() + start;
    for (int64_t i = 0; i < m_blockSize; ++i) {
        out[i] = static_cast<float>(ids[i]);
        targets[i] = ids[i + 1];
    }
}

RawSplits openTextSplits(const DataConfig& config, uint64_t) {
    if (config.blockSize < kMinBlockSize || config.blockSize > kMaxBlockSize)
        throw ConfigError("data.block_size", "must be between " + std::to_string(kMinBlockSize) +
                                                 " and " + std::to_string(kMaxBlockSize));
    const std::string root = config.root.empty() ? defaultDatasetRoot(config.name) : config.root;
    auto corpus = readTextCorpus(root, config.vocabulary);
    // The held-out tail: validation reads text the model never trained on, as nanoGPT's split.
    const auto total = static_cast<int64_t>(corpus->ids.size());
    const int64_t valTokens =
        std::llround(static_cast<double>(total) * std::max(config.valFraction, 0.0));
    const int64_t split = total - valTokens;
    const int64_t window = config.blockSize + 1;
    const std::string unit = corpus->byteLevel ? "bytes" : "characters";
    const auto tooShort = [&](const char* part, int64_t tokens) {
        return DatasetError(
            root, -1,
            std::string("its ") + part + " holds " + std::to_string(tokens) + " " + unit +
                ", fewer than one window of data.block_size + 1 = " + std::to_string(window) +
                ": give more text, a smaller block_size or another "
                "data.val_fraction");
    };
    if (split < window)
        throw tooShort("training part", split);
    if (valTokens < window)
        throw tooShort("validation tail", valTokens);
    RawSplits s;
    fs::path rootPath(root);
    if (rootPath.filename().empty()) // "folder/"
        rootPath = rootPath.parent_path();
    const std::string name = rootPath.filename().string();
    s.train = std::make_shared<TextDataset>(corpus, 0, split, config.blockSize, true,
                                            "text " + name + " train (" + std::to_string(split) +
                                                " " + unit + ")");
    s.validation = std::make_shared<TextDataset>(corpus, split, total, config.blockSize, false,
                                                 "text " + name + " validation (" +
                                                     std::to_string(valTokens) + " " + unit + ")");
    return s;
}

} // namespace tb
