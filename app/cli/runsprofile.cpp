#include "runsprofile.h"

#include "core/errors.h"
#include "store/runstore.h"
#include "train/layerprofile.h"
#include "train/profilecomparison.h"

#include <cstdio>
#include <string>

namespace tb::cli {

namespace {

constexpr const char* kProfileUsage = "runs profile ID[@N] [ID[@N]] [--json]";

// "ID" (the newest profile) or "ID@N" (its N-th, from 1), and what it names.
struct ProfileRef {
    std::string runId;
    int index = 0; // 1-based
    int count = 0; // the run's profiles
    ProfileReport report;
};

ProfileRef findProfile(RunStore& store, const std::string& ref) {
    const std::size_t at = ref.rfind('@');
    ProfileRef out;
    out.runId = store.resolveId(ref.substr(0, at)); // names an unknown or ambiguous id
    const std::vector<ProfileReport> profiles = store.profiles(out.runId);
    out.count = static_cast<int>(profiles.size());
    if (profiles.empty())
        throw ConfigError("runs profile", "run " + out.runId +
                                              " has no profile (trainbench-cli profile --from " +
                                              out.runId + " makes one)");
    out.index = out.count;
    if (at != std::string::npos) {
        const std::string n = ref.substr(at + 1);
        try {
            std::size_t used = 0;
            out.index = std::stoi(n, &used);
            if (used != n.size())
                throw std::invalid_argument(n);
        } catch (const std::logic_error&) {
            throw ConfigError("runs profile", "'" + ref + "': after @ comes a profile's number");
        }
        if (out.index < 1 || out.index > out.count)
            throw ConfigError("runs profile", "run " + out.runId + " has " +
                                                  std::to_string(out.count) + " profile(s), not " +
                                                  std::to_string(out.index));
    }
    out.report = profiles[static_cast<std::size_t>(out.index - 1)];
    return out;
}

std::string describe(const ProfileRef& p) {
    return "run " + p.runId + ", profile " + std::to_string(p.index) + " of " +
           std::to_string(p.count);
}

nlohmann::json comparisonJson(const ProfileComparison& c) {
    nlohmann::json rows = nlohmann::json::array();
    for (const ProfileRowChange& r : c.rows)
        rows.push_back({{"name", r.name},
                        {"pass", r.pass},
                        {"ms_a", r.inA ? nlohmann::json(r.msA) : nlohmann::json()},
                        {"ms_b", r.inB ? nlohmann::json(r.msB) : nlohmann::json()},
                        {"ratio", r.ratio() > 0.0 ? nlohmann::json(r.ratio()) : nlohmann::json()},
                        {"bound_a", toString(r.boundA)},
                        {"bound_b", toString(r.boundB)}});
    return {
        {"a", toJson(c.a)}, {"b", toJson(c.b)}, {"summary", comparisonSummary(c)}, {"rows", rows}};
}

} // namespace

int showProfiles(RunStore& store, const Args& args) {
    const std::size_t refs = args.positional().size() - 1;
    if (refs < 1 || refs > 2)
        throw ConfigError("runs profile", std::string("usage: ") + kProfileUsage);
    const ProfileRef a = findProfile(store, args.positional()[1]);
    if (refs == 1) {
        if (args.flag("json")) {
            nlohmann::json out = toJson(a.report);
            out["run_id"] = a.runId;
            out["advice"] = profileAdvice(a.report);
            std::printf("%s\n", out.dump().c_str());
        } else {
            std::printf("%s\n", describe(a).c_str());
            std::fputs(formatProfileTable(a.report).c_str(), stdout);
        }
        return 0;
    }
    const ProfileRef b = findProfile(store, args.positional()[2]);
    const ProfileComparison c = compareProfiles(a.report, b.report);
    if (args.flag("json")) {
        nlohmann::json out = comparisonJson(c);
        out["a"]["run_id"] = a.runId;
        out["b"]["run_id"] = b.runId;
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("A is %s; B is %s\n", describe(a).c_str(), describe(b).c_str());
        std::fputs(formatProfileComparison(c).c_str(), stdout);
    }
    return 0;
}

} // namespace tb::cli
