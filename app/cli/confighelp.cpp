// Formatting of the config schema for the terminal.
#include "confighelp.h"

#include "train/runconfig.h"

#include <string>

namespace tb::cli {

namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

constexpr int kTypeWidth = 28;

// "int 1..65536", "float (0.0, 100.0]", "sgd|adamw", "bool".
std::string typeOf(const ConfigField& f) {
    if (f.type == "choice") {
        const std::string choices = joined(f.choices, "|");
        return choices.size() < kTypeWidth ? choices : "choice";
    }
    if (f.min.is_null())
        return f.type;
    if (f.type == "float")
        return "float " + std::string(f.minOpen ? "(" : "[") + f.min.dump() + ", " + f.max.dump() +
               "]";
    return f.type + " " + f.min.dump() + ".." + (f.max.is_null() ? "" : f.max.dump());
}

std::string shown(const nlohmann::json& v) {
    if (v.is_string())
        return v.get<std::string>().empty() ? "\"\"" : v.get<std::string>();
    if (v.is_array())
        return v.empty() ? "[]" : v.dump();
    return v.dump();
}

} // namespace

void printConfigKeys(std::FILE* out) {
    bool first = true;
    ConfigGroup current{};
    for (const ConfigField& f : configSchema()) {
        if (first || f.group != current) {
            std::fprintf(out, "\n%s:\n", toString(f.group));
            std::fprintf(out, "  %-25s %-*s %-13s %s\n", "KEY", kTypeWidth, "TYPE", "DEFAULT",
                         "MEANING");
            current = f.group;
            first = false;
        }
        std::string help = f.help;
        if (typeOf(f) == "choice")
            help += ": " + joined(f.choices, ", ");
        if (!f.appliesWhenKey.empty())
            help += " [" + f.appliesWhenKey + "=" + joined(f.appliesWhenValues, "|") + "]";
        std::fprintf(out, "  %-25s %-*s %-13s %s\n", f.key.c_str(), kTypeWidth, typeOf(f).c_str(),
                     shown(f.defaultValue).c_str(), help.c_str());
    }
    std::fputs("\nA key in [brackets] applies only with that setting.\n", out);
}

} // namespace tb::cli
