// RunConfig parsing and validation. One table maps each key to its schema and its member, so
// set(), toJson(), validateField() and configSchema() cannot disagree.
#include "train/runconfig.h"

#include "core/errors.h"
#include "data/datasets.h"
#include "data/synthetic.h"
#include "nn/modelzoo.h"
#include "nn/segmentationzoo.h"
#include "nn/unetzoo.h"
#include "nn/yolozoo.h"
#include "train/configchecks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <thread>

namespace tb {

namespace {

using nlohmann::json;
using Choices = std::vector<std::string>;

struct FieldBinding {
    ConfigField field;
    // Stores a value that checkValue() accepted.
    std::function<void(RunConfig&, const json&)> assign;
    std::function<json(const RunConfig&)> get;
    // Rules beyond type and range (list items, device names); throws ConfigError.
    std::function<void(const json&)> check = nullptr;
};

[[noreturn]] void bad(const std::string& key, const std::string& what) {
    throw ConfigError(key, what);
}

// Exact comparisons of int64, uint64 and double values: long double holds all of them.
long double numberOf(const json& v) {
    if (v.is_number_unsigned())
        return static_cast<long double>(v.get<uint64_t>());
    if (v.is_number_integer())
        return static_cast<long double>(v.get<int64_t>());
    return static_cast<long double>(v.get<double>());
}

// A float member as JSON: its shortest decimal (0.05, not 0.05000000074505806), which reads
// back as the same float.
json floatJson(float v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    double d = 0;
    std::from_chars(buf, r.ptr, d);
    return d;
}

std::string join(const Choices& items, const char* separator) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

// Values arrive either as JSON (config files) or as text (--set, a form); text is converted by
// type, and what cannot be represented is refused here with the text as given.
json fromText(const ConfigField& f, const std::string& text) {
    if (f.type == "int") {
        const char* end = text.data() + text.size();
        int64_t v = 0;
        if (const auto r = std::from_chars(text.data(), end, v);
            r.ec == std::errc() && r.ptr == end)
            return v;
        uint64_t u = 0; // seed takes the whole uint64 range
        if (const auto r = std::from_chars(text.data(), end, u);
            r.ec == std::errc() && r.ptr == end)
            return u;
        bad(f.key, "'" + text + "' is not a whole number" +
                       (f.max.is_null() ? "" : " from " + f.min.dump() + " to " + f.max.dump()));
    }
    if (f.type == "float") {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto r = std::from_chars(text.data(), end, v);
        if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v))
            bad(f.key, "'" + text + "' is not a finite number; " + f.key + " must be a finite " +
                           "number from " + f.min.dump() + " to " + f.max.dump());
        return v;
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

std::string rangeText(const ConfigField& f) {
    if (f.max.is_null())
        return (f.minOpen ? "above " : "") + f.min.dump() + (f.minOpen ? "" : " or more");
    return (f.minOpen ? "above " : "from ") + f.min.dump() + " to " + f.max.dump();
}

// Type, range and choice checks every key gets. Returns the value in its stored form.
json checkValue(const FieldBinding& b, const json& v) {
    const ConfigField& f = b.field;
    if (f.type == "int") {
        if (!v.is_number_integer())
            bad(f.key, v.dump() + " is not a whole number");
        const long double x = numberOf(v);
        if (x < numberOf(f.min) || (!f.max.is_null() && x > numberOf(f.max)))
            bad(f.key,
                v.dump() + " is out of range; allowed " + rangeText(f) + " (" + f.help + ")");
    } else if (f.type == "float") {
        if (!v.is_number())
            bad(f.key, v.dump() + " is not a number");
        const long double x = numberOf(v);
        const long double lo = numberOf(f.min);
        if (!(f.minOpen ? x > lo : x >= lo) || x > numberOf(f.max))
            bad(f.key,
                v.dump() + " is out of range; allowed " + rangeText(f) + " (" + f.help + ")");
    } else if (f.type == "bool") {
        if (!v.is_boolean())
            bad(f.key, v.dump() + " is not true or false");
    } else if (f.type == "list") {
        if (!v.is_array())
            bad(f.key, v.dump() + " is not a list");
    } else {
        if (!v.is_string() && !v.is_number()) // precision: 32 written as a number
            bad(f.key, v.dump() + " is not a string");
        const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
        if (f.type == "choice" &&
            std::find(f.choices.begin(), f.choices.end(), s) == f.choices.end())
            bad(f.key, "'" + s + "' is not allowed; choose one of " + join(f.choices, ", "));
        if (b.check)
            b.check(s);
        return s;
    }
    if (b.check)
        b.check(v);
    return v;
}

// ---- the schema --------------------------------------------------------------------------

ConfigField makeField(std::string key, std::string type, std::string help, json min = nullptr,
                      json max = nullptr, bool minOpen = false) {
    ConfigField f;
    f.key = std::move(key);
    f.type = std::move(type);
    f.help = std::move(help);
    f.min = std::move(min);
    f.max = std::move(max);
    f.minOpen = minOpen;
    return f;
}

// The binding for `key`, only while it applies: used in the table below.
FieldBinding when(const std::string& key, Choices values, FieldBinding b) {
    b.field.appliesWhenKey = key;
    b.field.appliesWhenValues = std::move(values);
    return b;
}

FieldBinding withChoices(Choices choices, FieldBinding b) {
    b.field.choices = std::move(choices);
    return b;
}

// A max that differs from machine to machine, described by its rule for the docs.
FieldBinding withMaxRule(std::string rule, FieldBinding b) {
    b.field.maxRule = std::move(rule);
    return b;
}

FieldBinding withRange(json min, json max, FieldBinding b) {
    b.field.min = std::move(min);
    b.field.max = std::move(max);
    return b;
}

int hardwareThreads() {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<FieldBinding> makeBindings();

const std::vector<FieldBinding>& bindings() {
    static const std::vector<FieldBinding> b = makeBindings();
    return b;
}

const FieldBinding* findBinding(const std::string& key) {
    for (const auto& b : bindings())
        if (b.field.key == key)
            return &b;
    return nullptr;
}

const FieldBinding& binding(const std::string& key) {
    if (const FieldBinding* b = findBinding(key))
        return *b;
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

// Each macro binds a key to a member; the range goes into the schema and is checked there.
#define TB_INT(key, member, min, max, help)                                                        \
    FieldBinding {                                                                                 \
        makeField(key, "int", help, min, max),                                                     \
            [](RunConfig& c, const json& v) { c.member = v.get<decltype(c.member)>(); },           \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }
#define TB_FLOAT(key, member, min, max, minOpen, help)                                             \
    FieldBinding {                                                                                 \
        makeField(key, "float", help, min, max, minOpen),                                          \
            [](RunConfig& c, const json& v) {                                                      \
                c.member = static_cast<decltype(c.member)>(v.get<double>());                       \
            },                                                                                     \
            [](const RunConfig& c) { return floatJson(c.member); }                                 \
    }
#define TB_BOOL(key, member, help)                                                                 \
    FieldBinding {                                                                                 \
        makeField(key, "bool", help),                                                              \
            [](RunConfig& c, const json& v) { c.member = v.get<bool>(); },                         \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }
#define TB_STRING(key, member, help)                                                               \
    FieldBinding {                                                                                 \
        makeField(key, "string", help),                                                            \
            [](RunConfig& c, const json& v) { c.member = v.get<std::string>(); },                  \
            [](const RunConfig& c) { return json(c.member); }                                      \
    }
#define TB_CHOICE(key, member, choices, help)                                                      \
    withChoices(choices,                                                                           \
                FieldBinding{makeField(key, "choice", help),                                       \
                             [](RunConfig& c, const json& v) { c.member = v.get<std::string>(); }, \
                             [](const RunConfig& c) { return json(c.member); }})
// model.* options live in RunConfig::modelOptions; absent means the model's own default.
#define TB_MODEL_OPTION(option, type, fallback, help)                                              \
    FieldBinding {                                                                                 \
        makeField("model." option, type, help),                                                    \
            [](RunConfig& c, const json& v) { c.modelOptions[option] = v; },                       \
            [](const RunConfig& c) { return c.modelOptions.value(option, json(fallback)); }        \
    }

namespace {

constexpr int64_t kMaxStepCount = 1'000'000'000'000'000; // far beyond any run, exact in a double

std::vector<FieldBinding> group(ConfigGroup g, std::vector<FieldBinding> fields) {
    for (auto& b : fields)
        b.field.group = g;
    return fields;
}

std::vector<FieldBinding> makeBindings() {
    const Choices resnets{"resnet20", "resnet32", "resnet56"};
    const Choices withHoldout{"imagefolder", "csv",           "spirals",    "blobs", "shapes",
                              "text",        "shapes-detect", "shapes-seg", "masks"};
    const Choices synthetic{"spirals", "blobs", "shapes", "shapes-detect", "shapes-seg"};
    const Choices syntheticClasses{"spirals", "blobs", "shapes"}; // shapes-detect has its five
    const Choices detection{"shapes-detect", "yolo", "coco"};
    const Choices detectors{"yolov8n", "yolov8s"};
    // The sets whose samples are measurements (normalised), and of those the images that a crop
    // and a flip can augment; a text set's token ids are neither.
    Choices measured;
    for (const std::string& name : datasetNames())
        if (!isDetectionDataset(name) && name != "text")
            measured.push_back(name);
    const Choices augmentable{"mnist",  "fashion-mnist", "cifar10", "cifar100", "imagefolder",
                              "shapes", "shapes-seg",    "voc",     "masks"};
    const Choices segmentationSets{"shapes-seg", "voc", "masks"};
    Choices sizedImages{"imagefolder", "shapes"};
    sizedImages.insert(sizedImages.end(), segmentationSets.begin(), segmentationSets.end());
    const Choices warmupSchedules{"constant", "step", "multistep", "cosine", "poly"};
    Choices zoo;
    for (const ZooEntry& e : modelZoo())
        zoo.push_back(e.name);

    auto dataset = TB_CHOICE("dataset", data.name, datasetNames(), "dataset to train on");
    auto model = withChoices(
        zoo, TB_STRING("model", model, "zoo name (trainbench-cli models) or a spec .json path"));
    model.check = checkModel;
    auto tags = FieldBinding{
        makeField("tags", "list", "comma-separated tags"),
        [](RunConfig& c, const json& v) { c.tags = v.get<std::vector<std::string>>(); },
        [](const RunConfig& c) { return json(c.tags); }, checkTags};
    auto milestones = FieldBinding{
        makeField("lr_milestones", "list", "multistep decay steps, e.g. 3000,6000"),
        [](RunConfig& c, const json& v) {
            c.schedule.milestones.clear();
            for (const json& m : v)
                c.schedule.milestones.push_back(milestoneOf(m));
        },
        [](const RunConfig& c) { return json(c.schedule.milestones); }, checkMilestones};
    auto device = TB_STRING("device", device, "auto, cpu or cuda:N");
    device.check = checkDevice;

    std::vector<std::vector<FieldBinding>> groups;
    groups.push_back(group(
        ConfigGroup::Data,
        {dataset,
         TB_STRING("data.root", data.root, "dataset folder or file (default: its usual place)"),
         when("dataset", withHoldout,
              TB_FLOAT("data.val_fraction", data.valFraction, 0.0, 0.9, false,
                       "held-out fraction for sets without a test split")),
         when("dataset", augmentable,
              TB_BOOL("data.augment", data.augment,
                      "random crop + flip while training (segmentation: torchvision's random "
                      "scale 0.5-2x, flip and crop, masks moved with the pixels)")),
         when("dataset", measured,
              TB_BOOL("data.normalize", data.normalize, "per-channel mean/std normalisation")),
         when("dataset", detection,
              TB_INT("data.imgsz", data.detectSize, 0, kMaxDetectSize,
                     "detection: square input side in pixels, a multiple of 32 from 64 "
                     "(Ultralytics' imgsz); 0 = the set's own: 128 for shapes-detect, 640 for "
                     "yolo and coco")),
         when("dataset", detection,
              TB_FLOAT("data.mosaic", data.detectAugment.mosaic, 0.0, 1.0, false,
                       "detection: probability of a 4-image mosaic")),
         when("dataset", detection,
              TB_INT("data.close_mosaic", data.closeMosaic, 0, 100000,
                     "detection: last epochs trained without mosaic")),
         when("dataset", detection,
              TB_FLOAT("data.fliplr", data.detectAugment.fliplr, 0.0, 1.0, false,
                       "detection: probability of a horizontal flip")),
         when("dataset", detection,
              TB_FLOAT("data.scale", data.detectAugment.scale, 0.0, 0.9, false,
                       "detection: random scale gain, drawn from [1 - scale, 1 + scale]")),
         when("dataset", detection,
              TB_FLOAT("data.translate", data.detectAugment.translate, 0.0, 0.5, false,
                       "detection: random shift, a fraction of the side")),
         when("dataset", detection,
              TB_FLOAT("data.hsv_h", data.detectAugment.hsvH, 0.0, 1.0, false,
                       "detection: hue jitter, a fraction")),
         when("dataset", detection,
              TB_FLOAT("data.hsv_s", data.detectAugment.hsvS, 0.0, 1.0, false,
                       "detection: saturation jitter, a fraction")),
         when("dataset", detection,
              TB_FLOAT("data.hsv_v", data.detectAugment.hsvV, 0.0, 1.0, false,
                       "detection: value (brightness) jitter, a fraction")),
         when("data.normalize", {"true"},
              TB_CHOICE("data.norm_stats", data.normStats, (Choices{"auto", "dataset", "imagenet"}),
                        "whose mean/std: the dataset's, ImageNet's (what pretrained weights "
                        "expect) or auto (ImageNet's with model.pretrained on RGB images)")),
         when("dataset", sizedImages,
              TB_INT("data.image_size", data.imageSize, kMinImageSize, kMaxImageSize,
                     "image side for imagefolder, shapes and the segmentation sets")),
         when("dataset", {"csv"},
              TB_STRING("data.csv_label", data.csvLabel, "CSV label column: name or index")),
         when("dataset", {"csv"},
              TB_CHOICE("data.csv_header", data.csvHeader, (Choices{"auto", "yes", "no"}),
                        "whether the CSV's first row is a header")),
         when("dataset", synthetic,
              TB_INT("data.synthetic_samples", data.syntheticSamples, kMinSyntheticSamples,
                     kMaxSyntheticSamples, "training samples of a synthetic set")),
         when("dataset", syntheticClasses,
              TB_INT("data.synthetic_classes", data.syntheticClasses, 2, kMaxSyntheticClasses,
                     "classes of a synthetic set (shapes has at most 6)")),
         when("dataset", {"text"},
              TB_INT("data.block_size", data.blockSize, kMinBlockSize, kMaxBlockSize,
                     "tokens per text sample: the context a language model sees")),
         when("dataset", {"text"},
              TB_CHOICE("data.vocabulary", data.vocabulary, (Choices{"char", "byte"}),
                        "text tokens: the corpus's characters, or all 256 byte values")),
         TB_INT("batch_size", batchSize, 1, 65536, "samples per micro-batch"),
         TB_BOOL("shuffle", shuffle, "reshuffle the training set every epoch"),
         TB_BOOL("drop_last", dropLast, "drop the last incomplete batch")}));
    groups.push_back(group(
        ConfigGroup::Model,
        {model,
         when("model", {"mlp"},
              TB_MODEL_OPTION("hidden", "string", "256,128", "mlp hidden widths, e.g. 256,128")),
         when("model", resnets,
              withChoices({"A", "B"},
                          TB_MODEL_OPTION("shortcut", "choice", "A",
                                          "ResNet shortcut: A parameter-free, B 1x1 conv"))),
         when("model", {"gpt"},
              withRange(1, 96, TB_MODEL_OPTION("n_layer", "int", 4, "gpt: transformer blocks"))),
         when("model", {"gpt"},
              withRange(1, 128, TB_MODEL_OPTION("n_head", "int", 4, "gpt: attention heads"))),
         when("model", {"gpt"},
              withRange(8, 16384,
                        TB_MODEL_OPTION("n_embd", "int", 128,
                                        "gpt: width of the residual stream (a multiple of "
                                        "n_head)"))),
         when("model", {"unet"},
              withRange(1, 1024,
                        TB_MODEL_OPTION("width", "int", kUnetDefaultWidth,
                                        "unet: channels of the first level, doubled at each "
                                        "level down"))),
         when("model", {"unet"},
              withRange(1, 8,
                        TB_MODEL_OPTION("depth", "int", kUnetDefaultDepth,
                                        "unet: levels down (the image's sides must be "
                                        "multiples of 2^depth)"))),
         when("model", {"fcn_resnet50", "deeplabv3_resnet50"},
              TB_MODEL_OPTION("aux_loss", "bool", false,
                              "fcn/deeplabv3: an FCN head on layer3 whose loss adds with weight "
                              "0.5 (torchvision's aux_classifier)")),
         when("model", {"fcn_resnet50", "deeplabv3_resnet50"},
              withRange(8, 16,
                        TB_MODEL_OPTION("output_stride", "int", 8,
                                        "fcn/deeplabv3: 8 (layer3 and layer4 dilated, "
                                        "torchvision's) or 16 (only layer4; ASPP at rates 6, "
                                        "12, 18): the feature map's step in pixels"))),
         when("model", {"mlp", "vgg-small", "vgg11_bn", "gpt"},
              withRange(
                  0.0, 0.99,
                  FieldBinding{makeField("model.dropout", "float",
                                         "dropout probability in the classifier (mlp 0, "
                                         "vgg-small and vgg11_bn 0.5 unless set); gpt: on "
                                         "embeddings, attention and residual branches (0)"),
                               [](RunConfig& c, const json& v) { c.modelOptions["dropout"] = v; },
                               [](const RunConfig& c) {
                                   return c.modelOptions.value("dropout",
                                                               json(defaultDropout(c.model)));
                               }})),
         // Opened when a run starts, not here: a stored run's config stays readable after its
         // weights file is gone.
         TB_MODEL_OPTION("pretrained", "string", "",
                         "weights to start from: a .safetensors or PyTorch .pth/.pt state dict "
                         "(matched by name; a head of another shape is new)"),
         TB_MODEL_OPTION("pretrained_strict", "bool", false,
                         "fail when model.pretrained lacks a tensor of the model or has one "
                         "it does not use"),
         // Kept with the model options: every spec made from the config (the run, the layer
         // table, the memory estimate) is made frozen where it should be.
         FieldBinding{
             makeField("finetune.freeze", "string",
                       "layers that keep their weights: none, backbone (all but the "
                       "classifier head; fcn/deeplabv3: backbone.*) or a layer's name (it and "
                       "all before it)"),
             [](RunConfig& c, const json& v) { c.modelOptions["freeze"] = v; },
             [](const RunConfig& c) { return c.modelOptions.value("freeze", json("none")); }},
         TB_FLOAT("finetune.head_lr_mult", headLrMult, 0.0, 1000.0, true,
                  "the classifier head's learning rate as a multiple of lr, in a parameter "
                  "group of its own (1 = the same rate)")}));
    groups.push_back(group(
        ConfigGroup::Optimization,
        {TB_INT("max_epochs", maxEpochs, 0, 100000, "epochs to train (0 = bounded by max_steps)"),
         TB_INT("max_steps", maxSteps, -1, kMaxStepCount,
                "optimizer steps to train; -1 = no limit"),
         TB_INT("accumulate_grad_batches", accumulateGradBatches, 1, 4096,
                "micro-batches per optimizer step"),
         TB_FLOAT("lr", lr, 0.0, 100.0, true, "base learning rate"),
         TB_CHOICE("optimizer", optimizer.name, (Choices{"sgd", "adamw"}), "sgd or adamw"),
         when("optimizer", {"sgd"},
              TB_FLOAT("momentum", optimizer.momentum, 0.0, 0.999, false, "SGD momentum")),
         when("optimizer", {"sgd"}, TB_BOOL("nesterov", optimizer.nesterov, "Nesterov momentum")),
         TB_FLOAT("weight_decay", optimizer.weightDecay, 0.0, 1.0, false,
                  "L2 (SGD) or decoupled (AdamW) weight decay"),
         when("optimizer", {"adamw"},
              TB_FLOAT("beta1", optimizer.beta1, 0.0, 0.9999, false, "AdamW beta1")),
         when("optimizer", {"adamw"},
              TB_FLOAT("beta2", optimizer.beta2, 0.0, 0.99999, false, "AdamW beta2")),
         when("optimizer", {"adamw"},
              TB_FLOAT("eps", optimizer.eps, 0.0, 1.0, true, "AdamW epsilon")),
         TB_CHOICE("lr_schedule", schedule.name,
                   (Choices{"constant", "step", "multistep", "cosine", "poly", "onecycle",
                            "exponential"}),
                   "learning-rate schedule by optimizer step"),
         when("lr_schedule", warmupSchedules,
              TB_INT("warmup_steps", schedule.warmupSteps, 0, kMaxStepCount,
                     "linear warm-up steps")),
         when("lr_schedule", warmupSchedules,
              TB_FLOAT("warmup_bias_lr", optimizer.warmupBiasLr, 0.0, 10.0, false,
                       "during the warm-up the biases' rate falls from this to the others' "
                       "(Ultralytics' warmup_bias_lr; 0 = the same warm-up as the weights)")),
         when("optimizer", {"sgd"},
              TB_FLOAT("warmup_momentum", optimizer.warmupMomentum, 0.0, 0.999, false,
                       "during the warm-up SGD's momentum rises from this to momentum "
                       "(Ultralytics' warmup_momentum; 0 = momentum throughout)")),
         when("lr_schedule", {"step"},
              TB_INT("lr_step_size", schedule.stepSize, 1, kMaxStepCount, "step schedule period")),
         when("lr_schedule", {"multistep"}, milestones),
         when("lr_schedule", {"step", "multistep"},
              TB_FLOAT("lr_gamma", schedule.gamma, 0.0, 1.0, true, "step/multistep decay factor")),
         when("lr_schedule", {"cosine", "poly", "exponential"},
              TB_FLOAT("min_lr", schedule.minLr, 0.0, 100.0, false,
                       "cosine and poly schedules' floor; exponential's first lr (the LR "
                       "finder's sweep)")),
         TB_FLOAT("label_smoothing", labelSmoothing, 0.0, 0.99, false,
                  "cross-entropy label smoothing"),
         when("model", detectors,
              TB_FLOAT("loss.box", detectionGains.box, 0.0, 1000.0, false,
                       "detector: the CIoU box loss's gain (Ultralytics' box)")),
         when("model", detectors,
              TB_FLOAT("loss.cls", detectionGains.cls, 0.0, 1000.0, false,
                       "detector: the classification BCE's gain (Ultralytics' cls)")),
         when("model", detectors,
              TB_FLOAT("loss.dfl", detectionGains.dfl, 0.0, 1000.0, false,
                       "detector: the distribution focal loss's gain (Ultralytics' dfl)")),
         TB_FLOAT("gradient_clip_val", gradientClipVal, 0.0, 1e9, false,
                  "clip the gradients' global L2 norm to this before each optimizer step "
                  "(clip_grad_norm_); 0 = off"),
         TB_INT("seed", seed, 0, std::numeric_limits<uint64_t>::max(),
                "seed for init, shuffling, augmentation and dropout")}));
    groups.push_back(group(
        ConfigGroup::Performance,
        {device,
         withMaxRule("hardware threads",
                     TB_INT("threads", threads, 0, hardwareThreads(),
                            "CPU compute threads; 0 = one per core, at most this machine's "
                            "hardware threads")),
         TB_INT("num_workers", numWorkers, 0, 64, "DataLoader worker threads; 0 loads inline"),
         TB_BOOL("pin_memory", pinMemory, "page-locked batches for asynchronous GPU copies"),
         TB_INT("prefetch_factor", prefetchFactor, 1, 64, "batches each worker prepares ahead"),
         TB_BOOL("deterministic", deterministic,
                 "bit-identical GPU runs for the same seed (deterministic cuDNN algorithms)"),
         TB_BOOL("flush_denormals", flushDenormals,
                 "CPU threads treat floats below 1.2e-38 as zero (FTZ+DAZ), so a run does not "
                 "slow down as weights shrink"),
         TB_CHOICE("memory_format", memoryFormat, (Choices{"auto", "channels_last"}),
                   "CPU activation layout: auto follows oneDNN's choice for this CPU, "
                   "channels_last asks for NHWC"),
         TB_CHOICE("conv_algorithm", convAlgorithm, (Choices{"auto", "direct"}),
                   "CPU convolutions: auto computes 3x3 stride-1 f32 ones whose channels are "
                   "multiples of 16 from 32 by Winograd's F(4x4,3x3) where oneDNN has it "
                   "(AVX-512, not with channels_last: 2-3x faster, 1-2e-6 relative error), "
                   "direct multiplies every tap as PyTorch's CPU does"),
         TB_INT("ranks", ranks, 1, 256,
                "processes of a data-parallel job started on this machine (mpirun -np N; sets "
                "distributed=mpi): a GPU each, or the CPU threads split between them; 1 trains "
                "in this process"),
         TB_CHOICE("distributed", distributed, (Choices{"none", "mpi"}),
                   "data-parallel training across the ranks mpirun or srun started"),
         when("distributed", {"mpi"},
              TB_CHOICE("ddp.backend", ddpBackend, (Choices{"auto", "nccl", "mpi"}),
                        "what averages gradients: NCCL on the GPUs, or MPI through host "
                        "memory; auto: NCCL for GPU ranks, MPI for CPU ranks")),
         when("distributed", {"mpi"},
              TB_INT("ddp.bucket_mb", ddpBucketMb, 0, 1024,
                     "MB of gradients per all-reduce bucket; 0 = one bucket")),
         when("distributed", {"mpi"},
              TB_BOOL("ddp.overlap", ddpOverlap,
                      "start each bucket's all-reduce while backward computes the rest")),
         when("distributed", {"mpi"},
              TB_INT("ddp.timeout_s", ddpTimeoutS, 1, 86400,
                     "seconds a rank waits for the others before the run fails")),
         when("distributed", {"mpi"},
              TB_BOOL("sync_batchnorm", syncBatchnorm,
                      "batch norm uses the statistics of every rank's batch together"))}));
    groups.push_back(
        group(ConfigGroup::Precision,
              {TB_CHOICE("precision", precision, (Choices{"32", "16-mixed", "bf16-mixed"}),
                         "32, or mixed precision with fp16 (loss scaling) or bf16 activations"),
               when("precision", {"16-mixed"},
                    TB_FLOAT("amp.init_scale", scaler.initScale, 1.0, 1e38, false,
                             "GradScaler initial scale")),
               when("precision", {"16-mixed"},
                    TB_INT("amp.growth_interval", scaler.growthInterval, 1, 1000000,
                           "clean steps before the loss scale doubles"))}));
    groups.push_back(
        group(ConfigGroup::Logging,
              {TB_STRING("name", name, "run name shown in lists (default: model-dataset)"), tags,
               TB_INT("log_every_n_steps", logEveryNSteps, 1, 100000,
                      "optimizer steps between logged points"),
               TB_STRING("checkpoint_dir", checkpointDir, "where checkpoints go"),
               TB_INT("save_every_n_epochs", saveEveryNEpochs, 0, 100000,
                      "checkpoint period in epochs; 0 = only at the end"),
               TB_INT("keep_last_checkpoints", keepLastCheckpoints, 1, 1000,
                      "epoch checkpoints kept besides the best")}));

    std::vector<FieldBinding> all;
    const RunConfig defaults;
    for (auto& g : groups)
        for (auto& b : g) {
            b.field.defaultValue = b.get(defaults);
            all.push_back(std::move(b));
        }
    return all;
}

} // namespace

#undef TB_INT
#undef TB_FLOAT
#undef TB_BOOL
#undef TB_STRING
#undef TB_CHOICE
#undef TB_MODEL_OPTION

const char* toString(ConfigGroup group) {
    switch (group) {
    case ConfigGroup::Data:
        return "data";
    case ConfigGroup::Model:
        return "model";
    case ConfigGroup::Optimization:
        return "optimization";
    case ConfigGroup::Performance:
        return "performance";
    case ConfigGroup::Precision:
        return "precision";
    case ConfigGroup::Logging:
        return "logging";
    }
    return "?";
}

bool ConfigField::appliesTo(const RunConfig& config) const {
    if (appliesWhenKey.empty())
        return true;
    const FieldBinding& controller = binding(appliesWhenKey);
    const json current = controller.get(config);
    const std::string value = current.is_string() ? current.get<std::string>() : current.dump();
    // A key that depends on one that does not apply does not apply either (data.norm_stats
    // under data.normalize, which a text set has no use for).
    return std::find(appliesWhenValues.begin(), appliesWhenValues.end(), value) !=
               appliesWhenValues.end() &&
           controller.field.appliesTo(config);
}

const std::vector<ConfigField>& configSchema() {
    static const std::vector<ConfigField> fields = [] {
        std::vector<ConfigField> out;
        for (const auto& b : bindings())
            out.push_back(b.field);
        return out;
    }();
    return fields;
}

const ConfigField* findConfigField(const std::string& key) {
    for (const ConfigField& f : configSchema())
        if (f.key == key)
            return &f;
    return nullptr;
}

bool isLoggingKey(const std::string& key) {
    const ConfigField* field = findConfigField(key);
    return field && field->group == ConfigGroup::Logging;
}

std::optional<std::string> validateField(const std::string& key, const std::string& text) {
    try {
        const FieldBinding& b = binding(key);
        (void)checkValue(b, fromText(b.field, text));
        return std::nullopt;
    } catch (const ConfigError& e) {
        return std::string(e.what());
    }
}

void RunConfig::set(const std::string& key, const std::string& value) {
    const FieldBinding& b = binding(key);
    b.assign(*this, checkValue(b, fromText(b.field, value)));
    m_implied.erase(key);
    impliedBy(key);
}

void RunConfig::setJson(const std::string& key, const json& value) {
    const FieldBinding& b = binding(key);
    b.assign(*this, checkValue(b, value));
    m_implied.erase(key);
    impliedBy(key);
}

// A job of several ranks is data-parallel: asking for one says distributed=mpi too, so the
// ddp.* keys apply (and show) at once. A detection set asks for a detector, and a detector for
// Ultralytics' recipe (its optimizer=auto for short runs: AdamW, warm-up, gradients clipped at
// 10): each only where the other key is still at its default or holds what an earlier key
// implied, so a key set on purpose stays.
void RunConfig::impliedBy(const std::string& key) {
    if (key == "ranks" && ranks > 1 && distributed == "none")
        distributed = "mpi";
    const RunConfig defaults;
    auto atDefault = [&](const char* k) {
        return binding(k).get(*this) == binding(k).get(defaults);
    };
    auto imply = [&](const char* k, const json& value) {
        if (atDefault(k) || m_implied.count(k)) {
            binding(k).assign(*this, value);
            m_implied.insert(k);
        }
    };
    if (key == "dataset" && isDetectionDataset(data.name)) {
        imply("model", "yolov8n");
    }
    // A segmentation set: a U-Net; shapes-seg at 32 px, where it learns its shapes in about a
    // minute on two cores, the file sets at 128.
    if (key == "dataset" && isSegmentationDataset(data.name)) {
        imply("model", "unet");
        imply("data.image_size", data.name == "shapes-seg" ? 32 : 128);
    }
    // The U-Net trains from scratch with AdamW at 2e-3 (SGD's 0.1 default overshoots it), in
    // batches of 16: on 2,000 small scenes, four times the steps of an epoch at 64 learn more.
    if ((key == "model" || key == "dataset") && model == "unet") {
        imply("optimizer", "adamw");
        imply("lr", 0.002);
        imply("batch_size", 16);
    }
    // torchvision's segmentation reference (references/segmentation): SGD with momentum 0.9 at
    // 0.02, weight decay 1e-4, the poly schedule, 4 images a batch, the auxiliary head on.
    if ((key == "model" || key == "dataset") && isTorchvisionSegmentation(model)) {
        imply("optimizer", "sgd");
        imply("lr", 0.02);
        imply("weight_decay", 0.0001);
        imply("lr_schedule", "poly");
        imply("batch_size", 4);
        imply("model.aux_loss", true);
    }
    if ((key == "model" || key == "dataset") && isYoloV8(model)) {
        imply("optimizer", "adamw");
        imply("lr", 0.001);
        imply("weight_decay", 0.0005);
        imply("gradient_clip_val", 10.0);
        imply("warmup_steps", 100);
    }
    // Ultralytics' SGD (optimizer=SGD): Nesterov momentum 0.937, warmed up from 0.8, and the
    // biases' rate warmed down from 0.1. Its AdamW (optimizer=auto) warms the biases like the
    // rest, as the defaults do.
    if ((key == "optimizer" || key == "model" || key == "dataset") && isYoloV8(model) &&
        optimizer.name == "sgd") {
        imply("momentum", 0.937);
        imply("nesterov", true);
        imply("warmup_momentum", 0.8);
        imply("warmup_bias_lr", 0.1);
    }
}

void RunConfig::applyJson(const json& object, const std::string& prefix) {
    applyJsonKeys(object, prefix, true);
    // The object's own values win over what its other keys implied: the keys come in the
    // object's (alphabetical) order, so a saved "lr": 0.1 would otherwise give way to the
    // detector's 0.001 that "model" implies after it.
    applyJsonKeys(object, prefix, false);
}

void RunConfig::applyJsonKeys(const json& object, const std::string& prefix, bool implying) {
    if (!object.is_object())
        bad(prefix.empty() ? "config" : prefix, "must be a JSON object");
    for (const auto& [k, v] : object.items()) {
        const std::string key = prefix.empty() ? k : prefix + "." + k;
        if (v.is_object())
            applyJsonKeys(v, key, implying);
        else if (implying)
            setJson(key, v);
        else {
            binding(key).assign(*this, checkValue(binding(key), v));
            m_implied.erase(key);
        }
    }
}

void RunConfig::validate() const {
    if (ranks > 1 && distributed != "mpi")
        bad("distributed", "ranks=" + std::to_string(ranks) +
                               " trains a data-parallel job, which needs distributed=mpi");
    if (maxEpochs == 0 && maxSteps < 0)
        bad("max_epochs", "0 with max_steps = -1 would never stop; set one of them");
    if (maxSteps == 0)
        bad("max_steps", "must be -1 (no limit) or at least 1");
    if (schedule.name == "exponential" && !(schedule.minLr > 0.0f && schedule.minLr < lr))
        bad("min_lr", "the exponential schedule rises from min_lr to lr: min_lr must be above 0 "
                      "and below lr");
    if (schedule.name == "multistep" && schedule.milestones.empty())
        bad("lr_milestones", "the multistep schedule needs at least one milestone");
    if (data.name == "shapes" && data.syntheticClasses > ShapesDataset::kMaxClasses)
        bad("data.synthetic_classes", std::to_string(data.syntheticClasses) + " is more than the " +
                                          std::to_string(ShapesDataset::kMaxClasses) +
                                          " shapes the shapes dataset draws");
    if (isDetectionDataset(data.name) && data.detectSize != 0 &&
        (data.detectSize % kDetectStride != 0 || data.detectSize < kMinDetectSize))
        bad("data.imgsz", std::to_string(data.detectSize) + " is not a multiple of " +
                              std::to_string(kDetectStride) +
                              " (the detector's largest stride) from " +
                              std::to_string(kMinDetectSize) + " to " +
                              std::to_string(kMaxDetectSize) + ", or 0 for the set's own");
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

MemoryFormat memoryFormatOf(const std::string& value, const std::string& field) {
    if (value == "auto")
        return MemoryFormat::Auto;
    if (value == "channels_last")
        return MemoryFormat::ChannelsLast;
    throw ConfigError(field, "'" + value + "' must be auto or channels_last");
}

ConvAlgorithm convAlgorithmOf(const std::string& value, const std::string& field) {
    if (value == "auto")
        return ConvAlgorithm::Auto;
    if (value == "direct")
        return ConvAlgorithm::Direct;
    throw ConfigError(field, "'" + value + "' must be auto or direct");
}

} // namespace tb
