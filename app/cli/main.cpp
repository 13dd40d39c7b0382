// trainbench-cli: finds the command and prints any engine error as one paragraph.
#include "commands.h"

#include "core/errors.h"
#include "core/processenv.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

namespace {

struct Command {
    const char* name;
    int (*run)(const tb::cli::Argv&);
    const char* help;
};

constexpr Command kCommands[] = {
    {"train", tb::cli::cmdTrain, "train a model (the default: fmnist-cnn on Fashion-MNIST)"},
    {"models", tb::cli::cmdModels, "list the model zoo"},
    {"summary", tb::cli::cmdSummary, "print a model's layer table"},
    {"bench", tb::cli::cmdBench, "time training steps on synthetic batches"},
    {"datasets", tb::cli::cmdDatasets, "list the datasets and whether this machine has them"},
    {"dataset-info", tb::cli::cmdDatasetInfo, "sizes, classes, statistics and a sample grid"},
    {"bench-data", tb::cli::cmdBenchData, "time the DataLoader alone (samples/s)"},
    {"runs", tb::cli::cmdRuns, "list, show, compare, export and edit recorded runs"},
    {"experiment", tb::cli::cmdExperiment,
     "run a teaching experiment: a short sweep of one knob with a measured conclusion"},
    {"lr-find", tb::cli::cmdLrFind, "the learning-rate range test: loss against lr, a suggestion"},
    {"batch-find", tb::cli::cmdBatchFind, "the largest batch_size that trains on the device"},
    {"doctor", tb::cli::cmdDoctor,
     "check CPU, GPU, driver, CUDA and cuDNN; say why a GPU is unused"},
};

// The exit code once standard output is flushed and closed: its last bytes are written only
// here, and a full disk or a closed pipe behind it must not pass for success.
int closeStdout(const char* command, int code) {
    std::cout.flush();
    const bool written = std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout);
    if (std::fclose(stdout) != 0 || !written) {
        std::fprintf(stderr, "trainbench-cli %s: error: writing the output failed: %s\n", command,
                     std::strerror(errno));
        return code == 0 ? 1 : code;
    }
    return code;
}

void printUsage() {
    std::puts("usage: trainbench-cli COMMAND [options]\n\ncommands:");
    for (const Command& c : kCommands)
        std::printf("  %-14s %s\n", c.name, c.help);
    std::puts("\nRun 'trainbench-cli COMMAND --help' for a command's options.");
}

} // namespace

int main(int argc, char** argv) {
    tb::applyComputeEnvironment(argv);
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        printUsage();
        return argc < 2 ? 2 : 0;
    }
    const std::string_view name = argv[1];
    for (const Command& c : kCommands) {
        if (name != c.name)
            continue;
        try {
            return closeStdout(c.name, c.run(tb::cli::Argv(argv + 2, argv + argc)));
        } catch (const tb::Error& e) {
            std::fprintf(stderr, "trainbench-cli %s: error: %s\n", c.name, e.what());
            return 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "trainbench-cli %s: internal error: %s\n", c.name, e.what());
            return 3;
        }
    }
    std::fprintf(stderr, "trainbench-cli: unknown command '%s'\n\n", argv[1]);
    printUsage();
    return 2;
}
