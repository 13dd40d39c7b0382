#include "export/onnxmodelfile.h"

#include "core/errors.h"
#include "data/imagecodec.h"
#include "export/onnxexport.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <map>

namespace tb {

namespace {

nlohmann::json metadataJson(const std::map<std::string, std::string>& metadata,
                            const std::string& key, const std::string& path) {
    const auto it = metadata.find(key);
    if (it == metadata.end())
        throw DatasetError(path, -1, "the metadata lacks '" + key + "'");
    try {
        return nlohmann::json::parse(it->second);
    } catch (const nlohmann::json::exception& e) {
        throw DatasetError(path, -1, "the metadata's '" + key + "' is not JSON: " + e.what());
    }
}

Tensor floatsOf(const onnx::TensorProto& t, const std::string& path) {
    if (t.data_type() != onnx::TensorProto::FLOAT || t.dims_size() > Shape::kMaxRank)
        throw DatasetError(path, -1,
                           "initializer '" + t.name() +
                               "' is not a float32 tensor "
                               "TrainBench wrote");
    // What the data holds decides the size, checked against the shape before anything is
    // allocated (a hostile shape could ask for exabytes).
    const uint64_t held = t.raw_data().empty()
                              ? static_cast<uint64_t>(t.float_data_size()) * sizeof(float)
                              : t.raw_data().size();
    uint64_t values = 1;
    for (int64_t d : t.dims()) {
        if (d < 0 || (d > 0 && values > held / sizeof(float) / static_cast<uint64_t>(d) + 1))
            throw DatasetError(path, -1,
                               "initializer '" + t.name() + "' has a shape its " +
                                   std::to_string(held) + " bytes do not fill");
        values *= static_cast<uint64_t>(d);
    }
    if (values * sizeof(float) != held)
        throw DatasetError(path, -1,
                           "initializer '" + t.name() + "' holds " + std::to_string(held) +
                               " bytes, its shape " + std::to_string(values * sizeof(float)));
    Tensor out =
        Tensor::host(Shape(std::vector<int64_t>(t.dims().begin(), t.dims().end())), DType::F32);
    std::memcpy(out.raw(),
                t.raw_data().empty() ? static_cast<const void*>(t.float_data().data())
                                     : t.raw_data().data(),
                held);
    return out;
}

} // namespace

bool isOnnxPath(const std::string& path) {
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

OnnxModelFile readOnnxModelFile(const std::string& path) {
    const std::vector<uint8_t> bytes = readWholeFile(path);
    onnx::ModelProto model;
    if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
        model.ir_version() <= 0 || model.graph().node_size() == 0)
        throw DatasetError(path, -1, "not an ONNX model (it does not parse as one)");
    std::map<std::string, std::string> metadata;
    for (const auto& p : model.metadata_props())
        metadata[p.key()] = p.value();
    if (!metadata.count(kOnnxSpecKey))
        throw DatasetError(path, -1,
                           "an ONNX model from '" + model.producer_name() +
                               "', not one TrainBench exported: run it in ONNX Runtime or "
                               "OpenCV; predict reads TrainBench's exports");
    OnnxModelFile file;
    ModelCard& card = file.card;
    card.spec = metadataJson(metadata, kOnnxSpecKey, path);
    card.model = model.graph().name();
    card.dataset = metadata.count("dataset") ? metadata["dataset"] : std::string();
    try {
        const auto sample =
            metadataJson(metadata, kOnnxSampleShapeKey, path).get<std::vector<int64_t>>();
        if (sample.empty() || sample.size() > Shape::kMaxRank)
            throw DatasetError(path, -1,
                               "malformed metadata: the sample shape has " +
                                   std::to_string(sample.size()) + " dimensions");
        card.sampleShape = Shape(sample);
        card.classNames =
            metadataJson(metadata, "class_names", path).get<std::vector<std::string>>();
        if (metadata.count("vocabulary")) {
            card.vocabulary =
                metadataJson(metadata, "vocabulary", path).get<std::vector<std::string>>();
            card.byteLevel = metadata["vocabulary_kind"] == "byte";
        }
    } catch (const nlohmann::json::exception& e) {
        throw DatasetError(path, -1, std::string("malformed metadata: ") + e.what());
    }
    for (const onnx::TensorProto& t : model.graph().initializer()) {
        if (t.name() == "normalize.mean" || t.name() == "normalize.inv_std") {
            const Tensor v = floatsOf(t, path);
            std::vector<float>& dst = t.name() == "normalize.mean" ? card.mean : card.stdDev;
            dst.assign(v.data<float>(), v.data<float>() + v.numel());
        } else if (t.data_type() == onnx::TensorProto::FLOAT && !t.raw_data().empty()) {
            file.initializers.emplace(t.name(), floatsOf(t, path)); // the weights
        }
    }
    for (float& s : card.stdDev) // the file holds 1 / std
        s = s != 0.0f ? 1.0f / s : 1.0f;
    return file;
}

} // namespace tb
