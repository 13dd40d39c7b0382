// Text for language models: a UTF-8 file or a folder of them, tokenised by character (the
// corpus's distinct characters, in code-point order) or by byte (all 256 values). A sample is
// a window of block_size tokens and its targets, the same window one token later. The
// training split draws a fresh random window for every sample from its seed (nanoGPT's
// get_batch); validation reads its split in consecutive windows, the same every time.
#pragma once

#include "data/dataset.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

// A tokenised corpus and its vocabulary, shared by both splits.
struct TextCorpus {
    std::vector<std::string> files;  // what was read, in order
    std::vector<std::string> tokens; // the vocabulary: each token's text (UTF-8)
    std::vector<int32_t> ids;        // the corpus as token ids
    bool byteLevel = false;
};

// Reads `root` (a file, or a folder's files without an extension or ending in .txt, sorted;
// links, hidden files and anything else such as fortune's .dat indexes skipped) and tokenises
// it. Throws DatasetError naming the file for an unreadable, empty, binary (a NUL byte) or
// non-UTF-8 file, with the byte offset where it stops being text; ConfigError for a vocabulary
// other than "char" or "byte".
std::shared_ptr<const TextCorpus> readTextCorpus(const std::string& root,
                                                 const std::string& vocabulary);

// The length of the UTF-8 sequence starting at s[i] (1 to 4), or 0 where s is not UTF-8 there
// (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
std::size_t utf8Length(const std::string& s, std::size_t i);

// The text a token sequence stands for. Byte-level tokens are joined as bytes, so characters
// split across tokens come back whole; bytes that do not form UTF-8 are shown as U+FFFD.
std::string decodeTokens(const std::vector<std::string>& vocabulary, bool byteLevel,
                         const std::vector<int32_t>& ids);

// The name of byte b as a vocabulary entry: the character for printable ASCII, else "\xNN"
// (JSON and the run store hold UTF-8 only).
std::string byteTokenName(int b);

class TextDataset final : public Dataset {
public:
    // Tokens [begin, end) of the corpus. random: a window at a random offset for every sample
    // (the training split), else consecutive windows.
    TextDataset(std::shared_ptr<const TextCorpus> corpus, int64_t begin, int64_t end, int blockSize,
                bool random, std::string description);

    int64_t size() const override { return m_samples; }
    Shape sampleShape() const override { return {m_blockSize}; }
    int numClasses() const override { return static_cast<int>(m_corpus->tokens.size()); }
    std::vector<std::string> classNames() const override { return m_corpus->tokens; }
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    int64_t targetsPerSample() const override { return m_blockSize; }
    void sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const override;
    std::string description() const override { return m_description; }
    const TextCorpus& corpus() const { return *m_corpus; }

private:
    int64_t windowStart(int64_t index, uint64_t seed) const;

    std::shared_ptr<const TextCorpus> m_corpus;
    int64_t m_begin, m_end;
    int64_t m_blockSize;
    bool m_random;
    int64_t m_samples;
    std::string m_description;
};

} // namespace tb
