// RunConfig parsing and validation. One table maps each key to its schema and its member, so
// set(), toJson() and configFields() cannot disagree.
#include "train/runconfig.h"

#include "core/errors.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <sstream>

namespace tb {

namespace {

using nlohmann::json;

struct FieldBinding {
    ConfigField field;
    std::function<void(RunConfig&, const json&)> set;
    std::function<json(const RunConfig&)> get;
};

[[noreturn]] void bad(const std::string& key, const std::string& what) {
    throw ConfigError(key, what);
}

// Values arrive either as JSON (config files) or as text (--set); text is converted by type.
json fromText(const ConfigField& f, const std::string& text) {
    if (f.type == "int") {
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size())
            bad(f.key, "'" + text + "' is not a whole number");
        return v;
    }
    if (f.type == "float") {
        try {
            std::size_t used = 0;
            const double v = std::stod(text, &used);
            if (used != text.size())
                throw std::invalid_argument(text);
            return v;
        } catch (const std::exception&) {
            bad(f.key, "'" + text + "' is not a number");
        }
    }
    if (f.type == "bool") {
        if (text == "true" || text == "1" || text == "yes" || text == "on")
            return true;
        if (text == "false" || text == "0" || text == "no" || text == "off")
            return false;
        bad(f.key, "'" + text + "' is not true or false");
    }
    if (f.type == "list") {
        json arr = json::array();
        std::stringstream ss(text);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty())
                arr.push_back(item);
        return arr;
    }
    return text;
}

int64_t asInt(const ConfigField& f, const json& v, int64_t min, int64_t max = INT64_MAX) {
    if (!v.is_number_integer())
        bad(f.key, v.dump() + " is not a whole number");
    const auto x = v.get<int64_t>();
    if (x < min || x > max)
        bad(f.key, std::to_string(x) + " is out of range; allowed " + std::to_string(min) +
                       (max == INT64_MAX ? " or more" : " to " + std::to_string(max)));
    return x;
}

double asFloat(const ConfigField& f, const json& v, double min, double max, bool minOpen = false) {
    if (!v.is_number())
        bad(f.key, v.dump() + " is not a number");
    const double x = v.get<double>();
    if (!(minOpen ? x > min : x >= min) || x > max)
        bad(f.key, v.dump() + " is out of range; allowed " + (minOpen ? "above " : "from ") +
                       std::to_string(min) + " to " + std::to_string(max));
    return x;
}

bool asBool(const ConfigField& f, const json& v) {
    if (!v.is_boolean())
        bad(f.key, v.dump() + " is not true or false");
    return v.get<bool>();
}

std::string asString(const ConfigField& f, const json& v) {
    if (v.is_number())
        return v.dump(); // precision: 32 written as a number
    if (!v.is_string())
        bad(f.key, v.dump() + " is not a string");
    const auto s = v.get<std::string>();
    if (!f.choices.empty() && std::find(f.choices.begin(), f.choices.end(), s) == f.choices.end()) {
        std::string allowed;
        for (const auto& c : f.choices)
            allowed += (allowed.empty() ? "" : ", ") + c;
        bad(f.key, "'" + s + "' is not allowed; choose one of " + allowed);
    }
    return s;
}

std::vector<FieldBinding> makeBindings();

const std::vector<FieldBinding>& bindings() {
    static const std::vector<FieldBinding> b = makeBindings();
    return b;
}

const FieldBinding& binding(const std::string& key) {
    for (const auto& b : bindings())
        if (b.field.key == key)
            return b;
    // Suggest a key the text starts (best) or appears in.
    std::string hint;
    for (const auto& b : bindings())
        if (hint.empty() && (b.field.key.find(key) != std::string::npos ||
                             key.find(b.field.key) != std::string::npos))
            hint = " (did you mean '" + b.field.key + "'?)";
    for (const auto& b : bindings())
        if (b.field.key.rfind(key, 0) == 0) {
            hint = " (did you mean '" + b.field.key + "'?)";
            break;
        }
    bad(key, "unknown config key" + hint + "; run 'trainbench-cli train --help' for the list");
}

} // namespace

