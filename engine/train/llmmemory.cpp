#include "train/llmmemory.h"

#include "core/errors.h"
#include "core/textformat.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

struct PrecisionBytes {
    double weight;     // per parameter, as held in memory
    double activation; // per activation element
    double optimizer;  // per optimizer moment (the parameters' dtype, as PyTorch keeps them)
};

PrecisionBytes bytesOf(const std::string& precision, bool training) {
    if (precision == "32-true" || precision == "32")
        return {4, 4, 4};
    if (precision == "16-mixed" || precision == "bf16-mixed")
        return {4, 2, 4}; // f32 weights, autocast's 16-bit activations
    if (precision == "16-true" || precision == "bf16-true")
        return {2, 2, 2};
    if (precision == "int8" || precision == "int4") {
        if (training)
            throw ConfigError("precision", precision +
                                               " quantises the weights for inference; training "
                                               "needs 32-true, 16-mixed, bf16-mixed, 16-true or "
                                               "bf16-true");
        return {precision == "int8" ? 1.0 : 0.5, 2, 0};
    }
    throw ConfigError("precision", "'" + precision +
                                       "' is not one of 32-true, 16-mixed, bf16-mixed, 16-true, "
                                       "bf16-true, int8, int4");
}

int momentsOf(const std::string& optimizer) {
    if (optimizer == "adamw")
        return 2;
    if (optimizer == "sgd")
        return 1;
    if (optimizer == "sgd-plain")
        return 0;
    throw ConfigError("optimizer", "'" + optimizer + "' is not adamw, sgd or sgd-plain");
}

} // namespace

const std::vector<TransformerShape>& transformerPresets() {
    static const std::vector<TransformerShape> presets = {
        {"shakespeare-char", 10.65e6, 6, 384, 6, 0, 256, 65},
        {"gpt2", 124e6, 12, 768, 12, 0, 1024, 50257},
        {"gpt2-medium", 350e6, 24, 1024, 16, 0, 1024, 50257},
        {"gpt2-large", 774e6, 36, 1280, 20, 0, 1024, 50257},
        {"gpt2-xl", 1558e6, 48, 1600, 25, 0, 1024, 50257},
        {"llama-7b", 6.74e9, 32, 4096, 32, 0, 4096, 32000},
        {"llama-13b", 13.0e9, 40, 5120, 40, 0, 4096, 32000},
        {"llama-70b", 69.0e9, 80, 8192, 64, 8, 4096, 32000},
    };
    return presets;
}

TransformerShape transformerPreset(const std::string& name, const std::string& field) {
    std::string names;
    for (const TransformerShape& p : transformerPresets()) {
        if (p.name == name)
            return p;
        names += (names.empty() ? "" : ", ") + p.name;
    }
    throw ConfigError(field, "'" + name + "' is not a known model: " + names);
}

double gptParameterCount(int64_t layers, int64_t width, int64_t context, int64_t vocab) {
    const auto d = static_cast<double>(width);
    return 12.0 * static_cast<double>(layers) * d * d + static_cast<double>(vocab) * d +
           static_cast<double>(context) * d;
}

TransformerShape transformerOfParams(double params) {
    if (!(params >= 1e3))
        throw ConfigError("params", "a model has at least a thousand parameters");
    const std::vector<TransformerShape>& presets = transformerPresets();
    const TransformerShape* nearest = &presets.front();
    for (const TransformerShape& p : presets)
        if (std::abs(std::log(p.params / params)) < std::abs(std::log(nearest->params / params)))
            nearest = &p;
    TransformerShape s = *nearest;
    const double scale = std::cbrt(params / nearest->params);
    s.name = "custom";
    s.params = params;
    s.layers = std::max<int64_t>(1, std::llround(static_cast<double>(nearest->layers) * scale));
    s.width = std::max<int64_t>(
        64, std::llround(static_cast<double>(nearest->width) * scale / 64.0) * 64);
    const int64_t headWidth = nearest->width / nearest->heads;
    s.heads = std::max<int64_t>(1, s.width / headWidth);
    s.kvHeads = nearest->kvHeads == 0 ? 0 : std::max<int64_t>(1, s.heads / 8);
    return s;
}

