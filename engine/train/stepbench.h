// Times full training steps (forward, loss, backward, SGD update) of a zoo model on an
// in-memory synthetic batch, so the data loader is not measured.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tb {

struct StepBenchOptions {
    std::string model = "mlp";
    std::string input; // sample shape "3x32x32"; empty = the model's default
    int64_t batch = 128;
    int steps = 30;
    int warmup = 5;
    int threads = 0;
    std::string device = "cpu";
    std::string precision = "32";
    nlohmann::json modelOptions = nlohmann::json::object();
};

struct StepBenchResult {
    std::string device;
    std::string backend;
    double medianStepMs = 0.0;
    double p90StepMs = 0.0;
    double maxStepMs = 0.0;
    double samplesPerSec = 0.0;
    double peakRssMb = 0.0;
    double peakDeviceMb = 0.0;
};

StepBenchResult benchmarkSteps(const StepBenchOptions& options);

} // namespace tb
