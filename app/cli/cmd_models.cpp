// trainbench-cli models and summary: the zoo and a model's layer table.
#include "args.h"
#include "commands.h"
#include "llmsummary.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "train/memoryestimate.h"
#include "train/modelplan.h"
#include "train/runconfig.h"

#include <algorithm>
#include <cstdio>

namespace tb::cli {

int cmdModels(const Argv& argv) {
    const Args args(argv, specOf("models"));
    if (args.flag("help")) {
        std::puts(
            "usage: trainbench-cli models [--json]\n\nLists the model zoo: each model's name, "
            "default input shape and description.");
        return 0;
    }
    if (args.flag("json")) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& m : modelZoo())
            out.push_back({{"name", m.name},
                           {"description", m.description},
                           {"input", m.defaultInput.toString()}});
        std::printf("%s\n", out.dump().c_str());
        return 0;
    }
    std::printf("%-12s %-10s %s\n", "model", "input", "description");
    for (const auto& m : modelZoo())
        std::printf("%-12s %-10s %s\n", m.name.c_str(), m.defaultInput.toString().c_str(),
                    m.description.c_str());
    return 0;
}

int cmdSummary(const Argv& argv) {
    const Args args(argv, specOf("summary"));
    if (args.flag("help")) {
        std::puts("usage: trainbench-cli summary [--model fmnist-cnn|spec.json] [--input C,H,W]\n"
                  "                              [--classes 10] [--batch 1] [--precision 32]\n"
                  "                              [--optimizer sgd|adamw] [--hidden 256,128]\n"
                  "                              [--shortcut A|B] [--n-layer 4] [--n-head 4]\n"
                  "                              [--n-embd 128] [--json]\n\n"
                  "Prints the layer table (output shapes, parameters, FLOPs, activations) and the\n"
                  "training memory estimate at the given batch size. --model gpt --input 256\n"
                  "--classes 65: a GPT's, its context 256 tokens of a 65-token vocabulary.\n\n"
                  "usage: trainbench-cli summary --params N | --preset NAME [--layers L]\n"
                  "                              [--width D] [--heads A] [--context S]\n"
                  "                              [--vocab V] [--training] [--precision P]\n"
                  "                              [--optimizer adamw|sgd|sgd-plain] [--batch B]\n"
                  "                              [--accumulate K] [--checkpointing]\n"
                  "                              [--attention flash|eager] [--json]\n\n"
                  "What a transformer language model needs in GPU memory, for inference (the\n"
                  "default) or training: weights, gradients, optimizer state, activations, logits\n"
                  "and KV cache, and which common GPUs hold it. --attention eager stores the\n"
                  "attention scores, which grow with the context squared; flash (the default,\n"
                  "PyTorch 2's fused kernel) never does. --params 7e9 (or 7B, 124M) takes the "
                  "shape of the\n"
                  "nearest preset: shakespeare-char, gpt2, gpt2-medium, gpt2-large, gpt2-xl,\n"
                  "llama-7b, llama-13b, llama-70b. Precisions: 32-true, 16-mixed, bf16-mixed,\n"
                  "16-true, bf16-true, and int8 or int4 weights for inference.");
        return 0;
    }
    if (wantsLlmMemory(args))
        return printLlmMemory(args);
    const std::string model = args.valueOr("model", "fmnist-cnn");
    Shape input = zooInputShape(model, {1, 28, 28});
    if (const auto in = args.value("input"))
        input = Shape::parse(*in, "--input");
    const int classes = static_cast<int>(args.intValue("classes", 2).value_or(10));
    const int64_t batch = args.intValue("batch", 1).value_or(1);
    const nlohmann::json options = args.modelOptions();
    const std::string precision = args.valueOr("precision", "32");
    OptimizerConfig optimizer;
    optimizer.name = args.valueOr("optimizer", "sgd");
    if (optimizer.name != "sgd" && optimizer.name != "adamw")
        throw ConfigError("--optimizer", "'" + optimizer.name + "' must be sgd or adamw");
    const DType actDtype = activationDtypeOf(precision, "--precision");
    // Shapes only: a model too large for this machine still gets its table.
    const ModelPlan plan(modelSpec(model, input, classes, options), actDtype);
    const auto rows = plan.layers(batch);
    const MemoryEstimate memory = plan.estimate(batch, optimizer);
    if (args.flag("json")) {
        nlohmann::json layers = nlohmann::json::array();
        for (const auto& r : rows)
            layers.push_back({{"name", r.name},
                              {"type", r.type},
                              {"inputs", r.inputs},
                              {"output", r.output.toString()},
                              {"params", r.params},
                              {"flops", r.flops},
                              {"activation_bytes", r.activationBytes},
                              {"in_place", r.inPlace}});
        const nlohmann::json out = {{"model", model},
                                    {"batch", batch},
                                    {"precision", precision},
                                    {"optimizer", optimizer.name},
                                    {"layers", layers},
                                    {"training_memory",
                                     {{"weights", memory.weights},
                                      {"gradients", memory.gradients},
                                      {"optimizer_state", memory.optimizerState},
                                      {"activations", memory.activations},
                                      {"activation_gradients", memory.activationGradients},
                                      {"total", memory.total()}}}};
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    std::printf("%s, input %s, batch %lld\n\n", model.c_str(), input.toString().c_str(),
                static_cast<long long>(batch));
    // Columns as wide as their longest entry (a GPT's "transformer.h.0.attn.c_attn").
    int nameWidth = 22, typeWidth = 14;
    for (const auto& r : rows) {
        nameWidth = std::max(nameWidth, static_cast<int>(r.name.size()));
        typeWidth = std::max(typeWidth, static_cast<int>(r.type.size()));
    }
    std::printf("%-*s %-*s %-16s %10s %10s %12s\n", nameWidth, "layer", typeWidth, "type", "output",
                "params", "FLOPs", "activations");
    int64_t params = 0, flops = 0, act = 0;
    for (const auto& r : rows) {
        std::printf("%-*s %-*s %-16s %10s %10s %12s\n", nameWidth, r.name.c_str(), typeWidth,
                    r.type.c_str(), r.output.toString().c_str(), formatMagnitude(r.params).c_str(),
                    formatMagnitude(r.flops).c_str(),
                    r.inPlace ? "in place"
                              : formatBytes(static_cast<uint64_t>(r.activationBytes)).c_str());
        params += r.params;
        flops += r.flops;
        act += r.activationBytes;
    }
    std::printf("\ntotal: %s parameters (%s as f32), %s FLOPs forward, %s of activations\n",
                formatMagnitude(params).c_str(),
                formatBytes(static_cast<uint64_t>(params) * 4).c_str(),
                formatMagnitude(flops).c_str(), formatBytes(static_cast<uint64_t>(act)).c_str());
    const auto fmt = [](int64_t b) { return formatBytes(static_cast<uint64_t>(b)); };
    std::printf("training memory at batch %lld (%s, %s): about %s = weights %s + gradients %s + "
                "optimizer %s + activations %s + activation gradients %s, plus library "
                "workspaces\n",
                static_cast<long long>(batch), precision.c_str(), optimizer.name.c_str(),
                fmt(memory.total()).c_str(), fmt(memory.weights).c_str(),
                fmt(memory.gradients).c_str(), fmt(memory.optimizerState).c_str(),
                fmt(memory.activations).c_str(), fmt(memory.activationGradients).c_str());
    return 0;
}

} // namespace tb::cli
