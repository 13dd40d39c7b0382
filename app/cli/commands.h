// The trainbench-cli commands. Each lives in its own cmd_<name>.cpp and returns the exit code;
// errors are thrown as tb::Error and printed by main().
#pragma once

#include <string>
#include <vector>

namespace tb::cli {

using Argv = std::vector<std::string>;

int cmdModels(const Argv& argv);
int cmdSummary(const Argv& argv);
int cmdTrain(const Argv& argv);
int cmdBench(const Argv& argv);
int cmdDatasets(const Argv& argv);
int cmdDatasetInfo(const Argv& argv);
int cmdBenchData(const Argv& argv);
int cmdRuns(const Argv& argv);
int cmdDoctor(const Argv& argv);
int cmdExperiment(const Argv& argv);
int cmdLrFind(const Argv& argv);
int cmdBatchFind(const Argv& argv);

} // namespace tb::cli