#define TB_INT(key, member, min, max, help)                                                        \
    {                                                                                              \
        {key, "int", {}, help},                                                                    \
            [](RunConfig& c, const json& v) {                                                      \
                c.member =                                                                         \
                    static_cast<decltype(c.member)>(asInt(binding(key).field, v, min, max));       \
            },                                                                                     \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }
#define TB_FLOAT(key, member, min, max, minOpen, help)                                             \
    {                                                                                              \
        {key, "float", {}, help},                                                                  \
            [](RunConfig& c, const json& v) {                                                      \
                c.member = static_cast<decltype(c.member)>(                                        \
                    asFloat(binding(key).field, v, min, max, minOpen));                            \
            },                                                                                     \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }
#define TB_BOOL(key, member, help)                                                                 \
    {                                                                                              \
        {key, "bool", {}, help},                                                                   \
            [](RunConfig& c, const json& v) { c.member = asBool(binding(key).field, v); },         \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }
#define TB_STRING(key, member, choices, help)                                                      \
    {                                                                                              \
        {key, choices.empty() ? "string" : "choice", choices, help},                               \
            [](RunConfig& c, const json& v) { c.member = asString(binding(key).field, v); },       \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }

namespace {

using Choices = std::vector<std::string>;
const Choices kNone;

std::vector<FieldBinding> makeBindings() {
    return {
        TB_STRING("name", name, kNone, "run name shown in lists (default: model-dataset)"),
        {{"tags", "list", {}, "comma-separated tags"},
         [](RunConfig& c, const json& v) {
             if (!v.is_array())
                 bad("tags", "must be a list of strings");
             c.tags = v.get<std::vector<std::string>>();
         },
         [](const RunConfig& c) { return json(c.tags); }},
        TB_STRING("model", model, kNone, "zoo name (trainbench-cli models) or a spec .json path"),
        {{"model.hidden", "string", {}, "mlp hidden widths, e.g. 256,128"},
         [](RunConfig& c, const json& v) {
             c.modelOptions["hidden"] = asString(binding("model.hidden").field, v);
         },
         [](const RunConfig& c) { return c.modelOptions.value("hidden", json("256,128")); }},
        {{"model.shortcut", "choice", {"A", "B"}, "ResNet shortcut: A parameter-free, B 1x1 conv"},
         [](RunConfig& c, const json& v) {
             c.modelOptions["shortcut"] = asString(binding("model.shortcut").field, v);
         },
         [](const RunConfig& c) { return c.modelOptions.value("shortcut", json("A")); }},
        {{"model.dropout", "float", {}, "dropout probability in mlp / vgg-small classifiers"},
         [](RunConfig& c, const json& v) {
             c.modelOptions["dropout"] = asFloat(binding("model.dropout").field, v, 0.0, 0.99);
         },
         [](const RunConfig& c) { return c.modelOptions.value("dropout", json(0.0)); }},
        TB_STRING("dataset", data.name,
                  (Choices{"fashion-mnist", "mnist", "cifar10", "cifar100", "imagefolder", "csv",
                           "spirals", "blobs", "shapes"}),
                  "dataset to train on"),
        TB_STRING("data.root", data.root, kNone,
                  "dataset folder or file (default: its usual place)"),
        TB_FLOAT("data.val_fraction", data.valFraction, 0.0, 0.9, false,
                 "held-out fraction for sets without a test split"),
        TB_BOOL("data.augment", data.augment, "random crop + flip while training"),
        TB_BOOL("data.normalize", data.normalize, "per-channel mean/std normalisation"),
        TB_INT("data.image_size", data.imageSize, 8, 512, "image side for imagefolder and shapes"),
        TB_STRING("data.csv_label", data.csvLabel, kNone, "CSV label column: name or index"),
        TB_STRING("data.csv_header", data.csvHeader, (Choices{"auto", "yes", "no"}),
                  "whether the CSV's first row is a header"),
        TB_INT("data.synthetic_samples", data.syntheticSamples, 10, 10000000,
               "training samples of a synthetic set"),
        TB_INT("data.synthetic_classes", data.syntheticClasses, 2, 6, "classes of a synthetic set"),
        TB_INT("batch_size", batchSize, 1, 65536, "samples per micro-batch"),
        TB_INT("num_workers", numWorkers, 0, 64, "DataLoader worker threads; 0 loads inline"),
        TB_BOOL("pin_memory", pinMemory, "page-locked batches for asynchronous GPU copies"),
        TB_INT("prefetch_factor", prefetchFactor, 1, 64, "batches each worker prepares ahead"),
        TB_BOOL("shuffle", shuffle, "reshuffle the training set every epoch"),
        TB_BOOL("drop_last", dropLast, "drop the last incomplete batch"),
        TB_STRING("precision", precision, (Choices{"32", "16-mixed", "bf16-mixed"}),
                  "32, or mixed precision with fp16 (loss scaling) or bf16 activations"),
        TB_INT("accumulate_grad_batches", accumulateGradBatches, 1, 4096,
               "micro-batches per optimizer step"),
        TB_INT("max_epochs", maxEpochs, 0, 100000, "epochs to train (0 = bounded by max_steps)"),
        TB_INT("max_steps", maxSteps, -1, INT64_MAX / 2, "optimizer steps to train; -1 = no limit"),
        TB_FLOAT("lr", lr, 0.0, 100.0, true, "base learning rate"),
        TB_STRING("optimizer", optimizer.name, (Choices{"sgd", "adamw"}), "sgd or adamw"),
        TB_FLOAT("momentum", optimizer.momentum, 0.0, 0.999, false, "SGD momentum"),
        TB_BOOL("nesterov", optimizer.nesterov, "Nesterov momentum"),
        TB_FLOAT("weight_decay", optimizer.weightDecay, 0.0, 1.0, false,
                 "L2 (SGD) or decoupled (AdamW) weight decay"),
        TB_FLOAT("beta1", optimizer.beta1, 0.0, 0.9999, false, "AdamW beta1"),
        TB_FLOAT("beta2", optimizer.beta2, 0.0, 0.99999, false, "AdamW beta2"),
        TB_FLOAT("eps", optimizer.eps, 0.0, 1.0, true, "AdamW epsilon"),
        TB_STRING("lr_schedule", schedule.name,
                  (Choices{"constant", "step", "multistep", "cosine", "onecycle"}),
                  "learning-rate schedule by optimizer step"),
        TB_INT("warmup_steps", schedule.warmupSteps, 0, INT64_MAX / 2, "linear warm-up steps"),
        TB_INT("lr_step_size", schedule.stepSize, 1, INT64_MAX / 2, "step schedule period"),
        {{"lr_milestones", "list", {}, "multistep decay steps, e.g. 3000,6000"},
         [](RunConfig& c, const json& v) {
             c.schedule.milestones.clear();
             for (const auto& m : v) {
                 long long x = 0;
                 const std::string s = m.is_string() ? m.get<std::string>() : m.dump();
                 const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
                 if (ec != std::errc() || end != s.data() + s.size() || x < 1)
                     bad("lr_milestones", "'" + s + "' is not a positive step number");
                 c.schedule.milestones.push_back(x);
             }
         },
         [](const RunConfig& c) { return json(c.schedule.milestones); }},
        TB_FLOAT("lr_gamma", schedule.gamma, 0.0, 1.0, true, "step/multistep decay factor"),
        TB_FLOAT("min_lr", schedule.minLr, 0.0, 100.0, false, "cosine schedule floor"),
        TB_FLOAT("label_smoothing", labelSmoothing, 0.0, 0.99, false,
                 "cross-entropy label smoothing"),
        TB_INT("seed", seed, 0, INT64_MAX, "seed for init, shuffling, augmentation and dropout"),
        TB_STRING("device", device, kNone, "auto, cpu or cuda:N"),
        TB_BOOL("deterministic", deterministic,
                "bit-identical GPU runs for the same seed (deterministic cuDNN algorithms)"),
        TB_INT("threads", threads, 0, 1024, "CPU compute threads; 0 = one per core"),
        TB_INT("log_every_n_steps", logEveryNSteps, 1, 100000,
               "optimizer steps between logged points"),
        TB_STRING("checkpoint_dir", checkpointDir, kNone, "where checkpoints go"),
        TB_INT("save_every_n_epochs", saveEveryNEpochs, 0, 100000,
               "checkpoint period in epochs; 0 = only at the end"),
        TB_INT("keep_last_checkpoints", keepLastCheckpoints, 1, 1000,
               "epoch checkpoints kept besides the best"),
        TB_FLOAT("amp.init_scale", scaler.initScale, 1.0, 1e38, false, "GradScaler initial scale"),
        TB_INT("amp.growth_interval", scaler.growthInterval, 1, 1000000,
               "clean steps before the loss scale doubles"),
    };
}

} // namespace

