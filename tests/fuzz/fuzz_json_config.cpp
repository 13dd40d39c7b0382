// libFuzzer target: a config file (JSON) as `train --config` reads it, and one typed value as a
// form checks it. Only DatasetError (the text is not JSON) and ConfigError (a value is refused)
// may come out; a value validateField() accepts must also be accepted by set().
#include "core/errors.h"
#include "io/jsontext.h"
#include "train/runconfig.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

void configFile(const std::string& text) {
    const tb::RunConfig c = tb::RunConfig::fromJson(tb::parseJson(text, "fuzz.json"));
    // What was accepted reads back as itself: toJson() holds nothing set() would refuse.
    if (tb::RunConfig::fromJson(c.toJson()).toJson() != c.toJson())
        __builtin_trap();
    c.validate();
}

void oneValue(const tb::ConfigField& field, const std::string& text) {
    const bool valid = !tb::validateField(field.key, text);
    tb::RunConfig c;
    try {
        c.set(field.key, text);
    } catch (const tb::ConfigError&) {
        if (valid)
            __builtin_trap();
        return;
    }
    if (!valid)
        __builtin_trap();
    (void)field.appliesTo(c);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    const auto& schema = tb::configSchema();
    try {
        // The first byte picks the whole-file path or one key of the schema.
        if (data[0] % 2 == 0)
            configFile(text);
        else
            oneValue(schema[(data[0] / 2) % schema.size()], text);
    } catch (const tb::DatasetError&) {
    } catch (const tb::ConfigError&) {
    }
    return 0;
}
