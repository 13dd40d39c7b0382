// COCO's instances JSON: `images` (id, file_name, width, height), `annotations` (image_id,
// category_id, bbox as x, y, w, h in pixels, iscrowd) and `categories` (id, name), ids not
// necessarily contiguous. Classes are the categories in the order of their ids.
#include "data/detectionfiles.h"

#include "core/errors.h"
#include "data/imagecodec.h"
#include "io/jsontext.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace tb {

namespace fs = std::filesystem;

namespace {

using nlohmann::json;

// The split's JSON: the file itself, or annotations/instances_<split>*.json under the root.
fs::path findAnnotations(const std::string& root, const std::string& split) {
    std::error_code ec;
    if (fs::is_regular_file(root, ec))
        return root;
    const fs::path folder = fs::path(root) / "annotations";
    if (!fs::is_directory(folder, ec))
        throw DatasetError(root, -1,
                           "no annotations/ folder (COCO's instances_" + split +
                               "*.json) and not a JSON file");
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("instances_" + split) && name.ends_with(".json"))
            found.push_back(entry.path());
    }
    if (found.empty())
        throw DatasetError(folder.string(), -1, "no instances_" + split + "*.json here");
    std::sort(found.begin(), found.end());
    return found.front();
}

// Where the images of `annotations` are: the folder named after its suffix (val2017), beside
// the annotations or under images/, or images/ itself, or the JSON's own folder.
fs::path findImages(const std::string& root, const fs::path& annotations) {
    std::error_code ec;
    if (fs::is_regular_file(root, ec))
        return annotations.parent_path();
    std::string stem = annotations.stem().string();
    stem = stem.substr(stem.find('_') + 1); // instances_val2017 -> val2017
    for (const fs::path& p :
         {fs::path(root) / stem, fs::path(root) / "images" / stem, fs::path(root) / "images"})
        if (fs::is_directory(p, ec))
            return p;
    throw DatasetError(root, -1,
                       "no image folder for " + annotations.filename().string() + " (looked for " +
                           stem + "/, images/" + stem + "/, images/)");
}

// A member of a JSON object, or an error naming its path in the document.
const json& member(const json& object, const char* key, const std::string& path,
                   const std::string& file) {
    if (!object.is_object() || !object.contains(key))
        throw DatasetError(file, -1, path + ": no \"" + key + "\"");
    return object[key];
}

double number(const json& value, const std::string& path, const std::string& file) {
    if (!value.is_number())
        throw DatasetError(file, -1, path + ": expected a number, found " + value.dump());
    const double v = value.get<double>();
    if (!std::isfinite(v))
        throw DatasetError(file, -1, path + ": not a finite number");
    return v;
}

int64_t integer(const json& value, const std::string& path, const std::string& file) {
    const double v = number(value, path, file);
    if (v != std::floor(v))
        throw DatasetError(file, -1, path + ": expected an integer, found " + value.dump());
    return static_cast<int64_t>(v);
}

} // namespace