#undef TB_INT
#undef TB_FLOAT
#undef TB_BOOL
#undef TB_STRING

const std::vector<ConfigField>& configFields() {
    static const std::vector<ConfigField> fields = [] {
        std::vector<ConfigField> out;
        for (const auto& b : bindings())
            out.push_back(b.field);
        return out;
    }();
    return fields;
}

void RunConfig::set(const std::string& key, const std::string& value) {
    const FieldBinding& b = binding(key);
    b.set(*this, fromText(b.field, value));
}

void RunConfig::setJson(const std::string& key, const json& value) {
    binding(key).set(*this, value);
}

void RunConfig::applyJson(const json& object, const std::string& prefix) {
    if (!object.is_object())
        bad(prefix.empty() ? "config" : prefix, "must be a JSON object");
    for (const auto& [k, v] : object.items()) {
        const std::string key = prefix.empty() ? k : prefix + "." + k;
        if (v.is_object())
            applyJson(v, key);
        else
            setJson(key, v);
    }
}

void RunConfig::validate() const {
    if (maxEpochs == 0 && maxSteps < 0)
        bad("max_epochs", "0 with max_steps = -1 would never stop; set one of them");
    if (maxSteps == 0)
        bad("max_steps", "must be -1 (no limit) or at least 1");
    if (device != "auto" && device != "cpu" && device.rfind("cuda:", 0) != 0)
        bad("device", "'" + device + "' must be auto, cpu or cuda:N");
    if (schedule.name == "multistep" && schedule.milestones.empty())
        bad("lr_milestones", "the multistep schedule needs at least one milestone");
}

json RunConfig::toJson() const {
    json out = json::object();
    for (const auto& b : bindings())
        out[b.field.key] = b.get(*this);
    return out;
}

RunConfig RunConfig::fromJson(const json& object) {
    RunConfig c;
    c.applyJson(object);
    return c;
}

std::string RunConfig::displayName() const {
    if (!name.empty())
        return name;
    const auto slash = model.find_last_of('/');
    return (slash == std::string::npos ? model : model.substr(slash + 1)) + "-" + data.name;
}

DType activationDtypeOf(const std::string& precision, const std::string& field) {
    if (precision == "32")
        return DType::F32;
    if (precision == "16-mixed")
        return DType::F16;
    if (precision == "bf16-mixed")
        return DType::BF16;
    throw ConfigError(field, "'" + precision + "' must be 32, 16-mixed or bf16-mixed");
}

} // namespace tb
