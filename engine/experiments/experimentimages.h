// An experiment about loading data ("images" in its preset) trains on image files to decode,
// not on a set held decoded in memory, where loading costs nothing and every loader setting
// measures alike. The set-up's own set is written once as a folder of JPEG (or PNG) files
// (dataset-export) and the arms train on that folder at the set-up's sample size, so the model
// is the one the set-up trains; a set-up that already reads image files is kept as it is.
#pragma once

#include "experiments/experimentpreset.h"
#include "train/runconfig.h"

#include <string>

namespace tb {

struct ExperimentData {
    RunConfig config; // the base the arms are made from
    // What the conclusion begins with: why the arms read files, or why they do not; empty when
    // the preset has no "images".
    std::string note;
};

// The folder under `exportsRoot` a set-up's images go to: the set, its root when not the
// default, the format, size and limit ("fashion-mnist-jpeg224-6000").
std::string experimentImagesFolder(const DataConfig& data, const ExperimentImages& images,
                                   const std::string& exportsRoot);

// `base` for an experiment with "images": on an in-memory image set, the same set-up reading
// the exported folder (written into experimentImagesFolder() now if it is not there yet,
// through a temporary folder so an interrupted export is never taken for a whole one). Sets
// that are not images (spirals, csv) keep `base`, and the note says why. Throws what the
// export throws (a full disk, an unreadable set), naming the folder.
ExperimentData experimentData(const ExperimentPreset& preset, const RunConfig& base,
                              const std::string& exportsRoot);

// dataDirectory()/exports.
std::string defaultExportsRoot();

} // namespace tb
