// VOC's segmentation layout and plain images/ + masks/ folders, as lists of (image, mask) pairs
// that FileSegmentationSource checks and counts when it opens.
#include "data/segmentationfiles.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

namespace tb {

namespace fs = std::filesystem;

namespace {

// One name a line, blank lines and surrounding spaces ignored.
std::vector<std::string> readClassNames(const fs::path& file) {
    std::ifstream in(file);
    if (!in)
        throw DatasetError(file.string(), -1, "cannot read the class names");
    std::vector<std::string> names;
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos)
            continue;
        names.push_back(line.substr(first, line.find_last_not_of(" \t\r") + 1 - first));
    }
    if (names.empty() || names.size() > 255)
        throw DatasetError(file.string(), -1,
                           "names " + std::to_string(names.size()) +
                               " classes; a mask can name 1 to 255 (255 is the ignore index)");
    return names;
}

fs::path vocFolder(const fs::path& root) {
    for (const fs::path& candidate : {root, root / "VOC2012", root / "VOCdevkit" / "VOC2012"})
        if (fs::is_directory(candidate / "JPEGImages"))
            return candidate;
    throw DatasetError(root.string(), -1,
                       "not a VOC folder: no JPEGImages/ in it, nor in VOC2012/ or "
                       "VOCdevkit/VOC2012/ under it");
}

// Whether a file is named as a PNG (.png in any case): what a mask must be.
bool isPngName(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".png";
}

// The images of `images` (sorted by name), each with its mask of the same stem in `masks`.
std::vector<FileSegmentationSource::Entry>
pairFolders(const fs::path& images, const fs::path& masks, std::vector<std::string>& warnings) {
    if (!fs::is_directory(images))
        throw DatasetError(images.string(), -1, "missing: the folder of images");
    if (!fs::is_directory(masks))
        throw DatasetError(masks.string(), -1, "missing: the folder of masks");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(images))
        if (e.is_regular_file() && isDecodableImageName(e.path().string()))
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty())
        throw DatasetError(images.string(), -1, "no PNG or JPEG images in the folder");
    std::vector<FileSegmentationSource::Entry> entries;
    std::map<std::string, bool> stems;
    for (const fs::path& image : files) {
        const fs::path mask = masks / (image.stem().string() + ".png");
        if (!fs::is_regular_file(mask))
            throw DatasetError(mask.string(), -1,
                               "missing: the mask of " + image.filename().string());
        if (stems.contains(image.stem().string()))
            throw DatasetError(image.string(), -1,
                               "another image has the stem " + image.stem().string() +
                                   "; each mask must belong to one image");
        stems[image.stem().string()] = true;
        entries.push_back({image.string(), mask.string()});
    }
    for (const auto& e : fs::directory_iterator(masks))
        if (e.is_regular_file() && isPngName(e.path()) && !stems.contains(e.path().stem().string()))
            warnings.push_back(e.path().string() + ": no image of this name in " + images.string() +
                               ", skipped");
    return entries;
}

} // namespace

FileSegmentationSource::FileSegmentationSource(std::vector<std::string> names,
                                               std::vector<Entry> entries,
                                               std::vector<std::string> warnings,
                                               std::string description)
    : m_names(std::move(names)), m_entries(std::move(entries)),
      m_description(std::move(description)) {
    m_warnings = std::move(warnings);
    m_counts.reserve(m_entries.size());
    std::vector<uint8_t> bytes;
    ClassMask mask;
    for (const Entry& e : m_entries) {
        readWholeFileInto(e.mask, bytes);
        decodeMaskInto(bytes, e.mask, mask);
        readWholeFileInto(e.image, bytes);
        const auto [width, height] = storedImageSize(bytes, e.image);
        if (width != mask.width || height != mask.height)
            throw DatasetError(e.mask, -1,
                               "the mask is " + std::to_string(mask.width) + "x" +
                                   std::to_string(mask.height) + " pixels, its image " + e.image +
                                   " " + std::to_string(width) + "x" + std::to_string(height));
        m_counts.push_back(countMask(mask, std::ssize(m_names), e.mask));
    }
}

void FileSegmentationSource::load(int64_t index, SegmentedImage& out) const {
    const Entry& e = entry(index);
    // One file buffer per loader thread: nothing allocated per sample once it has grown.
    thread_local std::vector<uint8_t> bytes;
    readWholeFileInto(e.image, bytes);
    decodeImageInto(bytes, e.image, out.image);
    readWholeFileInto(e.mask, bytes);
    decodeMaskInto(bytes, e.mask, out.mask);
    // Checked when the set was opened; a file changed since is named rather than misread.
    if (out.mask.width != out.image.width || out.mask.height != out.image.height)
        throw DatasetError(e.mask, -1, "the mask no longer has its image's size");
    countMask(out.mask, std::ssize(m_names), e.mask);
}

