// Parsing of --key value, --key=value and --flag arguments against a command's ArgSpec.
#include "args.h"

#include "core/errors.h"
#include "core/textformat.h"

#include <algorithm>
#include <charconv>

namespace tb::cli {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

// Edit distance, for "did you mean" on a mistyped option (--sett, --dbb).
std::size_t distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

[[noreturn]] void unknownOption(const std::string& word, const std::string& name,
                                const ArgSpec& spec) {
    std::string known, closest;
    std::size_t best = std::min<std::size_t>(3, name.size()); // suggest only near misses
    for (const auto* list : {&spec.options, &spec.flags})
        for (const std::string& o : *list) {
            known += (known.empty() ? "--" : ", --") + o;
            if (const std::size_t d = distance(name, o); d < best) {
                best = d;
                closest = o;
            }
        }
    std::string message = "unknown option";
    if (!closest.empty())
        message += " (did you mean --" + closest + "?)";
    message += known.empty() ? "; this command takes none besides --help"
                             : "; this command takes " + known + ", --help";
    throw ConfigError(word, message);
}

} // namespace

Args::Args(const std::vector<std::string>& argv, const ArgSpec& spec) {
    if (contains(argv, "--help") || contains(argv, "-h")) {
        m_flags.push_back("help");
        return;
    }
    parse(argv, spec);
}

void Args::parse(const std::vector<std::string>& argv, const ArgSpec& spec) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() < 2 || a[0] != '-') {
            if (!spec.positionals)
                throw ConfigError("'" + a + "'",
                                  a.find('=') != std::string::npos && contains(spec.options, "set")
                                      ? "unexpected argument (did you mean --set " + a + "?)"
                                      : "unexpected argument; this command takes only options");
            m_positional.push_back(a);
            continue;
        }
        if (a.rfind("--", 0) != 0)
            unknownOption(a, a.substr(1), spec);
        const auto eq = a.find('=');
        const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        const std::string option = "--" + name;
        if (contains(spec.flags, name)) {
            if (eq != std::string::npos)
                throw ConfigError(option, "takes no value");
            m_flags.push_back(name);
            continue;
        }
        if (!contains(spec.options, name))
            unknownOption(option, name, spec);
        if (eq == std::string::npos && i + 1 == argv.size())
            throw ConfigError(option, "needs a value");
        const std::string value = eq == std::string::npos ? argv[++i] : a.substr(eq + 1);
        if (value.empty())
            throw ConfigError(option, "needs a value; an empty one is not allowed");
        if (value.rfind("--", 0) == 0 && eq == std::string::npos)
            throw ConfigError(option, "needs a value, got the option '" + value + "'");
        m_options.emplace_back(name, value);
    }
}

bool Args::flag(const std::string& name) const {
    return contains(m_flags, name);
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

std::optional<long long> Args::intValue(const std::string& name, long long min,
                                        long long max) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    long long v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size() || v < min || v > max)
        throw ConfigError("--" + name,
                          "'" + *text + "' is not a whole number " +
                              (max == std::numeric_limits<long long>::max()
                                   ? ">= " + std::to_string(min)
                                   : "from " + std::to_string(min) + " to " + std::to_string(max)));
    return v;
}

std::optional<double> Args::floatValue(const std::string& name, double min, double max) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size() || !(v >= min && v <= max))
        throw ConfigError("--" + name, "'" + *text + "' is not a number from " +
                                           formatString("%g to %g", min, max));
    return v;
}

nlohmann::json Args::modelOptions() const {
    nlohmann::json options = nlohmann::json::object();
    for (const char* key : {"hidden", "shortcut"})
        if (const auto v = value(key))
            options[key] = *v;
    for (const auto& [flag, key] : {std::pair{"n-layer", "n_layer"}, std::pair{"n-head", "n_head"},
                                    std::pair{"n-embd", "n_embd"}})
        if (const auto v = intValue(flag, 1, 16384))
            options[key] = *v;
    return options;
}

} // namespace tb::cli