std::shared_ptr<FileDetectionSource> openCocoSplit(const std::string& root,
                                                   const std::string& split) {
    const fs::path annotations = findAnnotations(root, split);
    const fs::path imageDir = findImages(root, annotations);
    const std::string file = annotations.string();
    const std::vector<uint8_t> bytes = readWholeFile(file);
    const json doc = parseJson(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file);

    // Categories sorted by id become classes 0..n-1.
    std::map<int64_t, std::string> categories;
    const json& cats = member(doc, "categories", "categories", file);
    if (!cats.is_array() || cats.empty())
        throw DatasetError(file, -1, "categories: expected a non-empty list");
    for (std::size_t i = 0; i < cats.size(); ++i) {
        const std::string path = "categories[" + std::to_string(i) + "]";
        const int64_t id = integer(member(cats[i], "id", path, file), path + ".id", file);
        const json& name = member(cats[i], "name", path, file);
        if (!name.is_string())
            throw DatasetError(file, -1, path + ".name: expected a string");
        if (!categories.emplace(id, name.get<std::string>()).second)
            throw DatasetError(file, -1, path + ".id: " + std::to_string(id) + " appears twice");
    }
    std::map<int64_t, int32_t> classOf;
    std::vector<std::string> names;
    for (const auto& [id, name] : categories) {
        classOf[id] = static_cast<int32_t>(names.size());
        names.push_back(name);
    }

    std::vector<std::string> warnings;
    std::vector<FileDetectionSource::Entry> entries;
    std::map<int64_t, std::size_t> entryOf; // image id -> entry, for the images that exist
    std::map<int64_t, bool> listed;         // every image id the file lists
    const json& images = member(doc, "images", "images", file);
    if (!images.is_array())
        throw DatasetError(file, -1, "images: expected a list");
    for (std::size_t i = 0; i < images.size(); ++i) {
        const std::string path = "images[" + std::to_string(i) + "]";
        const int64_t id = integer(member(images[i], "id", path, file), path + ".id", file);
        const json& name = member(images[i], "file_name", path, file);
        if (!name.is_string())
            throw DatasetError(file, -1, path + ".file_name: expected a string");
        FileDetectionSource::Entry e;
        e.path = (imageDir / name.get<std::string>()).string();
        e.labels.width = static_cast<int>(
            integer(member(images[i], "width", path, file), path + ".width", file));
        e.labels.height = static_cast<int>(
            integer(member(images[i], "height", path, file), path + ".height", file));
        if (e.labels.width <= 0 || e.labels.height <= 0)
            throw DatasetError(file, -1, path + ": width and height must be above 0");
        if (!listed.emplace(id, true).second)
            throw DatasetError(file, -1, path + ".id: " + std::to_string(id) + " appears twice");
        std::error_code ec;
        if (!fs::is_regular_file(e.path, ec)) {
            warnings.push_back(file + ": " + path + ": " + e.path + " does not exist, skipped");
            continue;
        }
        entryOf[id] = entries.size();
        entries.push_back(std::move(e));
    }

    const json& anns = member(doc, "annotations", "annotations", file);
    if (!anns.is_array())
        throw DatasetError(file, -1, "annotations: expected a list");
    for (std::size_t i = 0; i < anns.size(); ++i) {
        const std::string path = "annotations[" + std::to_string(i) + "]";
        const json& a = anns[i];
        const int64_t imageId =
            integer(member(a, "image_id", path, file), path + ".image_id", file);
        if (!listed.count(imageId))
            throw DatasetError(
                file, -1, path + ".image_id: " + std::to_string(imageId) + " is not in images");
        const int64_t category =
            integer(member(a, "category_id", path, file), path + ".category_id", file);
        if (!classOf.count(category))
            throw DatasetError(file, -1,
                               path + ".category_id: " + std::to_string(category) +
                                   " is not in categories");
        const json& bbox = member(a, "bbox", path, file);
        if (!bbox.is_array() || bbox.size() != 4)
            throw DatasetError(file, -1, path + ".bbox: expected [x, y, width, height]");
        double v[4];
        for (std::size_t k = 0; k < 4; ++k)
            v[k] = number(bbox[k], path + ".bbox[" + std::to_string(k) + "]", file);
        const bool crowd =
            a.contains("iscrowd") && integer(a["iscrowd"], path + ".iscrowd", file) != 0;
        const auto found = entryOf.find(imageId);
        if (found == entryOf.end())
            continue; // its image is missing: reported above
        ImageLabels& labels = entries[found->second].labels;
        const double w = labels.width, h = labels.height;
        if (v[2] <= 0 || v[3] <= 0) {
            warnings.push_back(file + ": " + path + ": a box of zero width or height, skipped");
            continue;
        }
        double x1 = v[0], y1 = v[1], x2 = v[0] + v[2], y2 = v[1] + v[3];
        if (x2 <= 0 || y2 <= 0 || x1 >= w || y1 >= h)
            throw DatasetError(file, -1,
                               path + ".bbox: wholly outside its " + std::to_string(labels.width) +
                                   " x " + std::to_string(labels.height) + " image");
        if (x1 < 0 || y1 < 0 || x2 > w || y2 > h) {
            warnings.push_back(file + ": " + path + ": the box reaches outside its image, clipped");
            x1 = std::max(x1, 0.0);
            y1 = std::max(y1, 0.0);
            x2 = std::min(x2, w);
            y2 = std::min(y2, h);
        }
        labels.boxes.push_back({classOf[category], static_cast<float>(x1 / w),
                                static_cast<float>(y1 / h), static_cast<float>(x2 / w),
                                static_cast<float>(y2 / h), crowd});
    }
    if (entries.empty())
        throw DatasetError(file, -1, "none of its images exist in " + imageDir.string());
    const std::string description =
        "coco " + file + " (" + std::to_string(entries.size()) + " images)";
    return std::make_shared<FileDetectionSource>(
        imageDir.string(), std::move(names), std::move(entries), std::move(warnings), description);
}

} // namespace tb
