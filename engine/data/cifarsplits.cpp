// cifar10 and cifar100: the binary batches in data.root (or its cifar-*-bin* sub-folder).
#include "data/channelstats.h"
#include "data/cifarreader.h"
#include "data/rawsplits.h"

#include "core/errors.h"

#include <filesystem>
#include <fstream>

namespace tb {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& cifar10Names() {
    static const std::vector<std::string> kNames = {
        "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
    return kNames;
}

// CIFAR-100's fine classes in label order (as in fine_label_names.txt).
const std::vector<std::string>& cifar100Names() {
    static const std::vector<std::string> kNames = {
        "apple",       "aquarium_fish", "baby",      "bear",       "beaver",       "bed",
        "bee",         "beetle",        "bicycle",   "bottle",     "bowl",         "boy",
        "bridge",      "bus",           "butterfly", "camel",      "can",          "castle",
        "caterpillar", "cattle",        "chair",     "chimpanzee", "clock",        "cloud",
        "cockroach",   "couch",         "crab",      "crocodile",  "cup",          "dinosaur",
        "dolphin",     "elephant",      "flatfish",  "forest",     "fox",          "girl",
        "hamster",     "house",         "kangaroo",  "keyboard",   "lamp",         "lawn_mower",
        "leopard",     "lion",          "lizard",    "lobster",    "man",          "maple_tree",
        "motorcycle",  "mountain",      "mouse",     "mushroom",   "oak_tree",     "orange",
        "orchid",      "otter",         "palm_tree", "pear",       "pickup_truck", "pine_tree",
        "plain",       "plate",         "poppy",     "porcupine",  "possum",       "rabbit",
        "raccoon",     "ray",           "road",      "rocket",     "rose",         "sea",
        "seal",        "shark",         "shrew",     "skunk",      "skyscraper",   "snail",
        "snake",       "spider",        "squirrel",  "streetcar",  "sunflower",    "sweet_pepper",
        "table",       "tank",          "telephone", "television", "tiger",        "tractor",
        "train",       "trout",         "tulip",     "turtle",     "wardrobe",     "whale",
        "willow_tree", "wolf",          "woman",     "worm"};
    return kNames;
}

// root itself when it holds `probe`, else the sub-folder that does.
std::string resolveFolder(const std::string& root, const std::string& sub,
                          const std::string& probe) {
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        throw DatasetError(root, -1, "dataset folder does not exist (set data.root)");
    if (fs::exists(fs::path(root) / probe, ec))
        return root;
    if (fs::exists(fs::path(root) / sub / probe, ec))
        return (fs::path(root) / sub).string();
    throw DatasetError((fs::path(root) / probe).string(), -1, "file does not exist");
}

std::shared_ptr<CifarDataset> load(const std::vector<std::string>& files, bool hundred,
                                   std::vector<std::string> names, std::string description) {
    CifarArray all;
    for (const std::string& f : files) {
        auto in = openByteReader(f);
        readCifarBatch(*in, hundred, all);
    }
    return std::make_shared<CifarDataset>(std::move(all), std::move(names), std::move(description));
}

} // namespace

RawSplits openCifarSplits(const DataConfig& config) {
    const bool hundred = config.name == "cifar100";
    const std::string root = config.root.empty() ? defaultDatasetRoot(config.name) : config.root;
    std::vector<std::string> train, test;
    std::string folder;
    if (hundred) {
        folder = resolveFolder(root, "cifar-100-binary", "train.bin");
        train = {(fs::path(folder) / "train.bin").string()};
        test = {(fs::path(folder) / "test.bin").string()};
    } else {
        folder = resolveFolder(root, "cifar-10-batches-bin", "data_batch_1.bin");
        for (int i = 1; i <= 5; ++i)
            train.push_back(
                (fs::path(folder) / ("data_batch_" + std::to_string(i) + ".bin")).string());
        test = {(fs::path(folder) / "test_batch.bin").string()};
    }
    std::vector<std::string> names = hundred ? cifar100Names() : cifar10Names();
    RawSplits s;
    s.train = load(train, hundred, names, config.name + " train");
    s.validation = load(test, hundred, names, config.name + " test");
    s.statsKey = statsCacheKey(config.name, train);
    s.cropPadding = 4;
    s.flip = true;
    return s;
}

} // namespace tb
