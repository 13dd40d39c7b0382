// A trained detector answering for images (`trainbench-cli predict` on a detector's run, the
// window's Try it): each image letterboxed to the run's data.imgsz as validation does, the head
// decoded and suppressed per class (detect/headdecode.h), the boxes mapped back to the image's
// own pixels.
#pragma once

#include "data/imagecodec.h"
#include "detect/headdecode.h"
#include "train/detectionobjective.h"
#include "train/trainedmodel.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

struct DetectedBox {
    int classIndex = 0;
    std::string className;
    float confidence = 0.0f;
    float x1 = 0, y1 = 0, x2 = 0, y2 = 0; // pixels of the image given
};

// Ultralytics' prediction defaults: conf 0.25, iou 0.7, max_det 300.
detect::NmsOptions predictionNms(float confidence = 0.25f, float iou = 0.7f);

class Detector {
public:
    // A checkpoint or TrainBench ONNX export of a detector (TrainedModel's errors; ConfigError
    // ("model") for a model without a detection head).
    explicit Detector(const std::string& path);
    ~Detector();

    // Whether the checkpoint or ONNX file at `path` holds a detector (read from its config).
    static bool holdsDetector(const std::string& path);

    const ModelCard& card() const { return m_model.card(); }
    const RunConfig& config() const { return m_model.config(); }
    const std::vector<std::string>& classNames() const { return m_model.card().classNames; }
    int imageSize() const { return static_cast<int>(m_model.card().sampleShape[1]); }

    // Each image's boxes, best first, in one forward pass.
    std::vector<std::vector<DetectedBox>> detect(const std::vector<RgbImage>& images,
                                                 const detect::NmsOptions& options);

private:
    TrainedModel m_model;
    std::unique_ptr<DetectionObjective> m_decoder;
};

} // namespace tb
