// Text from a trained language model: the prompt tokenised with the model's own vocabulary
// (saved in its checkpoint), then one token at a time sampled from the logits at the last
// position (nanoGPT's generate: temperature, then top-k, then a draw), the context cropped to
// the model's block size. The graph reads a fixed block: a shorter context sits at its start,
// and causal attention keeps the unused positions after it from mattering.
#pragma once

#include "core/device.h"
#include "nn/graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb {

struct GenerateOptions {
    std::string prompt; // may be empty: the sample starts from the first token id
    int tokens = 200;   // new tokens
    // 1 samples the model's distribution as it is, lower sharpens it; 0 is greedy (the most
    // likely token, as llama.cpp, Hugging Face and the OpenAI API read it).
    float temperature = 0.8f;
    int topK = 0; // 0: every token; else only the k most likely
    uint64_t seed = 0;
};

class TextGenerator {
public:
    // A model and its vocabulary: the caller's graph (built for a block of token ids) and
    // tokens[i] the text of id i.
    TextGenerator(Graph& graph, std::vector<std::string> tokens, bool byteLevel);
    // Loads a language model's checkpoint (its config, vocabulary and weights) on a backend of
    // its own for `device` (threads: the CPU's compute threads, 0 = one per core). Throws
    // ConfigError("checkpoint") when the checkpoint is not a language model's.
    static std::unique_ptr<TextGenerator> fromCheckpoint(const std::string& path,
                                                         const Device& device, int threads);

    // The prompt's tokens. Throws ConfigError("--prompt") naming a character the vocabulary
    // lacks.
    std::vector<int32_t> encode(const std::string& text) const;
    std::string decode(const std::vector<int32_t>& ids) const;
    // The prompt followed by the sampled continuation, as text.
    std::string generate(const GenerateOptions& options);
    int64_t blockSize() const { return m_graph.inputShape()[0]; }

private:
    // The next token after `context` (its last blockSize() tokens).
    int32_t sampleNext(const std::vector<int32_t>& context, const GenerateOptions& options,
                       uint64_t draw);

    std::unique_ptr<Backend> m_ownedBackend; // fromCheckpoint's, destroyed after its graph
    std::unique_ptr<Graph> m_owned;
    Graph& m_graph;
    std::vector<std::string> m_tokens;
    bool m_byteLevel;
    Tensor m_input, m_deviceInput, m_logits;
};

} // namespace tb
