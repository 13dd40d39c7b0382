// The trainbench-cli commands. Each lives in its own cmd_<name>.cpp and returns the exit code;
// errors are thrown as tb::Error and printed by main(). The table of commands, with what each
// accepts, is the one place options are written: the commands parse with it, and the man page
// and the bash completion are generated from it.
#pragma once

#include "args.h"

#include <string>
#include <vector>

namespace tb::cli {

using Argv = std::vector<std::string>;

struct Command {
    const char* name;
    int (*run)(const Argv&);
    const char* summary;
    ArgSpec spec;
    std::vector<std::string> subcommands; // first words it takes: runs list, experiment run
};

// Every command, in the order `trainbench-cli --help` lists them.
const std::vector<Command>& commands();
// The options of the command `name` (one of commands()).
const ArgSpec& specOf(const std::string& name);

int cmdModels(const Argv& argv);
int cmdSummary(const Argv& argv);
int cmdTrain(const Argv& argv);
int cmdBench(const Argv& argv);
int cmdDatasets(const Argv& argv);
int cmdDatasetInfo(const Argv& argv);
int cmdBenchData(const Argv& argv);
int cmdDatasetExport(const Argv& argv);
int cmdRuns(const Argv& argv);
int cmdDoctor(const Argv& argv);
int cmdExperiment(const Argv& argv);
int cmdLrFind(const Argv& argv);
int cmdProfile(const Argv& argv);
int cmdGenerate(const Argv& argv);
int cmdExport(const Argv& argv);
int cmdSweep(const Argv& argv);
int cmdPredict(const Argv& argv);
int cmdEvaluate(const Argv& argv);
int cmdBatchFind(const Argv& argv);
int cmdCompletion(const Argv& argv);
int cmdMan(const Argv& argv);
int cmdConfigKeys(const Argv& argv);

} // namespace tb::cli
