// Command-line arguments of one trainbench-cli command: positionals, --key value options and
// --flags. Options may repeat (--set a=1 --set b=2).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tb::cli {

class Args {
public:
    // argv after the command name. Flags are the options that take no value.
    Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags);

    const std::vector<std::string>& positional() const { return m_positional; }
    bool flag(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;
    std::string valueOr(const std::string& name, const std::string& fallback) const;
    // Integer option; throws ConfigError naming the option when it is not a whole number >= min.
    std::optional<long long> intValue(const std::string& name, long long min = 0) const;

private:
    std::vector<std::string> m_positional;
    std::vector<std::pair<std::string, std::string>> m_options;
    std::vector<std::string> m_flags;
};

} // namespace tb::cli
