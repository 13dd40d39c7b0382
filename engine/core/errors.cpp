// Out-of-line parts of the typed errors.
#include "core/errors.h"

#include <cmath>
#include <cstdio>

namespace tb {

std::string formatBytes(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

std::string quoteUserData(std::string_view text) {
    if (text.size() <= kMaxQuotedChars)
        return "'" + std::string(text) + "'";
    std::size_t cut = kMaxQuotedChars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // text[cut] continues a UTF-8 sequence: cut before the sequence starts
    return "'" + std::string(text.substr(0, cut)) + "...' (" + std::to_string(text.size()) +
           " bytes)";
}

OutOfMemoryError::OutOfMemoryError(const std::string& device, uint64_t requested,
                                   uint64_t freeBytes, uint64_t totalBytes,
                                   const std::string& advice)
    : Error("out of memory on " + device + ": asked for " + formatBytes(requested) + " with " +
            formatBytes(freeBytes) + " free of " + formatBytes(totalBytes) + ". " + advice),
      m_requested(requested), m_free(freeBytes), m_total(totalBytes), m_advice(advice) {}

OutOfMemoryError OutOfMemoryError::estimated(const std::string& device, uint64_t requested,
                                             const std::string& need, uint64_t freeBytes,
                                             uint64_t totalBytes, const std::string& advice) {
    return OutOfMemoryError(Message{"out of memory on " + device + ": " + need +
                                    ", more than the " + formatBytes(freeBytes) + " available of " +
                                    formatBytes(totalBytes) + ". " + advice},
                            requested, freeBytes, totalBytes, advice);
}

namespace {

// "NaN", "inf" or "-inf" (std::to_string gives "-nan" for some NaNs), else the number.
std::string lossText(double loss) {
    if (std::isnan(loss))
        return "NaN";
    if (std::isinf(loss))
        return loss > 0 ? "inf" : "-inf";
    return std::to_string(loss);
}

} // namespace

NonFiniteLossError::NonFiniteLossError(int64_t step, double loss, const std::string& advice)
    : Error("the training loss is " + lossText(loss) + " at step " + std::to_string(step) +
            ": the run diverged. " + advice),
      m_step(step), m_loss(loss), m_advice(advice) {}

} // namespace tb
