#include "data/imagesample.h"

#include "core/errors.h"
#include "data/imagecodec.h"
#include "data/imagefolder.h"

namespace tb {

std::vector<float> imageFileSample(const std::string& path, const Shape& sampleShape,
                                   bool imageFolderModel) {
    if (sampleShape.rank() != 3 || (sampleShape[0] != 1 && sampleShape[0] != 3))
        throw ConfigError("model", "the model reads samples of " + sampleShape.toString() +
                                       ", not 1- or 3-channel images");
    const int64_t channels = sampleShape[0], height = sampleShape[1], width = sampleShape[2];
    const RgbImage image = decodeImage(readWholeFile(path), path);
    const int64_t pixels = int64_t{image.width} * image.height;
    if (channels == 1)
        for (int64_t i = 0; i < pixels; ++i) {
            const uint8_t* p = &image.pixels[static_cast<std::size_t>(3 * i)];
            if (p[0] != p[1] || p[1] != p[2])
                throw DatasetError(path, -1,
                                   "has colour (pixel " + std::to_string(i % image.width) + ", " +
                                       std::to_string(i / image.width) +
                                       "); the model reads 1-channel greyscale images");
        }
    std::vector<float> out(static_cast<std::size_t>(sampleShape.numel()));
    if (!imageFolderModel && image.width == width && image.height == height) {
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t i = 0; i < pixels; ++i)
                out[static_cast<std::size_t>(c * pixels + i)] =
                    image.pixels[static_cast<std::size_t>(3 * i + c)] / 255.0f;
        return out;
    }
    if (height != width)
        throw DatasetError(path, -1,
                           "is " + std::to_string(image.width) + "x" +
                               std::to_string(image.height) + "; the model reads " +
                               std::to_string(width) + "x" + std::to_string(height) + " images");
    const int size = static_cast<int>(width);
    const CropBox crop = centerCrop(image.width, image.height, size);
    std::vector<float> rgb(static_cast<std::size_t>(3 * size * size));
    resampleCrop(image, crop.x, crop.y, crop.width, crop.height, size, false, rgb.data());
    std::copy(rgb.begin(), rgb.begin() + static_cast<std::ptrdiff_t>(out.size()), out.begin());
    return out;
}

} // namespace tb
