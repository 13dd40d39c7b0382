// Predictor: a trained model answering for samples (the window's "Try it" panel, one at a time;
// `trainbench-cli predict`, a batch of image files): the input normalised as the run's data
// was, the top classes with their softmax probabilities.
#pragma once

#include "core/shape.h"
#include "train/trainedmodel.h"

#include <string>
#include <vector>

namespace tb {

struct Prediction {
    int classIndex = 0;
    std::string className;
    double probability = 0.0;
};

class Predictor {
public:
    // Loads a checkpoint or a TrainBench ONNX export on the CPU (see TrainedModel for what it
    // throws). Throws ConfigError("model") for a language model: `generate` continues text.
    explicit Predictor(const std::string& path);
    ~Predictor();

    const std::string& checkpoint() const { return m_model.path(); }
    const RunConfig& config() const { return m_model.config(); }
    const ModelCard& card() const { return m_model.card(); }
    Shape sampleShape() const { return m_model.card().sampleShape; }
    const std::vector<std::string>& classNames() const { return m_model.card().classNames; }

    // `raw` is one sample before normalisation, sampleShape().numel() values in the dataset's
    // own scale (pixels in [0, 1]). Returns the `top` most probable classes, most probable
    // first. Throws ConfigError("input") when the size is wrong.
    std::vector<Prediction> predict(const std::vector<float>& raw, int top = 5);
    // The same for several samples in one forward pass.
    std::vector<std::vector<Prediction>> predict(const std::vector<std::vector<float>>& raws,
                                                 int top = 5);

private:
    TrainedModel m_model;
    std::vector<float> m_invStd;
};

} // namespace tb
