// Detector: letterbox, forward on the CPU, decode, undo the letterbox.
#include "train/detector.h"

#include "core/errors.h"
#include "data/detectaugment.h"
#include "export/onnxmodelfile.h"
#include "nn/yolozoo.h"
#include "train/checkpointer.h"

#include <algorithm>

namespace tb {

detect::NmsOptions predictionNms(float confidence, float iou) {
    detect::NmsOptions o;
    o.confidence = confidence;
    o.iou = iou;
    return o;
}

Detector::Detector(const std::string& path) : m_model(path) {
    const DetectOutput* head = m_model.graph().detectHead();
    if (!head)
        throw ConfigError("model", m_model.card().model + " is not a detector: predict ranks its "
                                                          "classes instead");
    m_decoder = std::make_unique<DetectionObjective>(*head, imageSize());
}

Detector::~Detector() = default;

bool Detector::holdsDetector(const std::string& path) {
    return isYoloV8(isOnnxPath(path) ? readOnnxModelFile(path).card.model
                                     : Checkpointer::configOf(path).model);
}

std::vector<std::vector<DetectedBox>> Detector::detect(const std::vector<RgbImage>& images,
                                                       const detect::NmsOptions& options) {
    const int side = imageSize();
    const auto n = static_cast<int64_t>(images.size());
    if (n == 0)
        return {};
    Tensor x = Tensor::host({n, 3, side, side}, DType::F32);
    const std::size_t plane = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
    std::vector<Affine> maps(images.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        const LabeledImage boxed = letterbox({images[i], {}}, side, &maps[i]);
        float* out = x.data<float>() + i * 3 * plane;
        for (std::size_t p = 0; p < plane; ++p)
            for (std::size_t c = 0; c < 3; ++c)
                out[c * plane + p] = static_cast<float>(boxed.image.pixels[p * 3 + c]) / 255.0f;
    }
    const Tensor& head = m_model.graph().forward(x, false);
    const auto found = m_decoder->detections(m_model.backend(), head, options);
    std::vector<std::vector<DetectedBox>> out(images.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        const auto w = static_cast<float>(images[i].width),
                   h = static_cast<float>(images[i].height);
        const Affine& m = maps[i]; // image -> network input: undone for each box
        for (const detect::ScoredBox& d : found[i]) {
            DetectedBox b;
            b.classIndex = d.category;
            b.className = d.category < std::ssize(classNames())
                              ? classNames()[static_cast<std::size_t>(d.category)]
                              : std::to_string(d.category);
            b.confidence = d.score;
            b.x1 = std::clamp(static_cast<float>((d.box.x1 - m[2]) / m[0]), 0.0f, w);
            b.x2 = std::clamp(static_cast<float>((d.box.x2 - m[2]) / m[0]), 0.0f, w);
            b.y1 = std::clamp(static_cast<float>((d.box.y1 - m[5]) / m[4]), 0.0f, h);
            b.y2 = std::clamp(static_cast<float>((d.box.y2 - m[5]) / m[4]), 0.0f, h);
            out[i].push_back(std::move(b));
        }
    }
    return out;
}

} // namespace tb
