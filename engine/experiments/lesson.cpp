// Lessons: every key is checked when the file is read (set-up values against the config schema,
// controls against its keys, experiments against the presets), so a teacher's mistake shows
// when the lesson opens, naming the file and the key, not in front of the class.
#include "experiments/lesson.h"

#include "experiments/builtinlessonfiles.h"
#include "experiments/experimentpreset.h"
#include "experiments/jsonfields.h"
#include "io/jsontext.h"
#include "train/runconfig.h"

#include <filesystem>

namespace tb {

namespace {
bool isBuiltinExperiment(const std::string& id) {
    for (const ExperimentPreset& p : builtinExperiments())
        if (p.id == id)
            return true;
    return false;
}

std::string joinIds(const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids)
        out += (out.empty() ? "" : ", ") + id;
    return out;
}
} // namespace

Lesson parseLesson(const nlohmann::json& json, const std::string& id, const std::string& source,
                   const std::set<std::string>& knownCards) {
    if (!json.is_object())
        throw ConfigError(source, "a lesson must be a JSON object");
    const JsonFields r(json, source);
    static const std::set<std::string> kKeys = {"title",    "goal",  "setup",      "controls",
                                                "concepts", "steps", "experiments"};
    for (const auto& [key, value] : json.items())
        if (!kKeys.count(key))
            r.fail(key, "is not a lesson key (title, goal, setup, controls, concepts, "
                        "experiments, steps)");
    Lesson l;
    l.id = id;
    l.title = r.text("title", true);
    l.goal = r.text("goal", false);
    if (const auto setup = json.find("setup"); setup != json.end()) {
        if (!setup->is_object())
            r.fail("setup", "must be an object of config keys and values");
        RunConfig probe;
        for (const auto& [key, value] : setup->items()) {
            try {
                probe.set(key, setValueText(value));
            } catch (const ConfigError& e) {
                r.fail("setup." + key, e.what());
            }
            l.setup.emplace_back(key, setValueText(value));
        }
    }
    l.controls = r.texts("controls");
    for (std::size_t i = 0; i < l.controls.size(); ++i)
        if (!findConfigField(l.controls[i]))
            r.fail("controls[" + std::to_string(i) + "]",
                   "'" + l.controls[i] + "' is not a config key (trainbench-cli config keys)");
    l.cards = r.texts("concepts");
    for (std::size_t i = 0; i < l.cards.size() && !knownCards.empty(); ++i)
        if (!knownCards.count(l.cards[i]))
            r.fail("concepts[" + std::to_string(i) + "]",
                   "'" + l.cards[i] + "' is not a concept card (" +
                       joinIds({knownCards.begin(), knownCards.end()}) + ")");
    l.experiments = r.texts("experiments");
    const std::filesystem::path folder = std::filesystem::path(source).parent_path();
    for (std::size_t i = 0; i < l.experiments.size(); ++i) {
        const std::string& e = l.experiments[i];
        if (!isBuiltinExperiment(e) && !std::filesystem::exists(folder / e)) {
            std::vector<std::string> ids;
            for (const ExperimentPreset& p : builtinExperiments())
                ids.push_back(p.id);
            r.fail("experiments[" + std::to_string(i) + "]",
                   "'" + e + "' is neither a preset (" + joinIds(ids) +
                       ") nor a preset file beside the lesson");
        }
    }
    l.steps = r.texts("steps");
    if (l.steps.empty())
        r.fail("steps", "must list at least one instruction");
    return l;
}

Lesson loadLesson(const std::string& path, const std::set<std::string>& knownCards) {
    const std::string id = std::filesystem::path(path).stem().string();
    return parseLesson(parseJson(readJsonText(path), path), id, path, knownCards);
}

nlohmann::json lessonToJson(const Lesson& l) {
    nlohmann::json setup = nlohmann::json::object();
    for (const auto& [key, value] : l.setup)
        setup[key] = value; // as text: --set reads "64" and 64 alike
    nlohmann::json j = {{"title", l.title},
                        {"setup", setup},
                        {"controls", l.controls},
                        {"concepts", l.cards},
                        {"experiments", l.experiments},
                        {"steps", l.steps}};
    if (!l.goal.empty())
        j["goal"] = l.goal;
    return j;
}

const std::vector<Lesson>& builtinLessons() {
    static const std::vector<Lesson> all = [] {
        std::vector<Lesson> out;
        for (const auto& [id, text] : builtinLessonFiles()) {
            const std::string source = "resources/lessons/" + std::string(id) + ".json";
            out.push_back(parseLesson(parseJson(text, source), std::string(id), source));
        }
        return out;
    }();
    return all;
}

RunConfig lessonConfig(const RunConfig& base, const Lesson& lesson) {
    RunConfig c = base;
    for (const auto& [key, value] : lesson.setup)
        c.set(key, value);
    return c;
}

} // namespace tb
