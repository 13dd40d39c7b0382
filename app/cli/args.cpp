// Parsing of --key value, --key=value and --flag arguments.
#include "args.h"

#include "core/errors.h"

#include <algorithm>
#include <charconv>

namespace tb::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.rfind("--", 0) != 0 || a.size() == 2) {
            m_positional.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        const auto eq = name.find('=');
        if (eq != std::string::npos) {
            m_options.emplace_back(name.substr(0, eq), name.substr(eq + 1));
        } else if (std::find(flags.begin(), flags.end(), name) != flags.end()) {
            m_flags.push_back(name);
        } else if (i + 1 < argv.size()) {
            m_options.emplace_back(name, argv[++i]);
        } else {
            throw ConfigError("--" + name, "needs a value");
        }
    }
}

bool Args::flag(const std::string& name) const {
    return std::find(m_flags.begin(), m_flags.end(), name) != m_flags.end();
}

std::optional<std::string> Args::value(const std::string& name) const {
    std::optional<std::string> last;
    for (const auto& [k, v] : m_options)
        if (k == name)
            last = v;
    return last;
}

std::vector<std::string> Args::values(const std::string& name) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : m_options)
        if (k == name)
            out.push_back(v);
    return out;
}

std::string Args::valueOr(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

std::optional<long long> Args::intValue(const std::string& name, long long min) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    long long v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size() || v < min)
        throw ConfigError("--" + name,
                          "'" + *text + "' is not a whole number >= " + std::to_string(min));
    return v;
}

} // namespace tb::cli
