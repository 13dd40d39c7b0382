// Formatting of the config schema for the terminal and for Markdown.
#include "confighelp.h"

#include "core/textformat.h"
#include "train/runconfig.h"

#include <string>

namespace tb::cli {

namespace {

constexpr int kTypeWidth = 28;

} // namespace

std::string configTypeText(const ConfigField& f) {
    if (f.type == "choice") {
        const std::string choices = joined(f.choices, "|");
        return choices.size() < kTypeWidth ? choices : "choice";
    }
    if (f.min.is_null())
        return f.type;
    if (f.type == "float")
        return "float " + std::string(f.minOpen ? "(" : "[") + f.min.dump() + ", " + f.max.dump() +
               "]";
    return f.type + " " + f.min.dump() + ".." +
           (!f.maxRule.empty() ? f.maxRule
            : f.max.is_null()  ? ""
                               : f.max.dump());
}

std::string configDefaultText(const ConfigField& f) {
    const nlohmann::json& v = f.defaultValue;
    if (v.is_string())
        return v.get<std::string>().empty() ? "\"\"" : v.get<std::string>();
    if (v.is_array())
        return v.empty() ? "[]" : v.dump();
    return v.dump();
}

std::string configMeaning(const ConfigField& f) {
    std::string help = f.help;
    if (configTypeText(f) == "choice")
        help += ": " + joined(f.choices, ", ");
    if (!f.appliesWhenKey.empty())
        help += " [" + f.appliesWhenKey + "=" + joined(f.appliesWhenValues, "|") + "]";
    return help;
}

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
        std::fprintf(out, "  %-25s %-*s %-13s %s\n", f.key.c_str(), kTypeWidth,
                     configTypeText(f).c_str(), configDefaultText(f).c_str(),
                     configMeaning(f).c_str());
    }
    std::fputs("\nA key in [brackets] applies only with that setting.\n", out);
}

void printConfigKeysMarkdown(std::FILE* out) {
    // A | in a cell would end it: the choices are written with it.
    const auto cell = [](std::string text) {
        for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
            text.replace(at, 1, "\\|");
        return text;
    };
    bool first = true;
    ConfigGroup current{};
    for (const ConfigField& f : configSchema()) {
        if (first || f.group != current) {
            std::fprintf(out, "%s**%s**\n\n| key | type | default | meaning |\n|---|---|---|---|\n",
                         first ? "" : "\n", toString(f.group));
            current = f.group;
            first = false;
        }
        std::fprintf(out, "| `%s` | %s | `%s` | %s |\n", f.key.c_str(),
                     cell(configTypeText(f)).c_str(), configDefaultText(f).c_str(),
                     cell(configMeaning(f)).c_str());
    }
}

} // namespace tb::cli
