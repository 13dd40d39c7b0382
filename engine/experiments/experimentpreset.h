// An experiment preset: a short sweep that shows what one knob does, as a data file a teacher can
// write (resources/experiments/*.json; the format is in resources/experiments/README.md). Each
// arm is the current set-up with a few keys changed, trained for a few hundred steps, repeated so
// that a difference can be told from noise.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb {

class RunConfig;

struct ExperimentArm {
    std::string label;                                    // "num_workers=2"
    std::vector<std::pair<std::string, std::string>> set; // config keys and values, as --set
};

// What an experiment compares between its arms.
enum class ExperimentMeasure {
    Speed,  // samples/s (with the data-wait share of a step, which usually explains it)
    Loss,   // the training loss at the end of the arm
    Memory, // peak memory
};

// "images": the arms read the set-up's images as files of this kind (experimentimages.h).
struct ExperimentImages {
    std::string format = "jpeg"; // jpeg | png
    int size = 224;              // side of the written files
    int64_t limit = 6000;        // the first N training samples; 0 = all
};

struct ExperimentPreset {
    std::string id;    // the file's name without .json
    std::string title; // "DataLoader workers"
    std::string question;
    std::string conceptCard; // the concept card it belongs to ("num_workers")
    ExperimentMeasure measure = ExperimentMeasure::Speed;
    // Measures the conclusion answers as well ("also": ["loss"]), for a question with two
    // halves: accumulation asks about memory and about learning alike.
    std::vector<ExperimentMeasure> alsoMeasured;
    int steps = 200;       // optimizer steps per arm and repeat
    int repeats = 3;       // at least 1; 3 or more to tell a difference from noise
    bool needsGpu = false; // the knob acts only on a GPU run (pin_memory)
    std::optional<ExperimentImages> images;
    std::vector<ExperimentArm> arms;
};

// Parses a preset; `source` names it in errors. Throws ConfigError naming the source and key
// ("pin_memory.json: arms[1].set.pin_memory: ...").
ExperimentPreset parseExperimentPreset(const nlohmann::json& json, const std::string& id,
                                       const std::string& source);
// A preset file (a teacher's, or one of ours by path). Throws ConfigError or DatasetError.
ExperimentPreset loadExperimentPreset(const std::string& path);
// The presets that ship with TrainBench (resources/experiments/, built in), by id.
const std::vector<ExperimentPreset>& builtinExperiments();
// A built-in preset by id, or a file by path. Throws ConfigError("experiment") for neither.
ExperimentPreset findExperiment(const std::string& idOrPath);

// `base` with the arm's keys set and max_steps the preset's steps (epochs unbounded for that).
RunConfig armConfig(const RunConfig& base, const ExperimentPreset& preset,
                    const ExperimentArm& arm);

} // namespace tb
