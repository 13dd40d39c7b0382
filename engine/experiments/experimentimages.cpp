// experimentData: the set-up's in-memory images exported once as files, and the arms pointed at
// them.
#include "experiments/experimentimages.h"

#include "core/datadirectory.h"
#include "core/errors.h"
#include "core/textformat.h"
#include "data/datasetexport.h"
#include "data/datasets.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <sstream>

namespace fs = std::filesystem;

namespace tb {

namespace {

std::string upper(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// Exports into a temporary sibling first and renames it into place: a folder under the final
// name is always a whole export, so an interrupted one is made again, never half used.
void exportOnce(const DataConfig& data, const ExperimentImages& images, const std::string& folder) {
    if (fs::is_directory(folder))
        return;
    const std::string partial = folder + ".partial-" + std::to_string(::getpid());
    std::error_code ec;
    fs::remove_all(partial, ec);
    fs::create_directories(fs::path(folder).parent_path(), ec);
    DatasetExportOptions options;
    options.format = images.format;
    options.size = images.size;
    options.limit = images.limit;
    try {
        exportImageFolder(data, partial, options);
        fs::rename(partial, folder);
    } catch (...) {
        fs::remove_all(partial, ec);
        throw;
    }
}

} // namespace

std::string defaultExportsRoot() {
    return (fs::path(dataDirectory()) / "exports").string();
}

std::string experimentImagesFolder(const DataConfig& data, const ExperimentImages& images,
                                   const std::string& exportsRoot) {
    std::ostringstream name;
    name << data.name;
    if (!data.root.empty()) // another copy of the set is another folder
        name << '-' << std::hex << std::hash<std::string>{}(data.root) << std::dec;
    name << '-' << images.format << images.size << '-'
         << (images.limit > 0 ? std::to_string(images.limit) : "all");
    return (fs::path(exportsRoot) / name.str()).string();
}

ExperimentData experimentData(const ExperimentPreset& preset, const RunConfig& base,
                              const std::string& exportsRoot) {
    if (!preset.images)
        return {base, {}};
    const ExperimentImages& images = *preset.images;
    if (base.data.name == "imagefolder")
        return {base, "The arms read the set-up's own image files (" + base.data.root +
                          "): each sample is decoded, cropped and resized while training."};
    DataConfig plain = base.data;
    plain.normalize = false;
    const auto train = openDatasets(plain, base.seed).train;
    const Shape sample = train->sampleShape();
    if (sample.rank() != 3 || (sample[0] != 1 && sample[0] != 3))
        return {base, "The set-up's " + base.data.name +
                          " samples are not images, so there are no files to decode: loading "
                          "costs next to nothing here, whatever the loader's settings."};
    const std::string folder = experimentImagesFolder(base.data, images, exportsRoot);
    exportOnce(base.data, images, folder);

    RunConfig config = base;
    config.set("dataset", "imagefolder");
    config.set("data.root", folder);
    config.set("data.image_size", std::to_string(sample[2]));
    config.validate();
    const int64_t files = images.limit > 0 ? std::min(images.limit, train->size()) : train->size();
    std::string note = "The set-up's " + base.data.name +
                       " is held decoded in memory, where a batch costs next to nothing to load "
                       "and workers have nothing to take over; so the arms read " +
                       formatCount(files) + " of its images as " + upper(images.format) +
                       " files of " + std::to_string(images.size) + " px (" + folder +
                       "), each decoded, cropped and resized to " + std::to_string(sample[2]) +
                       " px while training, as photos of your own are.";
    return {std::move(config), std::move(note)};
}

} // namespace tb
