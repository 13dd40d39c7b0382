// A trained model ready for inference on the CPU: from a checkpoint (its run's dataset opened
// for the class names and the normalisation; a language model's vocabulary from the checkpoint
// itself) or from an ONNX file TrainBench exported (everything from the file: metadata and
// weights). What predict, export and the window's Try it panel load.
#pragma once

#include "backend/backend.h"
#include "export/modelcard.h"
#include "nn/graph.h"
#include "train/runconfig.h"

#include <memory>
#include <string>

namespace tb {

class TrainedModel {
public:
    // Throws DatasetError naming the file for one that is not a checkpoint or a TrainBench
    // ONNX export, or whose weights do not fit its model; ConfigError or DatasetError when a
    // checkpoint's dataset cannot be opened here (a classifier needs its class names).
    explicit TrainedModel(const std::string& path, int threads = 1);
    ~TrainedModel();

    const std::string& path() const { return m_path; }
    const ModelCard& card() const { return m_card; }
    // A checkpoint's run config; for an ONNX file, one naming its model and dataset only.
    const RunConfig& config() const { return m_config; }
    Graph& graph() const { return *m_graph; }
    Backend& backend() const { return *m_backend; }

private:
    void loadCheckpoint();
    void loadOnnx();

    std::string m_path;
    ModelCard m_card;
    RunConfig m_config;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Graph> m_graph;
};

} // namespace tb
