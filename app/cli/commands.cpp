// The table of trainbench-cli's commands and their options.
#include "commands.h"

#include "core/errors.h"

namespace tb::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"train",
         cmdTrain,
         "train a model (the default: fmnist-cnn on Fashion-MNIST)",
         {{"config", "set", "db", "resume", "nproc", "run-id"}, {"json", "no-db", "quiet"}},
         {}},
        {"models", cmdModels, "list the model zoo", {{}, {"json"}}, {}},
        {"summary",
         cmdSummary,
         "print a model's layer table, or what a language model needs in GPU memory",
         {{"model", "input", "classes", "batch", "hidden", "shortcut", "precision", "optimizer",
           "params", "preset", "layers", "width", "heads", "context", "vocab", "accumulate"},
          {"json", "training", "checkpointing"}},
         {}},
        {"bench",
         cmdBench,
         "time training steps on synthetic batches",
         {{"model", "input", "batch", "steps", "warmup", "threads", "device", "precision",
           "memory-format", "hidden", "shortcut"},
          {"json", "compare-cpu"}},
         {}},
        {"datasets",
         cmdDatasets,
         "list the datasets and whether this machine has them",
         {{}, {"json"}},
         {}},
        {"dataset-info",
         cmdDatasetInfo,
         "sizes, classes, statistics and a sample grid",
         {{"dataset", "set", "grid"}, {"json"}},
         {}},
        {"dataset-export",
         cmdDatasetExport,
         "write a dataset's images as an ImageFolder of JPEG or PNG files",
         {{"set", "format", "size", "quality", "limit"}, {"json"}, true},
         {}},
        {"bench-data",
         cmdBenchData,
         "time the DataLoader alone (samples/s)",
         {{"dataset", "batch", "workers", "prefetch", "batches", "seed", "set"},
          {"json", "augment", "pin-memory"}},
         {}},
        {"runs",
         cmdRuns,
         "list, show, compare, export, profile and edit recorded runs",
         {{"db", "status", "model", "dataset", "tag", "limit", "epochs", "format", "out", "metric",
           "x", "group-by", "target"},
          {"json"},
          true},
         {"list", "show", "compare", "export", "watch", "profile", "rename", "tag", "untag", "note",
          "delete", "check"}},
        {"experiment",
         cmdExperiment,
         "run a teaching experiment: a short sweep of one knob with a measured conclusion",
         {{"config", "set", "db", "steps", "repeats"}, {"json", "no-db", "quiet"}, true},
         {"list", "run"}},
        {"lr-find",
         cmdLrFind,
         "the learning-rate range test: loss against lr, a suggestion",
         {{"config", "set", "db", "steps", "min-lr", "max-lr"}, {"json", "no-db"}},
         {}},
        {"profile",
         cmdProfile,
         "time a few steps layer by layer under the machine's roofline",
         {{"config", "set", "db", "steps", "warmup", "trace", "from", "nproc"}, {"json", "no-db"}},
         {}},
        {"batch-find",
         cmdBatchFind,
         "the largest batch_size that trains on the device",
         {{"config", "set", "start", "max-batch", "steps", "memory-limit-mb"}, {"json"}},
         {}},
        {"doctor",
         cmdDoctor,
         "check CPU, GPU, driver, CUDA and cuDNN; say why a GPU is unused",
         {{}, {"json"}},
         {}},
        {"config-keys",
         cmdConfigKeys,
         "every config key with its type, default and meaning",
         {{}, {"markdown"}},
         {}},
        {"completion", cmdCompletion, "a bash completion script", {{}, {}, true}, {"bash"}},
        {"man",
         cmdMan,
         "a manual page (trainbench-cli or trainbench), in roff",
         {{}, {}, true},
         {"trainbench-cli", "trainbench"}},
    };
    return table;
}

const ArgSpec& specOf(const std::string& name) {
    for (const Command& c : commands())
        if (name == c.name)
            return c.spec;
    throw Error("no trainbench-cli command is called " + name);
}

} // namespace tb::cli
