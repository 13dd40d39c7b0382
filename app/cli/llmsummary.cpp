#include "llmsummary.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "train/llmmemory.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tb::cli {

namespace {

double parseCount(const std::string& text, const std::string& field) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    double scale = 1.0;
    if (end && (*end == 'B' || *end == 'b' || *end == 'G' || *end == 'g'))
        scale = 1e9, ++end;
    else if (end && (*end == 'M' || *end == 'm'))
        scale = 1e6, ++end;
    if (end == text.c_str() || (end && *end != '\0') || !(v > 0))
        throw ConfigError(field, "'" + text + "' is not a parameter count (7e9, 7B, 124M)");
    return v * scale;
}

} // namespace

bool wantsLlmMemory(const Args& args) {
    return args.value("params") || args.value("preset");
}

int printLlmMemory(const Args& args) {
    LlmMemoryQuery q;
    if (const auto preset = args.value("preset"))
        q.model = transformerPreset(*preset, "--preset");
    if (const auto params = args.value("params")) {
        const double n = parseCount(*params, "--params");
        if (!args.value("preset"))
            q.model = transformerOfParams(n);
        q.model.params = n;
    }
    const auto set = [&](const char* key, int64_t& field) {
        if (const auto v = args.intValue(key, 1))
            field = *v;
    };
    set("layers", q.model.layers);
    set("width", q.model.width);
    set("heads", q.model.heads);
    set("vocab", q.model.vocab);
    set("context", q.context);
    if (!args.value("params") && (args.value("layers") || args.value("width")))
        q.model.params =
            gptParameterCount(q.model.layers, q.model.width, q.model.context, q.model.vocab);
    q.training = args.flag("training");
    q.precision = args.valueOr("precision", q.training ? "bf16-mixed" : "bf16-true");
    q.optimizer = args.valueOr("optimizer", "adamw");
    q.batch = args.intValue("batch", 1).value_or(1);
    q.accumulation = static_cast<int>(args.intValue("accumulate", 1, 1 << 20).value_or(1));
    q.checkpointing = args.flag("checkpointing");
    q.attention = args.valueOr("attention", q.attention);
    const LlmMemoryEstimate e = estimateLlmMemory(q);
    if (args.flag("json")) {
        std::printf("%s\n", toJson(q, e).dump(2).c_str());
        return 0;
    }
    const TransformerShape& m = q.model;
    std::printf("%s: %s parameters, %lld layers, width %lld, %lld heads, context %lld, vocabulary "
                "%lld\n",
                m.name.c_str(), formatParameterCount(m.params).c_str(),
                static_cast<long long>(m.layers), static_cast<long long>(m.width),
                static_cast<long long>(m.heads),
                static_cast<long long>(q.context > 0 ? q.context : m.context),
                static_cast<long long>(m.vocab));
    std::printf("%s at %s, batch %lld, %s attention%s\n\n",
                q.training ? ("training with " + q.optimizer).c_str() : "inference",
                q.precision.c_str(), static_cast<long long>(q.batch),
                q.attention == "flash" ? "fused (flash)" : "eager",
                q.checkpointing ? ", activation checkpointing" : "");
    const std::pair<const char*, int64_t> parts[] = {{"weights", e.weights},
                                                     {"gradients", e.gradients},
                                                     {"optimizer state", e.optimizerState},
                                                     {"activations", e.activations},
                                                     {"logits", e.logits},
                                                     {"KV cache", e.kvCache},
                                                     {"runtime", e.runtime}};
    for (const auto& [name, bytes] : parts)
        if (bytes > 0)
            std::printf("  %-16s %10s\n", name,
                        formatGigabytes(static_cast<double>(bytes)).c_str());
    std::printf("  %-16s %10s\n\n", "total",
                formatGigabytes(static_cast<double>(e.total())).c_str());
    for (const std::string& line : e.working)
        std::printf("- %s\n", line.c_str());
    std::vector<std::string> fits, tooSmall;
    for (const GpuMemory& g : commonGpus())
        (e.total() <= g.bytes ? fits : tooSmall).push_back(g.name);
    std::printf("\nfits on one: %s\n",
                fits.empty() ? "none of the common GPUs" : joined(fits, ", ").c_str());
    if (!tooSmall.empty())
        std::printf("too large for: %s\n", joined(tooSmall, ", ").c_str());
    std::printf("(GB: 10^9 bytes, as GPU makers count)\n");
    return 0;
}

} // namespace tb::cli
