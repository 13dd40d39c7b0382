#include "events/profilereport.h"

#include "core/errors.h"

#include <set>

namespace tb {

namespace {

using nlohmann::json;

Bound boundFromString(const std::string& s) {
    for (Bound b : {Bound::Compute, Bound::Memory, Bound::Overhead, Bound::Unknown})
        if (toString(b) == s)
            return b;
    throw Error("profile: bound '" + s + "' is not compute, memory, overhead or unknown");
}

// j[key] as T, or an Error naming the field.
template <typename T> T field(const json& j, const char* key, const char* where) {
    const auto it = j.find(key);
    if (it == j.end())
        throw Error(std::string("profile: ") + where + " has no '" + key + "'");
    try {
        return it->get<T>();
    } catch (const json::exception&) {
        throw Error(std::string("profile: ") + where + "'s '" + key + "' is of the wrong type");
    }
}

} // namespace

std::string toString(Bound bound) {
    switch (bound) {
    case Bound::Compute:
        return "compute";
    case Bound::Memory:
        return "memory";
    case Bound::Overhead:
        return "overhead";
    case Bound::Unknown:
        break;
    }
    return "unknown";
}

json toJson(const ProfileReport& r) {
    json rows = json::array();
    for (const LayerProfile& l : r.rows)
        rows.push_back({{"name", l.name},
                        {"type", l.type},
                        {"pass", l.pass},
                        {"ms", l.ms},
                        {"flops", l.flops},
                        {"bytes", l.bytes},
                        {"intensity", l.intensity},
                        {"gflops", l.gflops},
                        {"gbs", l.gbs},
                        {"roof_fraction", l.roofFraction},
                        {"bound", toString(l.bound)}});
    json spans = json::array();
    for (const ProfileSpan& s : r.spans)
        spans.push_back({s.name, s.pass, s.step, s.startMs, s.durationMs, s.rank});
    return {{"model", r.model},
            {"device", r.device},
            {"precision", r.precision},
            {"batch", r.batch},
            {"first_step", r.firstStep},
            {"steps", r.steps},
            {"step_ms", r.stepMs},
            {"data_wait_ms", r.dataWaitMs},
            {"other_ms", r.otherMs},
            {"roofline",
             {{"peak_gflops", r.roofline.peakGflops},
              {"bandwidth_gbs", r.roofline.bandwidthGBs},
              {"ridge_flop_per_byte", r.roofline.ridge()},
              {"peak_source", r.roofline.peakSource},
              {"bandwidth_source", r.roofline.bandwidthSource}}},
            {"rows", rows},
            {"spans", spans}};
}

ProfileReport profileReportFromJson(const json& j) {
    if (!j.is_object())
        throw Error("profile: not a JSON object");
    ProfileReport r;
    r.model = field<std::string>(j, "model", "the profile");
    r.device = field<std::string>(j, "device", "the profile");
    r.precision = field<std::string>(j, "precision", "the profile");
    r.batch = field<int64_t>(j, "batch", "the profile");
    r.firstStep = field<int64_t>(j, "first_step", "the profile");
    r.steps = field<int>(j, "steps", "the profile");
    r.stepMs = field<double>(j, "step_ms", "the profile");
    r.dataWaitMs = field<double>(j, "data_wait_ms", "the profile");
    r.otherMs = field<double>(j, "other_ms", "the profile");
    const json roof = field<json>(j, "roofline", "the profile");
    r.roofline.peakGflops = field<double>(roof, "peak_gflops", "the roofline");
    r.roofline.bandwidthGBs = field<double>(roof, "bandwidth_gbs", "the roofline");
    r.roofline.peakSource = field<std::string>(roof, "peak_source", "the roofline");
    r.roofline.bandwidthSource = field<std::string>(roof, "bandwidth_source", "the roofline");
    for (const json& row : field<json>(j, "rows", "the profile")) {
        LayerProfile l;
        l.name = field<std::string>(row, "name", "a row");
        l.type = field<std::string>(row, "type", "a row");
        l.pass = field<std::string>(row, "pass", "a row");
        l.ms = field<double>(row, "ms", "a row");
        l.flops = field<int64_t>(row, "flops", "a row");
        l.bytes = field<int64_t>(row, "bytes", "a row");
        l.intensity = field<double>(row, "intensity", "a row");
        l.gflops = field<double>(row, "gflops", "a row");
        l.gbs = field<double>(row, "gbs", "a row");
        l.roofFraction = field<double>(row, "roof_fraction", "a row");
        l.bound = boundFromString(field<std::string>(row, "bound", "a row"));
        r.rows.push_back(std::move(l));
    }
    for (const json& s : field<json>(j, "spans", "the profile")) {
        // Profiles stored before data-parallel ranks were traced have no rank: rank 0's.
        const char* shape =
            "profile: a span is not [name, pass, step, start_ms, duration_ms, rank]";
        if (!s.is_array() || s.size() < 5 || s.size() > 6)
            throw Error(shape);
        try {
            r.spans.push_back({s[0].get<std::string>(), s[1].get<std::string>(), s[2].get<int>(),
                               s[3].get<double>(), s[4].get<double>(),
                               s.size() == 6 ? s[5].get<int>() : 0});
        } catch (const json::exception&) {
            throw Error(shape);
        }
    }
    return r;
}

json chromeTrace(const ProfileReport& r) {
    constexpr int kCompute = 1, kLoader = 2;
    json events = json::array();
    std::set<int> ranks{0};
    for (const ProfileSpan& s : r.spans)
        ranks.insert(s.rank);
    for (int rank : ranks) {
        const auto threadName = [&](int tid, const std::string& name) {
            events.push_back({{"ph", "M"},
                              {"name", "thread_name"},
                              {"pid", rank},
                              {"tid", tid},
                              {"args", {{"name", name}}}});
        };
        events.push_back(
            {{"ph", "M"},
             {"name", "process_name"},
             {"pid", rank},
             {"args", {{"name", "rank " + std::to_string(rank) + " (" + r.device + ")"}}}});
        threadName(kCompute, "compute stream");
        threadName(kLoader, "data loader wait");
    }
    for (const ProfileSpan& s : r.spans)
        events.push_back({{"ph", "X"},
                          {"name", s.name},
                          {"cat", s.pass},
                          {"pid", s.rank},
                          {"tid", s.pass == "data" ? kLoader : kCompute},
                          {"ts", s.startMs * 1000.0},
                          {"dur", s.durationMs * 1000.0},
                          {"args", {{"step", r.firstStep + s.step + 1}}}});
    return {{"traceEvents", events},
            {"displayTimeUnit", "ms"},
            {"otherData", {{"model", r.model}, {"precision", r.precision}, {"batch", r.batch}}}};
}

} // namespace tb
