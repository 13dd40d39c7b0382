// TextGenerator.
#include "train/textgenerator.h"

#include "backend/devices.h"
#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "data/textdataset.h"
#include "nn/modelzoo.h"
#include "train/checkpointer.h"
#include "train/runconfig.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tb {

TextGenerator::TextGenerator(Graph& graph, std::vector<std::string> tokens, bool byteLevel)
    : m_graph(graph), m_tokens(std::move(tokens)), m_byteLevel(byteLevel) {
    if (graph.inputShape().rank() != 1 || graph.positions() != graph.inputShape()[0])
        throw ConfigError("checkpoint", "the model is not a language model: it reads samples of "
                                        "shape " +
                                            graph.inputShape().toString());
    if (static_cast<std::size_t>(graph.classes()) != m_tokens.size())
        throw ConfigError("checkpoint", "the model predicts " + std::to_string(graph.classes()) +
                                            " tokens but its vocabulary has " +
                                            std::to_string(m_tokens.size()));
    m_input = Tensor::host({1, blockSize()}, DType::F32);
    m_logits = Tensor::host({1, blockSize(), graph.classes()}, DType::F32);
}

std::unique_ptr<TextGenerator> TextGenerator::fromCheckpoint(const std::string& path,
                                                             const Device& device, int threads) {
    const RunConfig config = Checkpointer::configOf(path);
    const Checkpointer::Vocabulary vocabulary = Checkpointer::vocabularyOf(path);
    if (config.data.name != "text" || vocabulary.tokens.empty())
        throw ConfigError("checkpoint", path + " is a model of " + config.data.name +
                                            ", not a language model trained on text");
    auto backend = createBackend(device, threads);
    const auto classes = static_cast<int>(vocabulary.tokens.size());
    auto graph = std::make_unique<Graph>(
        modelSpec(config.model, Shape{config.data.blockSize}, classes, config.modelOptions),
        *backend, DType::F32, config.seed);
    Checkpointer::loadWeights(path, *graph);
    auto generator =
        std::make_unique<TextGenerator>(*graph, vocabulary.tokens, vocabulary.byteLevel);
    generator->m_ownedBackend = std::move(backend);
    generator->m_owned = std::move(graph);
    return generator;
}

std::vector<int32_t> TextGenerator::encode(const std::string& text) const {
    std::vector<int32_t> ids;
    if (m_byteLevel) {
        for (const char c : text)
            ids.push_back(static_cast<unsigned char>(c));
        return ids;
    }
    std::map<std::string, int32_t> idOf;
    for (std::size_t i = 0; i < m_tokens.size(); ++i)
        idOf[m_tokens[i]] = static_cast<int32_t>(i);
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8Length(text, i);
        if (len == 0)
            throw ConfigError("--prompt",
                              "is not UTF-8 text (an invalid byte at " + std::to_string(i) + ")");
        const std::string ch = text.substr(i, len);
        const auto it = idOf.find(ch);
        if (it == idOf.end())
            throw ConfigError("--prompt", quoteUserData(ch) + " (at byte " + std::to_string(i) +
                                              ") is not in the model's vocabulary of " +
                                              std::to_string(m_tokens.size()) + " characters");
        ids.push_back(it->second);
        i += len;
    }
    return ids;
}

std::string TextGenerator::decode(const std::vector<int32_t>& ids) const {
    return decodeTokens(m_tokens, m_byteLevel, ids);
}

int32_t TextGenerator::sampleNext(const std::vector<int32_t>& context,
                                  const GenerateOptions& options, uint64_t draw) {
    const int64_t block = blockSize();
    const auto used = std::min<int64_t>(static_cast<int64_t>(context.size()), block);
    const auto first = context.end() - used;
    float* x = m_input.data<float>();
    std::fill(x, x + block, 0.0f);
    std::transform(first, context.end(), x, [](int32_t id) { return static_cast<float>(id); });
    Backend& b = m_graph.backend();
    const Tensor* input = &m_input;
    if (b.device() != m_input.device()) {
        if (!m_deviceInput.defined())
            m_deviceInput = b.empty(m_input.shape(), DType::F32);
        b.copy(m_input, m_deviceInput);
        input = &m_deviceInput;
    }
    const Tensor& logits = m_graph.forward(*input, false);
    Tensor f32 = logits;
    if (logits.dtype() != DType::F32) {
        f32 = b.empty(logits.shape(), DType::F32);
        b.cast(logits, f32);
    }
    b.copy(f32, m_logits);
    const int classes = m_graph.classes();
    const float* row = m_logits.data<float>() + (used - 1) * classes;
    if (options.temperature == 0.0f) // greedy: the first of the most likely, as argmax
        return static_cast<int32_t>(std::max_element(row, row + classes) - row);
    std::vector<double> p(static_cast<std::size_t>(classes));
    for (int k = 0; k < classes; ++k)
        p[static_cast<std::size_t>(k)] = row[k] / options.temperature;
    if (options.topK > 0 && options.topK < classes) {
        std::vector<double> sorted = p;
        std::nth_element(sorted.begin(), sorted.begin() + (options.topK - 1), sorted.end(),
                         std::greater<>());
        const double kth = sorted[static_cast<std::size_t>(options.topK - 1)];
        for (double& v : p)
            if (v < kth)
                v = -INFINITY;
    }
    const double top = *std::max_element(p.begin(), p.end());
    double sum = 0.0;
    for (double& v : p) {
        v = std::exp(v - top);
        sum += v;
    }
    double u = static_cast<double>(math::uniform01(options.seed, draw)) * sum;
    for (int k = 0; k < classes; ++k) {
        u -= p[static_cast<std::size_t>(k)];
        if (u < 0.0)
            return k;
    }
    return static_cast<int32_t>(std::max_element(p.begin(), p.end()) - p.begin());
}

std::string TextGenerator::generate(const GenerateOptions& options) {
    if (!(options.temperature >= 0.0f))
        throw ConfigError("--temperature", "must be 0 (greedy: the most likely token) or above");
    std::vector<int32_t> ids = encode(options.prompt);
    if (ids.empty())
        ids.push_back(0);
    const std::size_t start = options.prompt.empty() ? 1 : ids.size();
    for (int i = 0; i < options.tokens; ++i)
        ids.push_back(sampleNext(ids, options, static_cast<uint64_t>(i)));
    // An empty prompt's seed token is not the model's output.
    return options.prompt + decode(std::vector<int32_t>(
                                ids.begin() + static_cast<std::ptrdiff_t>(start), ids.end()));
}

} // namespace tb
