// Validation reports in JSON: {"classes": [...], "confusion": [[...], ...], "misclassified":
// [[index, label, predicted, confidence], ...]}, or a detector's {"detection": {"map50": ...,
// "classes": [{"name": ..., "ap50": ...}, ...]}}.
#include "store/validationreportjson.h"

#include <nlohmann/json.hpp>

namespace tb {

namespace {

nlohmann::json detectionToJson(const DetectionReport& d) {
    nlohmann::json classes = nlohmann::json::array();
    for (const DetectionClassResult& c : d.classes)
        classes.push_back({{"name", c.name},
                           {"instances", c.instances},
                           {"ap50", c.ap50},
                           {"ap50_95", c.ap5095},
                           {"precision", c.precision},
                           {"recall", c.recall}});
    return {{"map50", d.map50},      {"map50_95", d.map5095}, {"precision", d.precision},
            {"recall", d.recall},    {"box_loss", d.boxLoss}, {"cls_loss", d.clsLoss},
            {"dfl_loss", d.dflLoss}, {"images", d.images},    {"instances", d.instances},
            {"classes", classes}};
}

DetectionReport detectionFromJson(const nlohmann::json& j) {
    DetectionReport d;
    d.map50 = j.at("map50").get<double>();
    d.map5095 = j.at("map50_95").get<double>();
    d.precision = j.at("precision").get<double>();
    d.recall = j.at("recall").get<double>();
    d.boxLoss = j.at("box_loss").get<double>();
    d.clsLoss = j.at("cls_loss").get<double>();
    d.dflLoss = j.at("dfl_loss").get<double>();
    d.images = j.at("images").get<int64_t>();
    d.instances = j.at("instances").get<int64_t>();
    for (const nlohmann::json& c : j.at("classes"))
        d.classes.push_back({c.at("name").get<std::string>(), c.at("instances").get<int64_t>(),
                             c.at("ap50").get<double>(), c.at("ap50_95").get<double>(),
                             c.at("precision").get<double>(), c.at("recall").get<double>()});
    return d;
}

} // namespace

std::string validationReportToText(const ValidationReport& r) {
    if (r.detection)
        return nlohmann::json{{"detection", detectionToJson(*r.detection)}}.dump();
    if (r.classes == 0)
        return {};
    nlohmann::json rows = nlohmann::json::array();
    for (int t = 0; t < r.classes; ++t) {
        nlohmann::json row = nlohmann::json::array();
        for (int p = 0; p < r.classes; ++p)
            row.push_back(r.count(t, p));
        rows.push_back(std::move(row));
    }
    nlohmann::json misses = nlohmann::json::array();
    for (const MisclassifiedSample& s : r.misclassified)
        misses.push_back({s.index, s.label, s.predicted, s.confidence});
    return nlohmann::json{{"classes", r.classNames}, {"confusion", rows}, {"misclassified", misses}}
        .dump();
}

ValidationReport validationReportFromText(const std::string& text) {
    if (text.empty())
        return {};
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    try {
        ValidationReport r;
        if (j.is_object() && j.contains("detection")) {
            r.detection = detectionFromJson(j.at("detection"));
            return r;
        }
        r.classNames = j.at("classes").get<std::vector<std::string>>();
        r.classes = static_cast<int>(r.classNames.size());
        const nlohmann::json& rows = j.at("confusion");
        if (rows.size() != r.classNames.size())
            return {};
        for (const nlohmann::json& row : rows) {
            if (row.size() != r.classNames.size())
                return {};
            for (const nlohmann::json& v : row)
                r.confusion.push_back(v.get<int64_t>());
        }
        for (const nlohmann::json& m : j.at("misclassified")) {
            MisclassifiedSample s;
            s.index = m.at(0).get<int64_t>();
            s.label = m.at(1).get<int32_t>();
            s.predicted = m.at(2).get<int32_t>();
            s.confidence = m.at(3).get<float>();
            r.misclassified.push_back(std::move(s));
        }
        return r;
    } catch (const nlohmann::json::exception&) {
        return {}; // discarded (not an object) or a field of the wrong type
    }
}

} // namespace tb
