// A lesson: one teaching session as a data file a teacher can write (resources/lessons/*.json;
// the format is in resources/lessons/README.md): a set-up to start from, the few controls the
// class should touch (lesson mode hides the rest), the concept cards and experiments that go
// with it, and short instructions in order.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb {

class RunConfig;

struct Lesson {
    std::string id; // the file's name without .json
    std::string title;
    std::string goal; // what the class will have seen by the end
    std::vector<std::pair<std::string, std::string>> setup; // config keys and values, as --set
    std::vector<std::string> controls;                      // the config keys lesson mode shows
    std::vector<std::string> cards;                         // concept card ids
    std::vector<std::string> experiments; // experiment preset ids (or paths beside the lesson)
    std::vector<std::string> steps;       // the instructions, in order

    bool operator==(const Lesson&) const = default;
};

// Parses a lesson; `source` names it in errors. `knownCards` are the concept cards a lesson may
// name (empty: not checked). Throws ConfigError naming the source and key
// ("data-loading.json: setup.batch_size: ..."; "mine.json: experiments[1]: ...").
Lesson parseLesson(const nlohmann::json& json, const std::string& id, const std::string& source,
                   const std::set<std::string>& knownCards = {});
// A lesson file. Throws ConfigError or DatasetError (unreadable, not JSON).
Lesson loadLesson(const std::string& path, const std::set<std::string>& knownCards = {});
// The lesson as a file would hold it: parseLesson(lessonToJson(l), l.id, ...) == l.
nlohmann::json lessonToJson(const Lesson& lesson);
// The lessons that ship with TrainBench (resources/lessons/, built in), in file-name order.
const std::vector<Lesson>& builtinLessons();

// `base` with the lesson's set-up applied.
RunConfig lessonConfig(const RunConfig& base, const Lesson& lesson);

} // namespace tb