LlmMemoryEstimate estimateLlmMemory(const LlmMemoryQuery& q) {
    const TransformerShape& m = q.model;
    if (!(m.params > 0) || m.layers < 1 || m.width < 1 || m.heads < 1 || m.vocab < 1)
        throw ConfigError("model", "the shape needs parameters, layers, width, heads and a "
                                   "vocabulary");
    if (q.batch < 1)
        throw ConfigError("batch", "at least one sequence");
    if (q.accumulation < 1)
        throw ConfigError("accumulate", "at least one micro-batch a step");
    if (q.attention != "flash" && q.attention != "eager")
        throw ConfigError("attention", "'" + q.attention +
                                           "' is not flash (a fused kernel, PyTorch 2's default) "
                                           "or eager (the scores stored)");
    const PrecisionBytes bytes = bytesOf(q.precision, q.training);
    const int64_t s = q.context > 0 ? q.context : m.context;
    if (s < 1)
        throw ConfigError("context", "at least one token");
    const auto b = static_cast<double>(q.batch), h = static_cast<double>(m.width),
               a = static_cast<double>(m.heads), L = static_cast<double>(m.layers),
               ctx = static_cast<double>(s), V = static_cast<double>(m.vocab);
    LlmMemoryEstimate e;
    e.effectiveBatch = q.batch * q.accumulation;
    e.weights = std::llround(m.params * bytes.weight);
    e.working.push_back("weights: " + formatParameterCount(m.params) + " parameters x " +
                        formatString("%g", bytes.weight) + " bytes (" + q.precision +
                        ") = " + formatGigabytes(static_cast<double>(e.weights)));
    // What the activations of one layer hold for backward (Korthikanti et al.): 34*s*b*h bytes
    // at 16-bit for the linear layers, norms, GELU and dropout masks; with eager attention
    // 5*a*s^2*b more for the scores, their softmax and its dropout mask; with a fused kernel
    // only a*s*b f32 log-sum-exps (backward recomputes the scores block by block).
    const bool eager = q.attention == "eager";
    const double activationScale = bytes.activation / 2.0;
    const double scoresAt16 = eager ? 5.0 * a * ctx * ctx * b : 0.0;
    const double rowStats = eager ? 0.0 : 4.0 * a * ctx * b;
    const double layerBytes = (34.0 * ctx * b * h + scoresAt16) * activationScale + rowStats;
    if (q.training) {
        e.gradients = e.weights;
        e.working.push_back("gradients: one per parameter, as the weights: " +
                            formatGigabytes(static_cast<double>(e.gradients)));
        const int moments = momentsOf(q.optimizer);
        e.optimizerState = std::llround(m.params * moments * bytes.optimizer);
        e.working.push_back(
            q.optimizer + ": " + std::to_string(moments) + " moment(s) per parameter x " +
            formatString("%g", bytes.optimizer) +
            " bytes = " + formatGigabytes(static_cast<double>(e.optimizerState)) +
            (moments == 2 ? " (AdamW's running mean and variance of each gradient)" : ""));
        if (q.checkpointing) {
            // Each layer's input kept; one layer's activations recomputed at a time.
            e.activations = std::llround(2.0 * ctx * b * h * L * activationScale + layerBytes);
            e.working.push_back(formatString("activations, checkpointed: each of %lld layers "
                                             "keeps its input (2*s*b*h bytes) and one layer is "
                                             "recomputed at a time: ",
                                             static_cast<long long>(m.layers)) +
                                formatGigabytes(static_cast<double>(e.activations)));
        } else if (eager) {
            e.activations = std::llround(layerBytes * L);
            e.working.push_back(
                formatString("activations, eager attention: %lld layers x s*b*h*(34 + 5*a*s/h) "
                             "bytes at 16-bit, s=%lld b=%lld h=%lld a=%lld: ",
                             static_cast<long long>(m.layers), static_cast<long long>(s),
                             static_cast<long long>(q.batch), static_cast<long long>(m.width),
                             static_cast<long long>(m.heads)) +
                formatGigabytes(static_cast<double>(e.activations)) +
                formatString(" (the attention scores, growing with s^2, are %.0f%% of it; a "
                             "fused kernel would not store them)",
                             100.0 * 5.0 * a * ctx / h / (34.0 + 5.0 * a * ctx / h)));
        } else {
            e.activations = std::llround(layerBytes * L);
            e.working.push_back(
                formatString("activations, fused (flash) attention: %lld layers x (s*b*h*34 "
                             "bytes at 16-bit + a*s*b f32 log-sum-exps), s=%lld b=%lld h=%lld "
                             "a=%lld: ",
                             static_cast<long long>(m.layers), static_cast<long long>(s),
                             static_cast<long long>(q.batch), static_cast<long long>(m.width),
                             static_cast<long long>(m.heads)) +
                formatGigabytes(static_cast<double>(e.activations)) +
                " (the s^2 score matrices are never stored: backward recomputes them)");
        }
        e.logits = std::llround(b * ctx * V * (bytes.activation + 4.0));
        e.working.push_back("logits: b*s*vocab in the activation dtype and the loss's f32 copy: " +
                            formatGigabytes(static_cast<double>(e.logits)));
    } else {
        const double kvHeads = static_cast<double>(m.kvHeads > 0 ? m.kvHeads : m.heads);
        const double kvBytes = bytes.weight >= 4 ? 4.0 : 2.0; // quantised weights keep 16-bit KV
        e.kvCache = std::llround(2.0 * L * b * ctx * h * (kvHeads / a) * kvBytes);
        e.working.push_back(
            formatString("KV cache: keys and values of %lld layers for %lld tokens of %lld "
                         "sequence(s), %g bytes each",
                         static_cast<long long>(m.layers), static_cast<long long>(s),
                         static_cast<long long>(q.batch), kvBytes) +
            (m.kvHeads > 0
                 ? formatString(", %lld of %lld heads (grouped-query attention)",
                                static_cast<long long>(m.kvHeads), static_cast<long long>(m.heads))
                 : std::string()) +
            ": " + formatGigabytes(static_cast<double>(e.kvCache)));
        // Reading the prompt, one layer at a time and nothing kept for backward: q, k, v and
        // the attention output (4*s*b*h), the MLP's hidden layer (4*s*b*h), and with eager
        // attention the scores of every head (a*s^2*b), which a fused kernel never writes out.
        e.activations =
            std::llround(ctx * b * (8.0 * h + (eager ? a * ctx : 0.0)) * bytes.activation);
        e.working.push_back(
            std::string("working activations: one layer's at a time while the prompt is read, ") +
            (eager ? "s*b*(8h + a*s) elements, the attention scores stored (eager): "
                   : "s*b*8h elements, the attention scores never stored (fused): ") +
            formatGigabytes(static_cast<double>(e.activations)));
        e.logits = std::llround(b * V * 4.0);
        e.working.push_back("logits of the next token: " +
                            formatGigabytes(static_cast<double>(e.logits)));
    }
    e.runtime = int64_t{512} << 20;
    e.working.push_back("CUDA context and library workspaces: about 0.5 GB");
    if (q.training && q.accumulation > 1)
        e.working.push_back(formatString("accumulating %d micro-batches: an effective batch of "
                                         "%lld sequences at the memory of %lld",
                                         q.accumulation, static_cast<long long>(e.effectiveBatch),
                                         static_cast<long long>(q.batch)));
    return e;
}

