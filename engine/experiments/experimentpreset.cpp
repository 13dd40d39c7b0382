// Experiment presets: parsed and checked against the config schema, so a teacher's file fails
// at once, naming the file and the key, not halfway through a sweep.
#include "experiments/experimentpreset.h"

#include "core/errors.h"
#include "data/dataconfig.h"
#include "experiments/builtinexperimentfiles.h"
#include "experiments/jsonfields.h"
#include "io/jsontext.h"
#include "train/runconfig.h"

#include <filesystem>

namespace tb {

ExperimentPreset parseExperimentPreset(const nlohmann::json& json, const std::string& id,
                                       const std::string& source) {
    if (!json.is_object())
        throw ConfigError(source, "an experiment preset must be a JSON object");
    const JsonFields r(json, source);
    ExperimentPreset p;
    p.id = id;
    p.title = r.text("title", true);
    p.question = r.text("question", false);
    p.conceptCard = r.text("concept", false);
    const auto measureOf = [&](const std::string& name, const std::string& key) {
        if (name.empty() || name == "speed")
            return ExperimentMeasure::Speed;
        if (name == "loss")
            return ExperimentMeasure::Loss;
        if (name == "memory")
            return ExperimentMeasure::Memory;
        r.fail(key, "'" + name + "' must be speed, loss or memory");
    };
    p.measure = measureOf(r.text("measure", false), "measure");
    if (const auto also = json.find("also"); also != json.end()) {
        if (!also->is_array())
            r.fail("also", "must be a list of measures, such as [\"loss\"]");
        for (std::size_t i = 0; i < also->size(); ++i) {
            const std::string key = "also[" + std::to_string(i) + "]";
            if (!(*also)[i].is_string())
                r.fail(key, "must be speed, loss or memory");
            p.alsoMeasured.push_back(measureOf((*also)[i].get<std::string>(), key));
        }
    }
    p.steps = r.count("steps", 200, 1, 100000);
    p.repeats = r.count("repeats", 3, 1, 20);
    p.needsGpu = r.flag("needs_gpu");
    if (const auto images = json.find("images"); images != json.end()) {
        if (!images->is_object())
            r.fail("images", "must be an object such as {\"format\": \"jpeg\", \"size\": 224}");
        const JsonFields fields(*images, source, "images.");
        ExperimentImages out;
        if (const std::string format = fields.text("format", false); !format.empty()) {
            if (format != "jpeg" && format != "png")
                fields.fail("format", "'" + format + "' must be jpeg or png");
            out.format = format;
        }
        out.size = fields.count("size", out.size, kMinImageSize, kMaxImageSize);
        out.limit = fields.count("limit", static_cast<int>(out.limit), 0, 10'000'000);
        p.images = out;
    }
    const auto arms = json.find("arms");
    if (arms == json.end() || !arms->is_array() || arms->size() < 2)
        r.fail("arms", "must list at least two arms, each {\"label\": ..., \"set\": {...}}");
    // Each arm's keys are checked on a default config, as `train --set` would check them.
    for (std::size_t i = 0; i < arms->size(); ++i) {
        const std::string where = "arms[" + std::to_string(i) + "]";
        const nlohmann::json& a = (*arms)[i];
        if (!a.is_object())
            r.fail(where, "must be an object with a label and the keys it sets");
        const JsonFields arm(a, source);
        ExperimentArm out;
        try {
            out.label = arm.text("label", true);
        } catch (const ConfigError&) {
            r.fail(where + ".label", "must be a non-empty string");
        }
        const auto set = a.find("set");
        if (set == a.end() || !set->is_object() || set->empty())
            r.fail(where + ".set", "must be an object of config keys and values");
        RunConfig probe;
        for (const auto& [key, value] : set->items()) {
            try {
                probe.set(key, setValueText(value));
            } catch (const ConfigError& e) {
                r.fail(where + ".set." + key, e.what());
            }
            out.set.emplace_back(key, setValueText(value));
        }
        p.arms.push_back(std::move(out));
    }
    return p;
}

ExperimentPreset loadExperimentPreset(const std::string& path) {
    const std::string id = std::filesystem::path(path).stem().string();
    return parseExperimentPreset(parseJson(readJsonText(path), path), id, path);
}

const std::vector<ExperimentPreset>& builtinExperiments() {
    static const std::vector<ExperimentPreset> all = [] {
        std::vector<ExperimentPreset> out;
        for (const auto& [id, text] : builtinExperimentFiles()) {
            const std::string source = "resources/experiments/" + std::string(id) + ".json";
            out.push_back(parseExperimentPreset(parseJson(text, source), std::string(id), source));
        }
        return out;
    }();
    return all;
}

ExperimentPreset findExperiment(const std::string& idOrPath) {
    for (const ExperimentPreset& p : builtinExperiments())
        if (p.id == idOrPath)
            return p;
    if (std::filesystem::exists(idOrPath))
        return loadExperimentPreset(idOrPath);
    std::string ids;
    for (const ExperimentPreset& p : builtinExperiments())
        ids += (ids.empty() ? "" : ", ") + p.id;
    throw ConfigError("experiment",
                      "'" + idOrPath + "' is neither a preset (" + ids + ") nor a preset file");
}

RunConfig armConfig(const RunConfig& base, const ExperimentPreset& preset,
                    const ExperimentArm& arm) {
    RunConfig c = base;
    for (const auto& [key, value] : arm.set)
        c.set(key, value);
    c.set("max_steps", std::to_string(preset.steps));
    c.set("max_epochs", "0"); // the step count ends the arm
    c.validate();
    return c;
}

} // namespace tb
