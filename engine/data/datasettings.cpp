// Parsing of the data.* keys.
#include "data/datasettings.h"

#include "core/errors.h"

#include <charconv>

namespace tb {

namespace {

long long parseInt(const std::string& key, const std::string& v) {
    long long out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size())
        throw ConfigError(key, quoteUserData(v) + " is not a whole number");
    return out;
}

bool parseBool(const std::string& key, const std::string& v) {
    if (v == "true" || v == "1" || v == "on" || v == "yes")
        return true;
    if (v == "false" || v == "0" || v == "off" || v == "no")
        return false;
    throw ConfigError(key, quoteUserData(v) + " is not true or false");
}

} // namespace

std::vector<std::string> dataSettingKeys() {
    return {"dataset",
            "data.root",
            "data.val_fraction",
            "data.augment",
            "data.normalize",
            "data.image_size",
            "data.csv_label",
            "data.csv_header",
            "data.synthetic_samples",
            "data.synthetic_classes"};
}

bool applyDataSetting(DataConfig& config, const std::string& key, const std::string& value) {
    if (key == "dataset" || key == "data.name") {
        config.name = value;
    } else if (key == "data.root") {
        config.root = value;
    } else if (key == "data.val_fraction") {
        double v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || end != value.data() + value.size() || !(v >= 0.0 && v < 1.0))
            throw ConfigError(key, quoteUserData(value) + " is not a number in [0, 1)");
        config.valFraction = v;
    } else if (key == "data.augment") {
        config.augment = parseBool(key, value);
    } else if (key == "data.normalize") {
        config.normalize = parseBool(key, value);
    } else if (key == "data.image_size") {
        const long long v = parseInt(key, value);
        if (v < 4 || v > 1024)
            throw ConfigError(key, "must be between 4 and 1024");
        config.imageSize = static_cast<int>(v);
    } else if (key == "data.csv_label") {
        config.csvLabel = value;
    } else if (key == "data.csv_header") {
        if (value != "auto" && value != "yes" && value != "no")
            throw ConfigError(key, "must be auto, yes or no");
        config.csvHeader = value;
    } else if (key == "data.synthetic_samples") {
        config.syntheticSamples = parseInt(key, value);
    } else if (key == "data.synthetic_classes") {
        const long long v = parseInt(key, value);
        if (v < 0 || v > 1000)
            throw ConfigError(key, "must be between 0 and 1000");
        config.syntheticClasses = static_cast<int>(v);
    } else {
        return false;
    }
    return true;
}

} // namespace tb