std::string FileSegmentationSource::imageName(int64_t index) const {
    return entry(index).image;
}

const std::vector<std::string>& vocClassNames() {
    static const std::vector<std::string> kNames = {
        "background", "aeroplane", "bicycle",     "bird",  "boat",        "bottle", "bus",
        "car",        "cat",       "chair",       "cow",   "diningtable", "dog",    "horse",
        "motorbike",  "person",    "pottedplant", "sheep", "sofa",        "train",  "tvmonitor"};
    return kNames;
}

std::shared_ptr<FileSegmentationSource> openVocSegmentation(const std::string& root,
                                                            const std::string& split) {
    const fs::path voc = vocFolder(root);
    const std::vector<std::string> names = fs::is_regular_file(voc / "classes.txt")
                                               ? readClassNames(voc / "classes.txt")
                                               : vocClassNames();
    const fs::path list = voc / "ImageSets" / "Segmentation" / (split + ".txt");
    std::ifstream in(list);
    if (!in)
        throw DatasetError(list.string(), -1, "missing: the list of the " + split + " images");
    std::vector<FileSegmentationSource::Entry> entries;
    std::vector<std::string> warnings;
    std::string line;
    for (int64_t number = 1; std::getline(in, line); ++number) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) {
            warnings.push_back(list.string() + ", line " + std::to_string(number) +
                               ": blank, skipped");
            continue;
        }
        const std::string stem = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
        fs::path image = voc / "JPEGImages" / (stem + ".jpg"); // or a lossless .png
        if (!fs::is_regular_file(image) &&
            fs::is_regular_file(voc / "JPEGImages" / (stem + ".png")))
            image = voc / "JPEGImages" / (stem + ".png");
        const fs::path mask = voc / "SegmentationClass" / (stem + ".png");
        for (const fs::path& file : {image, mask})
            if (!fs::is_regular_file(file))
                throw DatasetError(list.string(), number,
                                   "lists " + stem + ", but " + file.string() + " does not exist",
                                   true);
        entries.push_back({image.string(), mask.string()});
    }
    if (entries.empty())
        throw DatasetError(list.string(), -1, "lists no images");
    const std::string description =
        "voc " + voc.string() + " " + split + " (" + std::to_string(entries.size()) + " images)";
    return std::make_shared<FileSegmentationSource>(names, std::move(entries), std::move(warnings),
                                                    description);
}

MaskFolderSplits openMaskFolders(const std::string& rootName, double valFraction, uint64_t seed) {
    const fs::path root = rootName;
    const fs::path classes = root / "classes.txt";
    if (!fs::is_regular_file(classes))
        throw DatasetError(classes.string(), -1,
                           "missing: the class names, one a line, class 0 (often the background) "
                           "first");
    const std::vector<std::string> names = readClassNames(classes);
    auto describe = [&](const char* split, std::size_t n) {
        return "masks " + root.string() + " " + split + " (" + std::to_string(n) + " images)";
    };
    MaskFolderSplits out;
    if (fs::is_directory(root / "images" / "train")) {
        for (const char* split : {"train", "val"}) {
            std::vector<std::string> warnings;
            auto entries = pairFolders(root / "images" / split, root / "masks" / split, warnings);
            const std::string description = describe(split, entries.size());
            (split == std::string("train") ? out.train : out.validation) =
                std::make_shared<FileSegmentationSource>(names, std::move(entries),
                                                         std::move(warnings), description);
        }
        return out;
    }
    std::vector<std::string> warnings;
    auto entries = pairFolders(root / "images", root / "masks", warnings);
    if (entries.size() < 2)
        throw DatasetError((root / "images").string(), -1,
                           "one image: nothing left to validate on (add images, or split them "
                           "into images/train and images/val)");
    // A seeded permutation; the first `held` images validate (at least one, and one left to
    // train on).
    std::vector<std::size_t> order(entries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[math::mix64(seed, i) % i]);
    const auto held = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::llround(valFraction * static_cast<double>(entries.size()))),
        1, entries.size() - 1);
    std::vector<FileSegmentationSource::Entry> train, validation;
    for (std::size_t i = 0; i < order.size(); ++i)
        (i < held ? validation : train).push_back(entries[order[i]]);
    std::sort(train.begin(), train.end(),
              [](const auto& a, const auto& b) { return a.image < b.image; });
    std::sort(validation.begin(), validation.end(),
              [](const auto& a, const auto& b) { return a.image < b.image; });
    out.train = std::make_shared<FileSegmentationSource>(names, std::move(train), warnings,
                                                         describe("train", order.size() - held));
    out.validation = std::make_shared<FileSegmentationSource>(
        names, std::move(validation), std::vector<std::string>{}, describe("validation", held));
    return out;
}

} // namespace tb
