// TokenMetrics.
#include "train/tokenmetrics.h"

#include "core/textformat.h"

#include <cmath>
#include <numbers>

namespace tb {

double perplexity(double loss) {
    return std::exp(loss);
}

double bitsPerToken(double loss) {
    return loss / std::numbers::ln2;
}

std::string TokenMetrics::describeLoss(double loss) const {
    return formatString("ppl %.2f, %.3f bits/%s", perplexity(loss), bitsPerToken(loss),
                        unit.c_str());
}

TokenMetrics tokenMetricsOf(const nlohmann::json& config) {
    TokenMetrics m;
    if (!config.is_object() || config.value("dataset", "") != "text")
        return m;
    m.tokensPerSample = config.value("data.block_size", int64_t{0});
    m.unit = config.value("data.vocabulary", "char");
    return m;
}

} // namespace tb
