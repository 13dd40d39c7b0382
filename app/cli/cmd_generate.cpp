// trainbench-cli generate: text from a trained language model (a run in the store, or a
// checkpoint file), continuing a prompt.
#include "args.h"
#include "commands.h"
#include "storedcheckpoint.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "store/runstore.h"
#include "train/textgenerator.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tb::cli {

int cmdGenerate(const Argv& argv) {
    const Args args(argv, specOf("generate"));
    if (args.flag("help") || args.positional().size() != 1) {
        std::puts(
            "usage: trainbench-cli generate RUN_ID|CHECKPOINT [--prompt TEXT] [--tokens 200]\n"
            "                               [--temperature 0.8] [--top-k 0] [--seed 0]\n"
            "                               [--device cpu|cuda:N] [--db PATH] [--no-db]\n"
            "                               [--json]\n\n"
            "Samples text from a language model trained on dataset=text: the prompt (in\n"
            "the model's own vocabulary, saved with its checkpoints), then --tokens more,\n"
            "each drawn from the model's next-token distribution at --temperature (lower:\n"
            "safer, higher: wilder; 0 is greedy, always the most likely token, the same as\n"
            "--top-k 1), from the --top-k most likely only when given. The same seed gives\n"
            "the same text.");
        return args.flag("help") ? 0 : 2;
    }
    const std::string databasePath =
        args.flag("no-db") ? std::string() : args.valueOr("db", defaultDatabasePath());
    const StoredCheckpoint stored = findCheckpoint(args.positional()[0], databasePath, "RUN");
    GenerateOptions options;
    options.prompt = args.valueOr("prompt", "");
    options.tokens = static_cast<int>(args.intValue("tokens", 1, 100000).value_or(200));
    options.topK = static_cast<int>(args.intValue("top-k", 0, 1 << 20).value_or(0));
    options.seed = static_cast<uint64_t>(args.intValue("seed", 0).value_or(0));
    const std::string temperature = args.valueOr("temperature", "0.8");
    try {
        options.temperature = std::stof(temperature);
    } catch (const std::exception&) {
        throw ConfigError("--temperature", "'" + temperature + "' is not a number");
    }
    const auto generator = TextGenerator::fromCheckpoint(
        stored.checkpoint, resolveDevice(args.valueOr("device", "cpu")), 0);
    const std::string text = generator->generate(options);
    if (args.flag("json")) {
        nlohmann::json out{{"checkpoint", stored.checkpoint},
                           {"prompt", options.prompt},
                           {"tokens", options.tokens},
                           {"temperature", options.temperature},
                           {"top_k", options.topK},
                           {"seed", options.seed},
                           {"text", text}};
        if (!stored.runId.empty())
            out["run_id"] = stored.runId;
        std::printf("%s\n",
                    out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return 0;
    }
    std::printf("%s\n", text.c_str());
    return 0;
}

} // namespace tb::cli
