// fashion-mnist and mnist: the four IDX files of the standard layout, plain or .gz.
#include "data/channelstats.h"
#include "data/idxreader.h"
#include "data/rawsplits.h"

#include "core/errors.h"

#include <filesystem>

namespace tb {

namespace {

// The file `stem` in root, as stem.gz or plain stem, preferring .gz.
std::string findIdxFile(const std::string& root, const std::string& stem) {
    namespace fs = std::filesystem;
    const fs::path gz = fs::path(root) / (stem + ".gz");
    const fs::path plain = fs::path(root) / stem;
    std::error_code ec;
    if (fs::exists(gz, ec))
        return gz.string();
    if (fs::exists(plain, ec))
        return plain.string();
    if (!fs::is_directory(root, ec))
        throw DatasetError(root, -1, "dataset folder does not exist (set data.root)");
    throw DatasetError(gz.string(), -1, "file does not exist (nor " + stem + ")");
}

} // namespace

RawSplits openIdxSplits(const DataConfig& config) {
    const std::string root = config.root.empty() ? defaultDatasetRoot(config.name) : config.root;
    const bool fashion = config.name == "fashion-mnist";
    std::vector<std::string> names;
    if (fashion) {
        names = fashionMnistClassNames();
    } else {
        for (int i = 0; i < 10; ++i)
            names.push_back(std::to_string(i));
    }
    const std::string trainImages = findIdxFile(root, "train-images-idx3-ubyte");
    const std::string trainLabels = findIdxFile(root, "train-labels-idx1-ubyte");
    const std::string testImages = findIdxFile(root, "t10k-images-idx3-ubyte");
    const std::string testLabels = findIdxFile(root, "t10k-labels-idx1-ubyte");
    RawSplits s;
    s.train = IdxDataset::open(trainImages, trainLabels, names, config.name + " train");
    s.validation = IdxDataset::open(testImages, testLabels, names, config.name + " test");
    s.statsKey = statsCacheKey(config.name, {trainImages, trainLabels});
    // 28x28 items: a small shift; clothes may be mirrored, digits may not.
    s.cropPadding = 2;
    s.flip = fashion;
    return s;
}

} // namespace tb
