// applyConfigArgs: a config file's values, then --set, then the cross-field checks.
#include "configargs.h"

#include "core/errors.h"
#include "io/jsontext.h"
#include "train/runconfig.h"

namespace tb::cli {

void applyConfigArgs(const Args& args, RunConfig& config) {
    if (const auto file = args.value("config")) {
        std::string text; // a file, or a pipe: --config <(generate)
        try {
            text = readJsonText(*file);
        } catch (const DatasetError& e) {
            throw ConfigError("--config", e.what());
        }
        config.applyJson(parseJson(text, *file));
    }
    for (const std::string& kv : args.values("set")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ConfigError("--set", "'" + kv + "' must look like key=value");
        config.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
    config.validate();
}

} // namespace tb::cli
