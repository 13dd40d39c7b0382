#include "train/trainedmodel.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "data/datasets.h"
#include "export/onnxmodelfile.h"
#include "nn/modelzoo.h"
#include "train/checkpointer.h"

namespace tb {

TrainedModel::TrainedModel(const std::string& path, int threads)
    : m_path(path), m_backend(createBackend(Device::cpu(), threads)) {
    if (isOnnxPath(path))
        loadOnnx();
    else
        loadCheckpoint();
}

TrainedModel::~TrainedModel() = default;

void TrainedModel::loadCheckpoint() {
    m_config = Checkpointer::configOf(m_path);
    // Computed as the run computed its validation: evaluate reproduces its numbers.
    m_backend->setMemoryFormat(memoryFormatOf(m_config.memoryFormat));
    m_backend->setConvAlgorithm(convAlgorithmOf(m_config.convAlgorithm));
    m_card.model = m_config.model;
    m_card.dataset = m_config.data.name;
    const Checkpointer::Vocabulary vocabulary = Checkpointer::vocabularyOf(m_path);
    int classes = 0;
    if (!vocabulary.tokens.empty()) {
        // A language model: its vocabulary came with it, the text it read may be gone.
        m_card.vocabulary = vocabulary.tokens;
        m_card.byteLevel = vocabulary.byteLevel;
        m_card.classNames = vocabulary.tokens;
        m_card.sampleShape = Shape{m_config.data.blockSize};
        classes = static_cast<int>(vocabulary.tokens.size());
    } else {
        // Normalised as the run trained (ImageNet's statistics when it started from
        // pretrained weights).
        const DatasetSplits data = openDatasets(
            m_config.data, m_config.seed, !m_config.modelOptions.value("pretrained", "").empty());
        m_card.sampleShape = data.validation->sampleShape();
        classes = data.validation->numClasses();
        m_card.classNames = data.validation->classNames();
        m_card.classNames.resize(static_cast<std::size_t>(classes));
        for (int c = 0; c < classes; ++c)
            if (m_card.classNames[static_cast<std::size_t>(c)].empty())
                m_card.classNames[static_cast<std::size_t>(c)] = "class " + std::to_string(c);
        m_card.mean = data.mean;
        m_card.stdDev = data.stdDev;
    }
    m_card.spec = modelSpec(m_config.model, m_card.sampleShape, classes, m_config.modelOptions);
    m_graph = std::make_unique<Graph>(m_card.spec, *m_backend, DType::F32, m_config.seed);
    Checkpointer::loadWeights(m_path, *m_graph);
}

void TrainedModel::loadOnnx() {
    OnnxModelFile file = readOnnxModelFile(m_path);
    m_card = std::move(file.card);
    m_config.model = m_card.model;
    m_config.data.name = m_card.dataset;
    try {
        m_graph = std::make_unique<Graph>(m_card.spec, *m_backend, DType::F32, 0);
    } catch (const ConfigError& e) {
        throw DatasetError(m_path, -1, std::string("its model spec does not build: ") + e.what());
    }
    for (const NamedTensor& t : m_graph->stateDict()) {
        const auto it = file.initializers.find(t.name);
        if (it == file.initializers.end())
            throw DatasetError(m_path, -1, "the weights lack '" + t.name + "'");
        if (!(it->second.shape() == t.tensor->shape()))
            throw DatasetError(m_path, -1,
                               "'" + t.name + "' is " + it->second.shape().toString() +
                                   ", the model wants " + t.tensor->shape().toString());
        m_backend->copy(it->second, *t.tensor);
    }
}

} // namespace tb
