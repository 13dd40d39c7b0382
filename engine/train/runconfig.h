// RunConfig: every setting of a training run, with PyTorch/Lightning key names. Each key has a
// schema entry (type, default, range or choices, group, when it applies, help) so a form can be
// generated from it and every value is validated on its own, naming the key, before anything
// runs.
#pragma once

#include "backend/opdesc.h"
#include "core/dtype.h"
#include "data/dataconfig.h"
#include "optim/gradscaler.h"
#include "optim/lrschedule.h"
#include "optim/optimizer.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tb {

struct RunConfig {
    std::string name; // run name; empty = "<model>-<dataset>"
    std::vector<std::string> tags;
    std::string model = "fmnist-cnn";
    nlohmann::json modelOptions = nlohmann::json::object(); // model.hidden, model.shortcut, ...
    DataConfig data;
    int64_t batchSize = 64;
    int numWorkers = 1;
    bool pinMemory = false;
    int prefetchFactor = 2;
    bool shuffle = true;
    bool dropLast = false;
    std::string precision = "32"; // 32 | 16-mixed | bf16-mixed
    int accumulateGradBatches = 1;
    int64_t maxEpochs = 2;
    int64_t maxSteps = -1; // optimizer steps; -1 = no limit
    float lr = 0.05f;
    float headLrMult = 1.0f; // finetune.head_lr_mult: the classifier head's lr over lr
    OptimizerConfig optimizer;
    ScheduleConfig schedule;
    float labelSmoothing = 0.0f;
    float gradientClipVal = 0.0f; // global gradient norm clipped to this; 0 = off
    // A detector's loss gains (Ultralytics' box, cls, dfl).
    struct {
        float box = 7.5f, cls = 0.5f, dfl = 1.5f;
    } detectionGains;
    uint64_t seed = 0;
    std::string device = "auto";
    bool deterministic = false; // GPU: deterministic cuDNN algorithms (the CPU always is)
    int threads = 0;            // CPU compute pool; 0 = one per core
    bool flushDenormals = true; // FTZ+DAZ on every CPU thread that computes (core/floatenv.h)
    std::string memoryFormat = "auto";  // CPU activations: auto | channels_last
    std::string convAlgorithm = "auto"; // CPU convolutions: auto (Winograd where faster) | direct
    int logEveryNSteps = 10;            // optimizer steps between StepEvents (and loss read-backs)
    std::string checkpointDir;          // empty = next to the run store
    int saveEveryNEpochs = 1;           // 0 = only at the end or when stopped
    int keepLastCheckpoints = 2;
    GradScalerConfig scaler;
    // Data-parallel training: "none", or "mpi" (ranks from mpirun or srun; NCCL carries the
    // gradients of GPU ranks where the plugin has it, MPI those of CPU ranks).
    std::string distributed = "none";
    int ranks = 1; // > 1: a data-parallel job of this many processes on this machine (mpirun)
    std::string ddpBackend = "auto"; // gradients over NCCL (GPU ranks) or MPI; auto: NCCL on GPUs
    int ddpBucketMb = 25;            // gradient bucket size; 0 = one bucket, reduced after backward
    bool ddpOverlap = true;          // start each bucket's all-reduce as backward finishes it
    int ddpTimeoutS = 300;      // a collective not done by then fails the run: a rank died or hangs
    bool syncBatchnorm = false; // batch norm over every rank's batch together (SyncBatchNorm)

    // Sets one key from text ("batch_size", "64"). Throws ConfigError naming the key.
    void set(const std::string& key, const std::string& value);
    // Sets one key from a JSON value (config files). Throws ConfigError naming the key.
    void setJson(const std::string& key, const nlohmann::json& value);
    // Applies a config file's object; nested objects become dotted keys ("data": {"root": ...}).
    void applyJson(const nlohmann::json& object, const std::string& prefix = "");
    // Cross-field checks (e.g. max_epochs and max_steps both 0), for a whole config built from
    // values that each passed validateField(). Throws ConfigError naming a key.
    void validate() const;
    nlohmann::json toJson() const;
    static RunConfig fromJson(const nlohmann::json& object);

    bool mixedPrecision() const { return precision != "32"; }
    std::string displayName() const;

private:
    // What setting `key` implies for another key (ranks > 1: distributed=mpi).
    void impliedBy(const std::string& key);
    // applyJson's passes: each key set with what it implies, then each set as it is.
    void applyJsonKeys(const nlohmann::json& object, const std::string& prefix, bool implying);

    // Keys whose value another key implied, not the user: a later implication may replace it
    // (a segmentation set implies unet's recipe; choosing fcn_resnet50 after it, torchvision's).
    std::set<std::string> m_implied;
};

// The section of a form (and of `train --help`) a key belongs to.
enum class ConfigGroup { Data, Model, Optimization, Performance, Precision, Logging };
const char* toString(ConfigGroup group);

// One configurable key, as data a form is generated from: what it holds, its default, the
// allowed range or choices, where it goes and when it matters.
struct ConfigField {
    std::string key;
    std::string type; // int | float | bool | string | choice | list
    // choice: the allowed values. string: suggestions (model also takes a spec .json path).
    std::vector<std::string> choices;
    std::string help;
    ConfigGroup group = ConfigGroup::Optimization;
    nlohmann::json defaultValue; // as toJson() writes it
    // Numeric range, inclusive (exclusive at min when minOpen); null where unbounded. Integers
    // stay exact (seed's max is 2^64 - 1).
    nlohmann::json min, max;
    bool minOpen = false;
    // A max that is this machine's (threads: its hardware threads), as the rule the docs print
    // instead of the number; empty where the max is the same everywhere.
    std::string maxRule;
    // The key matters only while appliesWhenKey has one of appliesWhenValues (momentum only for
    // optimizer=sgd); an empty appliesWhenKey means always.
    std::string appliesWhenKey;
    std::vector<std::string> appliesWhenValues;

    bool appliesTo(const RunConfig& config) const;
};

// Every key in form order, grouped. The same table drives set(), toJson() and validation, so
// they cannot disagree.
const std::vector<ConfigField>& configSchema();
// The field of a key, or nullptr for an unknown key.
const ConfigField* findConfigField(const std::string& key);
// A logging key (name, tags, checkpoint_dir, ...) says where a run's results went, not how it
// trained: comparisons of what differed between runs leave these out.
bool isLoggingKey(const std::string& key);

// Checks one value as typed (the text --set takes), without a RunConfig: nullopt when valid,
// else the message (naming the key). Cross-field rules are RunConfig::validate()'s.
std::optional<std::string> validateField(const std::string& key, const std::string& text);

// The activation dtype of a `precision` value: f32 for 32, f16 for 16-mixed, bf16 for
// bf16-mixed. Throws ConfigError(field) for anything else.
DType activationDtypeOf(const std::string& precision, const std::string& field = "precision");

// The MemoryFormat of a `memory_format` value (auto, channels_last). Throws ConfigError(field).
MemoryFormat memoryFormatOf(const std::string& value, const std::string& field = "memory_format");
// The ConvAlgorithm of a `conv_algorithm` value (auto, direct). Throws ConfigError(field).
ConvAlgorithm convAlgorithmOf(const std::string& value,
                              const std::string& field = "conv_algorithm");

} // namespace tb
