// ImageFolder: root/<class>/<image>.png|jpg, classes in sorted folder order, each image decoded
// on demand in the loader's workers and made RGB, size x size, as torchvision's recipe for
// ImageNet-style training has it: RandomResizedCrop(size) + horizontal flip when augmenting,
// else Resize(size * 8/7) + CenterCrop(size). A JPEG is decoded only as large as its crop needs.
#pragma once

#include "data/dataset.h"
#include "data/imagecodec.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

struct ImageFolderIndex {
    std::string root;
    std::vector<std::string> classNames;
    std::vector<std::string> files; // sorted by class, then name
    std::vector<int32_t> labels;
};

// Scans root. Throws DatasetError for a missing root, a root with no class folders, or a class
// folder holding no PNG/JPEG files.
ImageFolderIndex scanImageFolder(const std::string& root);

// A crop of an image, in its stored pixels.
struct CropBox {
    float x = 0, y = 0, width = 0, height = 0;
};

// torchvision's RandomResizedCrop (area 8% to 100% of the image, aspect ratio log-uniform in
// [3/4, 4/3], ten tries, then a centre crop at the nearest allowed ratio), drawn from `seed`.
CropBox randomResizedCrop(int width, int height, uint64_t seed);
// Resize(round(size * 8/7)) of the shorter side followed by CenterCrop(size), as one crop of the
// stored image (224 px: torchvision's Resize(256) + CenterCrop(224)).
CropBox centerCrop(int width, int height, int size);

// Bilinear resample of the crop (x0, y0, w, h), in source pixels, of img into a {3, size, size}
// float image in [0, 1], mirrored left-right when flip.
void resampleCrop(const RgbImage& img, float x0, float y0, float w, float h, int size, bool flip,
                  float* out);

class ImageFolderDataset : public Dataset {
public:
    ImageFolderDataset(std::shared_ptr<const ImageFolderIndex> index, int size, bool augment,
                       std::string description);

    int64_t size() const override { return static_cast<int64_t>(m_index->files.size()); }
    Shape sampleShape() const override { return {3, m_size, m_size}; }
    int numClasses() const override { return static_cast<int>(m_index->classNames.size()); }
    std::vector<std::string> classNames() const override { return m_index->classNames; }
    int32_t label(int64_t index) const override;
    // Decodes the file; throws DatasetError naming it when it is unreadable or undecodable.
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    std::shared_ptr<const ImageFolderIndex> m_index;
    int64_t m_size;
    bool m_augment;
    std::string m_description;
};

} // namespace tb
