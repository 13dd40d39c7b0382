// Validation reports in JSON: {"classes": [...], "confusion": [[...], ...], "misclassified":
// [[index, label, predicted, confidence], ...]}, or a detector's {"detection": {"map50": ...,
// "classes": [{"name": ..., "ap50": ..., "pr50": [101 precisions]}, ...], "names": [...],
// "confusion": [[...], ...]}} (reports stored before the curves and the matrix lack them), or a
// segmentation's {"segmentation": {"mean_iou": ..., "iou": [per class, null where none], ...,
// "confusion": [[...], ...]}}.
#include "store/validationreportjson.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace tb {

namespace {

// A square matrix's rows, back to row-major counts; empty when they are not n x n.
std::vector<int64_t> matrixFromRows(const nlohmann::json& rows, std::size_t n) {
    std::vector<int64_t> m;
    if (rows.size() != n)
        return {};
    for (const nlohmann::json& row : rows) {
        if (row.size() != n)
            return {};
        for (const nlohmann::json& v : row)
            m.push_back(v.get<int64_t>());
    }
    return m;
}

// A curve to four decimals: what a chart can show, in a fifth of the text.
std::vector<double> rounded(std::vector<double> values) {
    for (double& v : values)
        v = std::round(v * 1e4) / 1e4;
    return values;
}

nlohmann::json detectionToJson(const DetectionReport& d) {
    nlohmann::json classes = nlohmann::json::array();
    for (const DetectionClassResult& c : d.classes)
        classes.push_back({{"name", c.name},
                           {"instances", c.instances},
                           {"ap50", c.ap50},
                           {"ap50_95", c.ap5095},
                           {"precision", c.precision},
                           {"recall", c.recall},
                           {"pr50", rounded(c.precision50)}});
    return {
        {"map50", d.map50},      {"map50_95", d.map5095}, {"precision", d.precision},
        {"recall", d.recall},    {"box_loss", d.boxLoss}, {"cls_loss", d.clsLoss},
        {"dfl_loss", d.dflLoss}, {"images", d.images},    {"instances", d.instances},
        {"classes", classes},    {"names", d.classNames}, {"confusion", matrixRows(d.confusion)}};
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
                             c.at("precision").get<double>(), c.at("recall").get<double>(),
                             c.value("pr50", std::vector<double>{})});
    d.classNames = j.value("names", std::vector<std::string>{});
    if (j.contains("confusion"))
        d.confusion = matrixFromRows(j.at("confusion"), d.classNames.size() + 1);
    return d;
}

// NaN (a class with no pixels) as null, which JSON has and NaN is not.
nlohmann::json valuesOrNull(const std::vector<double>& values) {
    nlohmann::json out = nlohmann::json::array();
    for (double v : values)
        out.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
    return out;
}

std::vector<double> valuesFromJson(const nlohmann::json& j) {
    std::vector<double> out;
    for (const nlohmann::json& v : j)
        out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
    return out;
}

// [[index, mean IoU], ...], worst first.
nlohmann::json worstImagesToJson(const std::vector<ImageIoU>& images) {
    nlohmann::json out = nlohmann::json::array();
    for (const ImageIoU& image : images)
        out.push_back({image.index, image.meanIoU});
    return out;
}

nlohmann::json segmentationToJson(const SegmentationReport& r) {
    return {{"mean_iou", r.meanIoU},
            {"pixel_accuracy", r.pixelAccuracy},
            {"names", r.classNames},
            {"iou", valuesOrNull(r.iou)},
            {"class_accuracy", valuesOrNull(r.classAccuracy)},
            {"images", r.images},
            {"pixels", r.pixels},
            {"confusion", matrixRows(r.confusion)},
            {"worst_images", worstImagesToJson(r.worstImages)}};
}

SegmentationReport segmentationFromJson(const nlohmann::json& j) {
    SegmentationReport r;
    r.meanIoU = j.at("mean_iou").get<double>();
    r.pixelAccuracy = j.at("pixel_accuracy").get<double>();
    r.classNames = j.at("names").get<std::vector<std::string>>();
    r.iou = valuesFromJson(j.at("iou"));
    r.classAccuracy = valuesFromJson(j.at("class_accuracy"));
    r.images = j.at("images").get<int64_t>();
    r.pixels = j.at("pixels").get<int64_t>();
    r.confusion = matrixFromRows(j.at("confusion"), r.classNames.size());
    if (j.contains("worst_images")) // runs stored before it was kept have none
        for (const nlohmann::json& image : j.at("worst_images"))
            r.worstImages.push_back({image.at(0).get<int64_t>(), image.at(1).get<double>()});
    return r;
}

} // namespace

nlohmann::json matrixRows(const std::vector<int64_t>& m) {
    nlohmann::json rows = nlohmann::json::array();
    const auto n = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(m.size()))));
    for (std::size_t r = 0; r < n; ++r)
        rows.push_back(std::vector<int64_t>(m.begin() + static_cast<std::ptrdiff_t>(r * n),
                                            m.begin() + static_cast<std::ptrdiff_t>((r + 1) * n)));
    return rows;
}

std::string validationReportToText(const ValidationReport& r) {
    if (r.detection)
        return nlohmann::json{{"detection", detectionToJson(*r.detection)}}.dump();
    if (r.segmentation)
        return nlohmann::json{{"segmentation", segmentationToJson(*r.segmentation)}}.dump();
    if (r.classes == 0)
        return {};
    const nlohmann::json rows = matrixRows(r.confusion);
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
        if (j.is_object() && j.contains("segmentation")) {
            r.segmentation = segmentationFromJson(j.at("segmentation"));
            return r;
        }
        r.classNames = j.at("classes").get<std::vector<std::string>>();
        r.classes = static_cast<int>(r.classNames.size());
        r.confusion = matrixFromRows(j.at("confusion"), r.classNames.size());
        if (r.confusion.empty())
            return {};
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

std::string lossTermsToText(const std::vector<LossTerm>& terms) {
    if (terms.empty())
        return {};
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const LossTerm& t : terms)
        j[t.name] = t.value;
    return j.dump();
}

std::vector<LossTerm> lossTermsFromText(const std::string& text) {
    if (text.empty())
        return {};
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
    std::vector<LossTerm> terms;
    if (!j.is_object())
        return terms;
    for (const auto& [name, value] : j.items())
        if (value.is_number())
            terms.push_back({name, value.get<double>()});
    return terms;
}

} // namespace tb
