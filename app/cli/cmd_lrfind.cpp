// trainbench-cli lr-find: the learning-rate range test on a set-up (the defaults, --config,
// --set); prints the loss against the lr and the suggested lr as the last line.
#include "args.h"
#include "commands.h"
#include "configargs.h"

#include "core/errors.h"
#include "experiments/lrfinder.h"
#include "store/runstore.h"
#include "train/runconfig.h"

#include <cstdio>
#include <cstdlib>

namespace tb::cli {

namespace {

double positive(const Args& args, const std::string& name, double fallback) {
    const auto v = args.value(name);
    if (!v)
        return fallback;
    char* end = nullptr;
    const double x = std::strtod(v->c_str(), &end);
    if (end == v->c_str() || *end != '\0' || !(x > 0) || x > 100)
        throw ConfigError("--" + name, "'" + *v + "' must be a number above 0, at most 100");
    return x;
}

} // namespace

int cmdLrFind(const Argv& argv) {
    const Args args(argv, specOf("lr-find"));
    if (args.flag("help")) {
        std::puts(
            "usage: trainbench-cli lr-find [--config FILE] [--set KEY=VALUE]... [--steps N]\n"
            "                              [--min-lr X] [--max-lr Y] [--db PATH | --no-db] "
            "[--json]\n\n"
            "The learning-rate range test (Smith 2017, fastai's lr_find): trains the set-up for\n"
            "up to N steps (default 200) with the lr rising exponentially from X (1e-7) to Y\n"
            "(10), stops once the smoothed loss passes 4x its best, and suggests the lr where the\n"
            "smoothed loss falls fastest against log lr. The suggestion is the last line.");
        return 0;
    }
    RunConfig base;
    applyConfigArgs(args, base);
    LrFinderOptions o;
    if (const auto steps = args.intValue("steps", 10, 100000))
        o.steps = static_cast<int>(*steps);
    o.minLr = positive(args, "min-lr", o.minLr);
    o.maxLr = positive(args, "max-lr", o.maxLr);
    if (!(o.minLr < o.maxLr))
        throw ConfigError("--min-lr", "must be below --max-lr");
    RunSessionOptions session;
    if (!args.flag("no-db"))
        session.databasePath = args.valueOr("db", defaultDatabasePath());
    const LrFinderResult r = findLearningRate(base, o, session);
    if (args.flag("json")) {
        nlohmann::json out{
            {"run_id", r.runId},
            {"lr", r.lr},
            {"loss", r.loss},
            {"smoothed_loss", r.smoothed},
            {"diverged", r.diverged},
            {"method", r.method},
            {"suggested_lr", r.suggested ? nlohmann::json(*r.suggested) : nlohmann::json(nullptr)}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("%12s %10s %10s\n", "lr", "loss", "smoothed");
        // Every step is in the run store (and --json); a screenful here.
        const std::size_t every = std::max<std::size_t>(r.lr.size() / 40, 1);
        for (std::size_t i = 0; i < r.lr.size(); i += every)
            std::printf("%12.3g %10.4f %10.4f\n", r.lr[i], r.loss[i], r.smoothed[i]);
        if (r.suggested)
            std::printf("suggested lr: %.3g (%s)\n", *r.suggested, r.method.c_str());
        else
            std::printf("no suggestion: %s\n", r.method.c_str());
    }
    return r.suggested ? 0 : 1;
}

} // namespace tb::cli
