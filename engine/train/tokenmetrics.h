// What a language model's run reports beside its loss (nats per token): perplexity, bits per
// character (or per byte) and tokens per second, read from the run's config so the CLI, the
// window and stored runs all say the same.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace tb {

struct TokenMetrics {
    int64_t tokensPerSample = 0; // 0: not a language model's run
    std::string unit;            // "char" or "byte"

    bool languageModel() const { return tokensPerSample > 0; }
    double tokensPerSec(double samplesPerSec) const {
        return samplesPerSec * static_cast<double>(tokensPerSample);
    }
    // "ppl 4.48, 2.16 bits/char" for a mean loss in nats per token.
    std::string describeLoss(double loss) const;
};

// From RunConfig::toJson(): a run on dataset=text has data.block_size tokens a sample.
TokenMetrics tokenMetricsOf(const nlohmann::json& config);

double perplexity(double loss);
double bitsPerToken(double loss);

} // namespace tb
