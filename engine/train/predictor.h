// Predictor: a trained model loaded from a checkpoint, answering for one sample at a time (the
// window's "Try it" panel): the input normalised as the run's data was, the top classes with
// their softmax probabilities.
#pragma once

#include "backend/backend.h"
#include "core/shape.h"
#include "nn/graph.h"
#include "train/runconfig.h"

#include <memory>
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
    // Reads the checkpoint's config and weights and opens its dataset (for the sample shape,
    // the class names and the normalisation) on the CPU. Throws DatasetError naming the file
    // for a checkpoint that is not one or does not fit its model, ConfigError or DatasetError
    // when the run's dataset cannot be opened here.
    explicit Predictor(const std::string& checkpointPath);
    ~Predictor();

    const std::string& checkpoint() const { return m_checkpoint; }
    const RunConfig& config() const { return m_config; }
    Shape sampleShape() const { return m_shape; }
    const std::vector<std::string>& classNames() const { return m_classNames; }

    // `raw` is one sample before normalisation, sampleShape().numel() values in the dataset's
    // own scale (pixels in [0, 1]). Returns the `top` most probable classes, most probable
    // first. Throws ConfigError("input") when the size is wrong.
    std::vector<Prediction> predict(const std::vector<float>& raw, int top = 5);

private:
    std::string m_checkpoint;
    RunConfig m_config;
    Shape m_shape;
    std::vector<std::string> m_classNames;
    std::vector<float> m_mean, m_invStd;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Graph> m_graph;
};

} // namespace tb
