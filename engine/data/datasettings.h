// The `data.*` configuration keys as text (`--set data.root=/x`), for the CLI and config files.
#pragma once

#include "data/dataconfig.h"

#include <string>
#include <vector>

namespace tb {

// Sets one key of config from text: dataset, data.root, data.val_fraction, data.augment,
// data.normalize, data.image_size, data.csv_label, data.csv_header, data.synthetic_samples,
// data.synthetic_classes. Returns false for a key outside this list; throws ConfigError naming
// the key when the value does not parse.
bool applyDataSetting(DataConfig& config, const std::string& key, const std::string& value);

// The keys applyDataSetting() accepts.
std::vector<std::string> dataSettingKeys();

} // namespace tb
