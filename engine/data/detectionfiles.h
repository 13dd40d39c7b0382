// Detection sets read from files: a YOLO folder (Ultralytics' data.yaml, images/ and labels/)
// or COCO's instances JSON. Both read every label when they open and decode an image only when
// it is loaded.
//
// What stops the run (DatasetError naming the file and line, or the JSON path) and what is
// skipped with a warning (DetectionSource::warnings()):
//   stops: a malformed label line or JSON value, NaN or infinity, a class id outside the names,
//          a box wholly outside its image, a data.yaml without names or without the split's
//          folder, a COCO annotation for an image or category the file does not list;
//   skips: a box of zero width or height, a duplicate label line, a box partly outside its
//          image (clipped to it), a label file or COCO image whose image file is missing, an
//          image in a format other than PNG or JPEG.
// An image without a label file (or without annotations) is a background image, as in
// Ultralytics: it is trained on with no boxes.
#pragma once

#include "data/detectionsource.h"

#include <memory>
#include <string>

namespace tb {

class FileDetectionSource : public DetectionSource {
public:
    struct Entry {
        std::string path; // the image file
        ImageLabels labels;
    };
    FileDetectionSource(std::string root, std::vector<std::string> names,
                        std::vector<Entry> entries, std::vector<std::string> warnings,
                        std::string description);

    int64_t size() const override { return std::ssize(m_entries); }
    std::vector<std::string> classNames() const override { return m_names; }
    LabeledImage load(int64_t index) const override;
    const ImageLabels& labels(int64_t index) const override;
    // From the file's header where the labels do not say (YOLO's).
    std::pair<int, int> imageSize(int64_t index) const override;
    std::string imageName(int64_t index) const override;
    std::string description() const override { return m_description; }

private:
    std::string m_root;
    std::vector<std::string> m_names;
    std::vector<Entry> m_entries;
    std::string m_description;
};

// `yaml`: a data.yaml, or a folder holding one. `split`: "train" or "val".
std::shared_ptr<FileDetectionSource> openYoloSplit(const std::string& yaml,
                                                   const std::string& split);

// `root`: a folder with annotations/instances_<split>*.json and the images in <root>/<name>,
// <root>/images/<name> (name: the JSON's suffix, e.g. val2017) or <root>/images; or a JSON file
// itself, with the images beside it. `split`: "train" or "val".
std::shared_ptr<FileDetectionSource> openCocoSplit(const std::string& root,
                                                   const std::string& split);

} // namespace tb
