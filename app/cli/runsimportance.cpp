// runs importance: the runs named or tagged, parameterImportance over them, one row per key.
#include "runsimportance.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "experiments/parameterimportance.h"
#include "store/runstore.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <set>

namespace tb::cli {

int showImportance(RunStore& store, const Args& args) {
    const auto metric = args.value("metric");
    const auto tag = args.value("tag");
    if (!metric || (args.positional().size() < 2 && !tag))
        throw ConfigError("runs importance",
                          "usage: runs importance [ID...] [--tag T] --metric M [--keys K,K] "
                          "[--seed N] [--json]");
    std::vector<RunRecord> runs;
    std::set<std::string> seen;
    for (std::size_t i = 1; i < args.positional().size(); ++i) {
        RunRecord run = store.getRun(args.positional()[i]);
        if (seen.insert(run.id).second)
            runs.push_back(std::move(run));
    }
    if (tag) {
        RunFilter filter;
        filter.tag = *tag;
        for (RunRecord& run : store.listRuns(filter))
            if (seen.insert(run.id).second)
                runs.push_back(std::move(run));
    }
    const auto seed = static_cast<uint64_t>(args.intValue("seed", 0, 1 << 30).value_or(0));
    const ImportanceReport report =
        parameterImportance(runs, *metric, splitCommaList(args.valueOr("keys", "")), seed);

    if (args.flag("json")) {
        nlohmann::json keys = nlohmann::json::array();
        for (const KeyImportance& k : report.keys)
            keys.push_back(
                {{"key", k.key},
                 {"importance", k.importance},
                 {"mse_increase", k.mseIncrease},
                 {"correlation", k.correlation ? nlohmann::json(*k.correlation) : nlohmann::json()},
                 {"categorical", k.categorical},
                 {"distinct_values", k.distinctValues}});
        std::printf("%s\n", nlohmann::json{{"metric", report.metric},
                                           {"runs", report.runs},
                                           {"minimum_runs", ImportanceReport::kMinimumRuns},
                                           {"enough_runs", report.enoughRuns()},
                                           {"out_of_bag_r2", report.outOfBagR2},
                                           {"seed", seed},
                                           {"keys", keys}}
                                .dump()
                                .c_str());
        return 0;
    }
    if (!report.enoughRuns()) {
        std::printf("not enough runs: %d of the %zu runs recorded %s; importance needs at least "
                    "%d\n",
                    report.runs, runs.size(), report.metric.c_str(),
                    ImportanceReport::kMinimumRuns);
        return 0;
    }
    std::printf("%s over %d runs (random forest of dlib, seed %llu; it explains %.0f%% of the "
                "metric's variance out of bag)\n",
                report.metric.c_str(), report.runs, static_cast<unsigned long long>(seed),
                100.0 * report.outOfBagR2);
    std::printf("  %-28s %10s %12s\n", "key", "importance", "correlation");
    for (const KeyImportance& k : report.keys)
        std::printf("  %-28s %9.1f%% %12s\n", k.key.c_str(), 100.0 * k.importance,
                    k.correlation   ? formatString("%+.2f", *k.correlation).c_str()
                    : k.categorical ? "(categories)"
                                    : "-");
    return 0;
}

} // namespace tb::cli