const std::vector<GpuMemory>& commonGpus() {
    static const std::vector<GpuMemory> gpus = {
        {"RTX 4060", 8'000'000'000},   {"RTX 4070", 12'000'000'000},
        {"RTX 4080", 16'000'000'000},  {"RTX 3090 / 4090", 24'000'000'000},
        {"A100 40GB", 40'000'000'000}, {"A100 80GB / H100", 80'000'000'000},
        {"H200", 141'000'000'000},
    };
    return gpus;
}

nlohmann::json toJson(const LlmMemoryQuery& q, const LlmMemoryEstimate& e) {
    nlohmann::json fits = nlohmann::json::array();
    for (const GpuMemory& g : commonGpus())
        fits.push_back({{"gpu", g.name}, {"bytes", g.bytes}, {"fits", e.total() <= g.bytes}});
    const TransformerShape& m = q.model;
    return {{"model",
             {{"name", m.name},
              {"params", m.params},
              {"layers", m.layers},
              {"width", m.width},
              {"heads", m.heads},
              {"kv_heads", m.kvHeads > 0 ? m.kvHeads : m.heads},
              {"context", q.context > 0 ? q.context : m.context},
              {"vocab", m.vocab}}},
            {"use", q.training ? "training" : "inference"},
            {"precision", q.precision},
            {"optimizer", q.training ? nlohmann::json(q.optimizer) : nlohmann::json()},
            {"batch", q.batch},
            {"accumulate", q.accumulation},
            {"effective_batch", e.effectiveBatch},
            {"checkpointing", q.checkpointing},
            {"attention", q.attention},
            {"bytes",
             {{"weights", e.weights},
              {"gradients", e.gradients},
              {"optimizer_state", e.optimizerState},
              {"activations", e.activations},
              {"logits", e.logits},
              {"kv_cache", e.kvCache},
              {"runtime", e.runtime},
              {"total", e.total()}}},
            {"working", e.working},
            {"fits", fits}};
}

std::string formatGigabytes(double bytes) {
    return formatString(bytes >= 1e9 ? "%.1f GB" : "%.2f GB", bytes / 1e9);
}

std::string formatParameterCount(double params) {
    if (params >= 1e9)
        return formatString("%.2fB", params / 1e9);
    if (params >= 1e6)
        return formatString("%.1fM", params / 1e6);
    return formatString("%.0f", params);
}

} // namespace tb
