// Ultralytics' YOLO layout: data.yaml (read with yaml-cpp) names the classes and the images of
// each split; each image's label file sits at the same place under labels/ instead of images/,
// one "class cx cy w h" line per box (fractions of the image), or "class x1 y1 x2 y2 ..." for a
// polygon, whose extent is its box (Ultralytics' segments2boxes).
#include "data/detectionfiles.h"

#include "core/errors.h"
#include "data/imagecodec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tb {

namespace fs = std::filesystem;

namespace {

std::string lowerExtension(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

// Formats Ultralytics reads that we do not decode: listed so they are reported, not ignored.
bool isOtherImage(const fs::path& p) {
    const std::string ext = lowerExtension(p);
    return ext == ".bmp" || ext == ".webp" || ext == ".tif" || ext == ".tiff" || ext == ".dng" ||
           ext == ".mpo" || ext == ".pfm" || ext == ".heic";
}

// Ultralytics' img2label_paths: the last "/images/" becomes "/labels/", the extension ".txt".
fs::path labelPathOf(const fs::path& image) {
    std::string s = image.generic_string();
    const std::size_t at = s.rfind("/images/");
    if (at != std::string::npos)
        s.replace(at, 8, "/labels/");
    return fs::path(s).replace_extension(".txt");
}

struct YoloSpec {
    fs::path yaml, base;
    std::vector<std::string> names;
    std::vector<fs::path> images; // the split's sources: folders, list files or images
};

std::vector<std::string> readNames(const YAML::Node& node, const std::string& file) {
    std::vector<std::string> names;
    if (node.IsSequence()) {
        for (const YAML::Node& n : node)
            names.push_back(n.as<std::string>());
    } else if (node.IsMap()) {
        // {0: person, 1: bicycle, ...}: indices must run 0..n-1.
        std::map<int64_t, std::string> byIndex;
        for (const auto& kv : node) {
            const auto index = kv.first.as<int64_t>();
            if (index < 0)
                throw DatasetError(file, -1,
                                   "names: class index " + std::to_string(index) + " is negative");
            byIndex[index] = kv.second.as<std::string>();
        }
        for (const auto& [index, name] : byIndex) {
            if (index != std::ssize(names))
                throw DatasetError(file, -1,
                                   "names: class " + std::to_string(names.size()) +
                                       " is missing (indices must run from 0)");
            names.push_back(name);
        }
    }
    if (names.empty())
        throw DatasetError(file, -1, "names: no class names (a list, or a map from 0, 1, ...)");
    return names;
}

YoloSpec readSpec(const std::string& where, const std::string& split) {
    YoloSpec spec;
    std::error_code ec;
    spec.yaml = fs::is_directory(where, ec) ? fs::path(where) / "data.yaml" : fs::path(where);
    const std::string file = spec.yaml.string();
    if (!fs::is_regular_file(spec.yaml, ec))
        throw DatasetError(file, -1, "no data.yaml here (Ultralytics' dataset description)");
    YAML::Node root;
    try {
        root = YAML::LoadFile(file);
    } catch (const YAML::Exception& e) {
        throw DatasetError(file, e.mark.is_null() ? -1 : e.mark.line + 1, e.msg, true);
    }
    if (!root.IsMap())
        throw DatasetError(file, -1, "expected a mapping with path, train, val and names");
    try {
        spec.names = readNames(root["names"], file);
        if (root["nc"] && root["nc"].as<int64_t>() != std::ssize(spec.names))
            throw DatasetError(file, -1,
                               "nc is " + root["nc"].as<std::string>() + " but names lists " +
                                   std::to_string(spec.names.size()) + " classes");
        // `path` is the dataset's root, relative to the yaml's folder when not absolute.
        spec.base = spec.yaml.parent_path();
        if (root["path"] && !root["path"].as<std::string>().empty())
            spec.base = spec.base / root["path"].as<std::string>();
        const YAML::Node folders = root[split];
        if (!folders || folders.IsNull())
            throw DatasetError(file, -1,
                               "names no " + split + " images (a `" + split +
                                   ":` folder, list file or list of them)");
        auto add = [&](const std::string& entry) { spec.images.push_back(spec.base / entry); };
        if (folders.IsSequence())
            for (const YAML::Node& n : folders)
                add(n.as<std::string>());
        else
            add(folders.as<std::string>());
    } catch (const YAML::Exception& e) {
        throw DatasetError(file, e.mark.is_null() ? -1 : e.mark.line + 1, e.msg, true);
    }
    return spec;
}

// The split's image files in a stable order: folders searched recursively, list files read
// (one path a line, relative to the dataset's root).
std::vector<fs::path> listImages(const YoloSpec& spec, std::vector<std::string>& warnings) {
    std::vector<fs::path> out;
    auto consider = [&](const fs::path& p) {
        if (isDecodableImageName(p.string()))
            out.push_back(p);
        else if (isOtherImage(p))
            warnings.push_back(p.string() + ": skipped, only PNG and JPEG images are read");
    };
    for (const fs::path& source : spec.images) {
        std::error_code ec;
        if (fs::is_directory(source, ec)) {
            for (auto it = fs::recursive_directory_iterator(source, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file())
                    consider(it->path());
            if (ec)
                throw DatasetError(source.string(), -1, "cannot list the folder: " + ec.message());
        } else if (fs::is_regular_file(source, ec) && lowerExtension(source) == ".txt") {
            std::ifstream list(source);
            std::string line;
            while (std::getline(list, line)) {
                line.erase(line.find_last_not_of(" \t\r") + 1);
                if (line.empty())
                    continue;
                const fs::path p = fs::path(line).is_absolute() ? fs::path(line) : spec.base / line;
                if (fs::is_regular_file(p, ec))
                    consider(p);
                else
                    warnings.push_back(source.string() + ": " + p.string() +
                                       " does not exist, skipped");
            }
        } else {
            throw DatasetError(source.string(), -1,
                               "the data.yaml's images are not here (" + spec.yaml.string() + ")");
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// One label file's boxes; throws for lines that cannot be trusted.
ImageLabels readLabels(const fs::path& path, int classes, std::vector<std::string>& warnings) {
    ImageLabels labels;
    std::ifstream in(path);
    if (!in)
        throw DatasetError(path.string(), -1, "cannot be read");
    const std::string file = path.string();
    std::set<std::vector<float>> seen;
    std::string line;
    for (int64_t number = 1; std::getline(in, line); ++number) {
        std::vector<float> values;
        std::istringstream words(line);
        for (std::string word; words >> word;) {
            float v = 0;
            const auto [end, err] = std::from_chars(word.data(), word.data() + word.size(), v);
            if (err != std::errc() || end != word.data() + word.size())
                throw DatasetError(file, number, "\"" + word + "\" is not a number", true);
            if (!std::isfinite(v))
                throw DatasetError(file, number, "a value is " + word + " (not finite)", true);
            values.push_back(v);
        }
        if (values.empty())
            continue;
        if (values.size() != 5 && (values.size() < 7 || values.size() % 2 == 0))
            throw DatasetError(file, number,
                               "expected \"class cx cy w h\" (5 numbers) or a class and a "
                               "polygon's x y pairs; found " +
                                   std::to_string(values.size()) + " numbers",
                               true);
        const float cls = values[0];
        if (cls != std::floor(cls) || cls < 0 || cls >= static_cast<float>(classes))
            throw DatasetError(file, number,
                               "class " + std::to_string(cls) + " is not one of the data.yaml's " +
                                   std::to_string(classes) + " names (0 to " +
                                   std::to_string(classes - 1) + ")",
                               true);
        LabeledBox box{static_cast<int32_t>(cls)};
        if (values.size() == 5) {
            box.x1 = values[1] - values[3] / 2;
            box.x2 = values[1] + values[3] / 2;
            box.y1 = values[2] - values[4] / 2;
            box.y2 = values[2] + values[4] / 2;
            if (values[3] < 0 || values[4] < 0)
                throw DatasetError(file, number, "a negative width or height", true);
        } else {
            box.x1 = box.y1 = 1e30f;
            box.x2 = box.y2 = -1e30f;
            for (std::size_t i = 1; i + 1 < values.size(); i += 2) {
                box.x1 = std::min(box.x1, values[i]);
                box.x2 = std::max(box.x2, values[i]);
                box.y1 = std::min(box.y1, values[i + 1]);
                box.y2 = std::max(box.y2, values[i + 1]);
            }
        }
        const std::string where = file + ", line " + std::to_string(number) + ": ";
        if (box.x2 <= 0 || box.y2 <= 0 || box.x1 >= 1 || box.y1 >= 1)
            throw DatasetError(file, number,
                               "the box lies wholly outside the image (coordinates are fractions "
                               "of its size, 0 to 1)",
                               true);
        if (box.x1 < 0 || box.y1 < 0 || box.x2 > 1 || box.y2 > 1) {
            warnings.push_back(where + "the box reaches outside the image, clipped to it");
            box.x1 = std::max(box.x1, 0.0f);
            box.y1 = std::max(box.y1, 0.0f);
            box.x2 = std::min(box.x2, 1.0f);
            box.y2 = std::min(box.y2, 1.0f);
        }
        if (box.width() <= 0 || box.height() <= 0) {
            warnings.push_back(where + "a box of zero width or height, skipped");
            continue;
        }
        if (!seen.insert(values).second) {
            warnings.push_back(where + "the same box as an earlier line, skipped");
            continue;
        }
        labels.boxes.push_back(box);
    }
    return labels;
}

} // namespace

std::shared_ptr<FileDetectionSource> openYoloSplit(const std::string& where,
                                                   const std::string& split) {
    const YoloSpec spec = readSpec(where, split);
    std::vector<std::string> warnings;
    std::vector<FileDetectionSource::Entry> entries;
    std::set<fs::path> labelled;
    for (const fs::path& image : listImages(spec, warnings)) {
        const fs::path label = labelPathOf(image);
        std::error_code ec;
        FileDetectionSource::Entry e{image.string(), {}};
        if (fs::is_regular_file(label, ec)) {
            e.labels = readLabels(label, static_cast<int>(spec.names.size()), warnings);
            labelled.insert(label.lexically_normal());
        }
        entries.push_back(std::move(e));
    }
    if (entries.empty())
        throw DatasetError(spec.yaml.string(), -1,
                           "the " + split + " split holds no PNG or JPEG images");
    // Label files without their image: their boxes cannot be trained on, say so.
    for (const fs::path& source : spec.images) {
        std::error_code ec;
        if (!fs::is_directory(source, ec))
            continue;
        const fs::path labels = labelPathOf(source / "x").parent_path();
        if (!fs::is_directory(labels, ec) || labels == source)
            continue;
        for (auto it = fs::recursive_directory_iterator(labels, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file() && lowerExtension(it->path()) == ".txt" &&
                !labelled.count(it->path().lexically_normal()))
                warnings.push_back(it->path().string() + ": no image of this name, skipped");
    }
    const std::string description = "yolo " + spec.yaml.string() + " " + split + " (" +
                                    std::to_string(entries.size()) + " images)";
    return std::make_shared<FileDetectionSource>(spec.base.string(), spec.names, std::move(entries),
                                                 std::move(warnings), description);
}

} // namespace tb
