// A trained segmentation model answering for images (`trainbench-cli predict --masks`, the
// window's Try it): each image resized whole to the run's input size as validation does, the
// scores brought back to the image's own size by bilinear resampling (what torchvision's
// F.interpolate does to its logits), and the most probable class taken at every pixel.
#pragma once

#include "data/imagecodec.h"
#include "data/maskcodec.h"
#include "train/trainedmodel.h"

#include <string>
#include <vector>

namespace tb {

struct SegmentedPrediction {
    ClassMask mask;                     // the image's size: a class at every pixel
    std::vector<double> classShare;     // each class's share of the pixels
    std::vector<double> meanConfidence; // each class's mean softmax probability where chosen
};

class Segmenter {
public:
    // A checkpoint or TrainBench ONNX export of a segmentation model (TrainedModel's errors;
    // ConfigError("model") for one without per-pixel scores).
    explicit Segmenter(const std::string& path);
    ~Segmenter();

    // Whether the checkpoint or ONNX file at `path` holds a segmentation model (read from the
    // run's dataset: a set with masks trains one).
    static bool holdsSegmenter(const std::string& path);

    const ModelCard& card() const { return m_model.card(); }
    const RunConfig& config() const { return m_model.config(); }
    const std::vector<std::string>& classNames() const { return m_model.card().classNames; }
    int inputHeight() const { return static_cast<int>(m_model.card().sampleShape[1]); }
    int inputWidth() const { return static_cast<int>(m_model.card().sampleShape[2]); }

    // Each image's mask, in one forward pass.
    std::vector<SegmentedPrediction> segment(const std::vector<RgbImage>& images);

private:
    TrainedModel m_model;
};

} // namespace tb
