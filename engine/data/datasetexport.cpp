// exportImageFolder: samples back to 8-bit pixels, resized, encoded on a few threads.
#include "data/datasetexport.h"

#include "core/errors.h"
#include "data/datasets.h"
#include "data/imagecodec.h"
#include "data/imagefolder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

namespace tb {

namespace fs = std::filesystem;

namespace {

// A class's folder name: its name with path separators and leading dots made harmless, or its
// index when it has no name.
std::string folderName(const std::vector<std::string>& names, int label) {
    std::string name = label < static_cast<int>(names.size()) ? names[label] : std::string();
    for (char& c : name)
        if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
            c = '_';
    if (name.empty() || name.front() == '.')
        name = std::to_string(label) + (name.empty() ? "" : "_" + name);
    return name;
}

// One sample, {C, H, W} floats in [0, 1], as 8-bit pixels of side `size` (C 1 or 3).
void toPixels(const std::vector<float>& sample, const Shape& shape, int size, RgbImage& rgb,
              std::vector<float>& resized, std::vector<uint8_t>& out) {
    const auto channels = static_cast<int>(shape[0]);
    const auto h = static_cast<int>(shape[1]), w = static_cast<int>(shape[2]);
    rgb.width = w;
    rgb.height = h;
    rgb.pixels.resize(static_cast<std::size_t>(w) * h * 3);
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    for (std::size_t i = 0; i < plane; ++i)
        for (int c = 0; c < 3; ++c) {
            const float v = sample[(channels == 3 ? c : 0) * plane + i];
            rgb.pixels[i * 3 + c] =
                static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255));
        }
    resized.resize(static_cast<std::size_t>(3) * size * size);
    resampleCrop(rgb, 0, 0, static_cast<float>(w), static_cast<float>(h), size, false,
                 resized.data());
    const std::size_t outPlane = static_cast<std::size_t>(size) * size;
    out.resize(outPlane * channels);
    for (std::size_t i = 0; i < outPlane; ++i)
        for (int c = 0; c < channels; ++c)
            out[i * channels + c] = static_cast<uint8_t>(
                std::lround(std::clamp(resized[c * outPlane + i], 0.0f, 1.0f) * 255));
}

} // namespace

void requireEmptyExportFolder(const std::string& folder) {
    std::error_code ec;
    if (fs::exists(folder, ec)) {
        if (!fs::is_directory(folder, ec))
            throw Error(folder + " exists and is not a folder");
        if (!fs::is_empty(folder, ec))
            throw Error(folder + " is not empty: dataset-export writes only into a new or "
                                 "empty folder, so nothing is overwritten");
    }
    fs::create_directories(folder, ec);
    if (ec)
        throw Error("cannot create " + folder + ": " + ec.message());
}

DatasetExportResult exportImageFolder(const DataConfig& data, const std::string& folder,
                                      const DatasetExportOptions& options) {
    if (options.format != "jpeg" && options.format != "png")
        throw ConfigError("--format", quoteUserData(options.format) + " must be jpeg or png");
    if (options.size != 0 && (options.size < kMinImageSize || options.size > kMaxImageSize))
        throw ConfigError("--size", "must be from " + std::to_string(kMinImageSize) + " to " +
                                        std::to_string(kMaxImageSize) + " pixels");
    if (options.quality < 1 || options.quality > 100)
        throw ConfigError("--quality", "must be from 1 to 100");
    DataConfig plain = data;
    plain.normalize = false;
    plain.augment = false;
    const DatasetSplits splits = openDatasets(plain, 0);
    const Dataset& train = *splits.train;
    const Shape shape = train.sampleShape();
    if (shape.rank() != 3 || (shape[0] != 1 && shape[0] != 3))
        throw ConfigError("dataset", data.name + " samples are " + shape.toString() +
                                         ", not grey or RGB images: there is nothing to draw");
    DatasetExportResult result;
    result.size = options.size ? options.size : static_cast<int>(shape[2]);
    result.images = options.limit > 0 ? std::min(options.limit, train.size()) : train.size();
    requireEmptyExportFolder(folder);
    // A folder for each class the written samples hold (ImageFolder refuses an empty one).
    const std::vector<std::string> names = train.classNames();
    std::vector<bool> present(static_cast<std::size_t>(train.numClasses()), false);
    for (int64_t i = 0; i < result.images; ++i)
        present.at(static_cast<std::size_t>(train.label(i))) = true;
    for (std::size_t label = 0; label < present.size(); ++label)
        if (present[label]) {
            fs::create_directories(fs::path(folder) / folderName(names, static_cast<int>(label)));
            ++result.classes;
        }

    const int threads = options.threads > 0
                            ? options.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::string extension = options.format == "jpeg" ? ".jpg" : ".png";
    std::atomic<int64_t> next{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<bool> failed{false};
    std::mutex failureMutex;
    std::exception_ptr failure; // the first thread's error
    auto work = [&] {
        std::vector<float> sample(static_cast<std::size_t>(shape.numel())), resized;
        std::vector<uint8_t> pixels;
        RgbImage rgb;
        try {
            for (int64_t i = next++; i < result.images && !failed; i = next++) {
                const int32_t label = train.get(i, sample.data(), 0);
                toPixels(sample, shape, result.size, rgb, resized, pixels);
                char name[32];
                std::snprintf(name, sizeof name, "%05lld", static_cast<long long>(i));
                const fs::path path =
                    fs::path(folder) / folderName(names, label) / (name + extension);
                const auto channels = static_cast<int>(shape[0]);
                if (options.format == "jpeg")
                    writeJpeg(path.string(), result.size, result.size, channels, pixels,
                              options.quality);
                else
                    writePng(path.string(), result.size, result.size, channels, pixels);
                std::error_code ec;
                bytes += fs::file_size(path, ec);
            }
        } catch (...) {
            const std::lock_guard lock(failureMutex);
            if (!failure)
                failure = std::current_exception();
            failed = true;
        }
    };
    {
        std::vector<std::jthread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back(work);
    }
    if (failure)
        std::rethrow_exception(failure);
    result.bytes = bytes;
    return result;
}

} // namespace tb
