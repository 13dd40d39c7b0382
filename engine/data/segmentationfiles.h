// Segmentation sets read from files, each an image and a mask of class indices (maskcodec.h):
//   voc:   Pascal VOC's layout, JPEGImages/, SegmentationClass/ (palette PNGs) and the split's
//          list in ImageSets/Segmentation/{train,val}.txt; VOC's 21 classes unless a
//          classes.txt beside them names others. The root is the VOC2012 folder, VOCdevkit, or
//          the folder holding VOCdevkit (torchvision's VOCSegmentation root).
//   masks: images/ and masks/, a mask per image under the same stem (.png), the classes in
//          classes.txt (one a line, class 0 first). With images/train and images/val (and the
//          same under masks/) those are the splits; otherwise a seeded fraction of the images is
//          held out for validation.
// Both decode every mask when they open, so that a bad one stops the run before it starts,
// named: a missing mask or listed image, a colour (RGB) mask, a mask of another size than its
// image, a class beyond the names (other than 255, ignored). An image list's blank lines and a
// mask without an image are skipped with a warning.
#pragma once

#include "data/segmentationsource.h"

#include <memory>
#include <string>

namespace tb {

class FileSegmentationSource : public SegmentationSource {
public:
    struct Entry {
        std::string image, mask; // paths
    };
    // Decodes each mask, checks it against its image and counts its classes.
    FileSegmentationSource(std::vector<std::string> names, std::vector<Entry> entries,
                           std::vector<std::string> warnings, std::string description);

    int64_t size() const override { return std::ssize(m_entries); }
    std::vector<std::string> classNames() const override { return m_names; }
    void load(int64_t index, SegmentedImage& out) const override;
    const MaskCounts& maskCounts(int64_t index) const override {
        return m_counts[static_cast<std::size_t>(index)];
    }
    std::string imageName(int64_t index) const override;
    std::string description() const override { return m_description; }

    const Entry& entry(int64_t index) const { return m_entries[static_cast<std::size_t>(index)]; }

private:
    std::vector<std::string> m_names;
    std::vector<Entry> m_entries;
    std::vector<MaskCounts> m_counts;
    std::string m_description;
};

// VOC's 21 class names, background first.
const std::vector<std::string>& vocClassNames();

// `split`: "train" or "val".
std::shared_ptr<FileSegmentationSource> openVocSegmentation(const std::string& root,
                                                            const std::string& split);

struct MaskFolderSplits {
    std::shared_ptr<FileSegmentationSource> train, validation;
};
// `valFraction` and `seed` choose the held-out images when the folders are not split.
MaskFolderSplits openMaskFolders(const std::string& root, double valFraction, uint64_t seed);

} // namespace tb
