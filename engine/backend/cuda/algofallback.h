// Running a cuDNN pass down its algorithm ranking, as PyTorch does: when cuDNN refuses the chosen
// algorithm at run time (not supported for this configuration after all, or its launch failed),
// the next ranked one runs instead and is kept for the shape. Plain C++ (no CUDA types), so the
// fallback is tested without a GPU.
#pragma once

#include "core/errors.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tb::cuda {

// One entry of a ranking: cuDNN's algorithm and math type as ints, and the workspace that
// algorithm needs for the shape (cudnnGet*WorkspaceSize, not the heuristics' estimate).
struct RankedAlgo {
    int algo = 0;
    int mathType = 0;
    std::size_t workspaceBytes = 0;
};

// Runs attempt(ranked[i]) for i = current, current + 1, ... until one runs; `current` then names
// it, so the next call of the same pass starts there. attempt returns why cuDNN refused the
// algorithm, or nullopt when it ran (any other failure it throws). onFallback(from, to, why) is
// called for each step down. Throws tb::Error naming the pass and every refusal when none runs.
template <typename Attempt, typename OnFallback>
void runRanked(const std::vector<RankedAlgo>& ranked, std::size_t& current, const std::string& pass,
               Attempt&& attempt, OnFallback&& onFallback) {
    std::string refusals;
    for (std::size_t i = current; i < ranked.size(); ++i) {
        const std::optional<std::string> why = attempt(ranked[i]);
        if (!why) {
            current = i;
            return;
        }
        refusals += "; algorithm " + std::to_string(ranked[i].algo) + ": " + *why;
        if (i + 1 < ranked.size())
            onFallback(ranked[i], ranked[i + 1], *why);
    }
    current = ranked.size(); // nothing left to try for this shape
    throw Error("cuDNN ran no algorithm for convolution " + pass + " of this shape and dtype" +
                (refusals.empty() ? std::string(" (none was left to try)") : refusals));
}

} // namespace tb::cuda
