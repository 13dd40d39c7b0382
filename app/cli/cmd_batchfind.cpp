// trainbench-cli batch-find: the largest batch that trains on the set-up's device (the
// defaults, --config, --set); prints each try and the answer as the last line.
#include "args.h"
#include "commands.h"
#include "configargs.h"

#include "core/errors.h"
#include "experiments/batchfinder.h"
#include "train/runconfig.h"

#include <cstdio>

namespace tb::cli {

int cmdBatchFind(const Argv& argv) {
    const Args args(argv, specOf("batch-find"));
    if (args.flag("help")) {
        std::puts(
            "usage: trainbench-cli batch-find [--config FILE] [--set KEY=VALUE]... [--start N]\n"
            "                                 [--max-batch N] [--steps N] [--memory-limit-mb M]\n"
            "                                 [--json]\n\n"
            "The largest batch_size that trains on the set-up's device: doubling from --start\n"
            "(8) until a batch runs out of memory (or, with --memory-limit-mb, peaks above it;\n"
            "on the CPU this is the way to stay out of swap), then a binary search below it, up\n"
            "to --max-batch (65536). Each try trains --steps (3) steps, not recorded. The answer\n"
            "is the last line.");
        return 0;
    }
    RunConfig base;
    applyConfigArgs(args, base);
    BatchFinderOptions o;
    if (const auto v = args.intValue("start", 1, 1 << 30))
        o.start = *v;
    if (const auto v = args.intValue("max-batch", 1, 1 << 30))
        o.maxBatch = *v;
    if (const auto v = args.intValue("steps", 1, 1000))
        o.steps = static_cast<int>(*v);
    if (const auto v = args.intValue("memory-limit-mb", 1, 1 << 30))
        o.memoryLimitBytes = static_cast<uint64_t>(*v) << 20;
    if (o.start > o.maxBatch)
        throw ConfigError("--start", "must be at most --max-batch");
    const BatchFinderResult r = findLargestBatch(base, o);
    if (args.flag("json")) {
        nlohmann::json tries = nlohmann::json::array();
        for (const BatchTry& t : r.tries)
            tries.push_back({{"batch", t.batch},
                             {"fits", t.fits},
                             {"peak_memory_bytes", t.peakMemoryBytes},
                             {"why", t.why}});
        std::printf("%s\n", nlohmann::json{{"largest_batch", r.largest ? nlohmann::json(*r.largest)
                                                                       : nlohmann::json(nullptr)},
                                           {"tries", tries}}
                                .dump()
                                .c_str());
    } else {
        for (const BatchTry& t : r.tries)
            std::printf("batch %6lld: %s\n", static_cast<long long>(t.batch),
                        t.fits ? ("fits, peak " + formatBytes(t.peakMemoryBytes)).c_str()
                               : ("does not fit: " + t.why).c_str());
        if (r.largest)
            std::printf("largest batch_size that fits: %lld\n", static_cast<long long>(*r.largest));
        else
            std::printf("not even batch_size %lld fits\n", static_cast<long long>(o.start));
    }
    return r.largest ? 0 : 1;
}

} // namespace tb::cli
