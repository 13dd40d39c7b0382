// Validation reports in JSON: {"classes": [...], "confusion": [[...], ...], "misclassified":
// [[index, label, predicted, confidence], ...]}.
#include "store/validationreportjson.h"

#include <nlohmann/json.hpp>

namespace tb {

std::string validationReportToText(const ValidationReport& r) {
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
