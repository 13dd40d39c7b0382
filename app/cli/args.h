// Command-line arguments of one trainbench-cli command: positionals, --key value options and
// --flags. Options may repeat (--set a=1 --set b=2). Each command declares what it accepts, so a
// mistyped option or a stray word is an error instead of being ignored.
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tb::cli {

// What one command accepts. --help and -h are accepted by every command.
struct ArgSpec {
    std::vector<std::string> options; // take a value: --name VALUE or --name=VALUE
    std::vector<std::string> flags;   // take none: --name
    bool positionals = false;         // whether bare words (run ids, subcommands) are allowed
};

class Args {
public:
    // argv after the command name. Throws ConfigError naming the word for an unknown option, a
    // stray word, a missing or empty value, or a value given to a flag. When --help or -h is
    // present nothing else is checked: flag("help") is true and the command prints its usage.
    Args(const std::vector<std::string>& argv, const ArgSpec& spec);

    const std::vector<std::string>& positional() const { return m_positional; }
    bool flag(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;
    std::string valueOr(const std::string& name, const std::string& fallback) const;
    // Integer option; throws ConfigError naming the option when it is not a whole number in
    // [min, max].
    std::optional<long long> intValue(const std::string& name, long long min = 0,
                                      long long max = std::numeric_limits<long long>::max()) const;

    // Number option; throws ConfigError naming the option when it is not a finite number in
    // [min, max].
    std::optional<double> floatValue(const std::string& name, double min, double max) const;

    // The zoo's model options given as flags: --hidden, --shortcut and the GPT's --n-layer,
    // --n-head, --n-embd (whole numbers), for bench and summary.
    nlohmann::json modelOptions() const;

private:
    void parse(const std::vector<std::string>& argv, const ArgSpec& spec);

    std::vector<std::string> m_positional;
    std::vector<std::pair<std::string, std::string>> m_options;
    std::vector<std::string> m_flags;
};

} // namespace tb::cli
