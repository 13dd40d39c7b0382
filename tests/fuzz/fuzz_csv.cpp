// libFuzzer target: the CSV reader on arbitrary text. The first byte picks the header mode and
// the label column; only DatasetError and ConfigError may come out.
#include "core/errors.h"
#include "data/csvreader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    static const char* kHeaders[] = {"auto", "yes", "no"};
    static const char* kLabels[] = {"", "0", "1", "label", "y"};
    tb::CsvOptions options{kLabels[(data[0] >> 2) % 5], kHeaders[data[0] % 3]};
    try {
        const tb::CsvTable t =
            tb::parseCsv(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1),
                         "fuzz.csv", options);
        if (t.features.size() != t.featureNames.size() * t.labels.size())
            __builtin_trap();
        for (int32_t l : t.labels)
            if (l < 0 || l >= static_cast<int32_t>(t.classNames.size()))
                __builtin_trap();
    } catch (const tb::DatasetError&) {
    } catch (const tb::ConfigError&) {
    }
    return 0;
}
