#include "export/onnxexport.h"

#include "core/errors.h"
#include "export/onnxbuilder.h"
#include "export/onnxlayers.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace tb {

namespace {

void addMetadata(onnx::ModelProto& model, const std::string& key, const std::string& value) {
    onnx::StringStringEntryProto* p = model.add_metadata_props();
    p->set_key(key);
    p->set_value(value);
}

std::string normalisationText(const ModelCard& card) {
    if (card.readsTokenIds())
        return "none: the input is token ids";
    if (card.mean.empty())
        return "none: the input is fed as the dataset stores it";
    return "in the graph: feed pixels in [0, 1]; it computes (x - mean) / std per channel with "
           "mean " +
           nlohmann::json(card.mean).dump() + " and std " + nlohmann::json(card.stdDev).dump();
}

// The run's normalisation as the graph's first two nodes, so callers feed raw pixels.
std::string normalise(OnnxGraphBuilder& g, const ModelCard& card, const std::string& input) {
    if (card.mean.empty() || card.readsTokenIds())
        return input;
    const Shape& s = card.sampleShape;
    std::vector<int64_t> dims{static_cast<int64_t>(card.mean.size())};
    for (int i = 1; i < s.rank(); ++i)
        dims.push_back(1); // broadcast over the plane: (C, 1, 1)
    std::vector<float> inv;
    for (float sd : card.stdDev)
        inv.push_back(sd > 1e-6f ? 1.0f / sd : 1.0f); // as the data loader does
    const std::string centred =
        g.node("Sub", {input, g.floats("normalize.mean", dims, card.mean)}, "normalize.centred");
    return g.node("Mul", {centred, g.floats("normalize.inv_std", dims, inv)}, "normalized");
}

// ONNX's checker and strict shape inference on a copy (inference adds value infos), and the
// logits' inferred shape against ours: an exporter bug is caught here, not by the user's runtime.
void check(const onnx::ModelProto& model, const Shape& logits) {
    onnx::ModelProto copy = model;
    try {
        onnx::checker::check_model(copy);
        onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions(true, 1, true));
    } catch (const std::exception& e) {
        throw Error(std::string("the exported graph fails ONNX's checker (an exporter bug): ") +
                    e.what());
    }
    const auto& dims = copy.graph().output(0).type().tensor_type().shape();
    if (dims.dim_size() != logits.rank())
        throw Error("the exported graph's logits have rank " + std::to_string(dims.dim_size()) +
                    ", the model's " + std::to_string(logits.rank()) + " (an exporter bug)");
    const int last = logits.rank() - 1;
    if (dims.dim(last).has_dim_value() && dims.dim(last).dim_value() != logits[last])
        throw Error("the exported graph gives " + std::to_string(dims.dim(last).dim_value()) +
                    " logits per prediction, the model " + std::to_string(logits[last]) +
                    " (an exporter bug)");
}

void writeWhole(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            const std::string why = std::strerror(errno);
            out.close();
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            throw Error("cannot write " + path + ": " + why);
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw Error("cannot write " + path + ": " + ec.message());
    }
}

} // namespace

void exportOnnx(Graph& graph, const ModelCard& card, const std::string& path,
                const OnnxExportOptions& options) {
    if (options.opset < kOnnxMinOpset || options.opset > kOnnxMaxOpset)
        throw ConfigError("--opset",
                          "opset " + std::to_string(options.opset) +
                              " is not one the exporter writes: " + std::to_string(kOnnxMinOpset) +
                              " to " + std::to_string(kOnnxMaxOpset));
    if (options.batch < 0)
        throw ConfigError("--batch", "the batch size must be positive, or dynamic");

    onnx::ModelProto model;
    model.set_ir_version(onnx::IR_VERSION);
    model.set_producer_name("TrainBench");
    model.set_domain("org.trainbench");
    model.set_doc_string(card.model + " trained on " + card.dataset + " with TrainBench");
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(options.opset);
    onnx::GraphProto& graphProto = *model.mutable_graph();
    graphProto.set_name(card.model);
    OnnxGraphBuilder g(graphProto);

    const OnnxDim batch = options.batch ? OnnxDim{options.batch, {}} : OnnxDim{0, "batch"};
    std::vector<OnnxDim> inputDims{batch};
    std::string input;
    if (card.readsTokenIds()) {
        input = "input_ids";
        inputDims.push_back({0, "sequence"});
        g.input(input, onnx::TensorProto::INT64, inputDims);
    } else {
        input = "input";
        for (int64_t d : card.sampleShape.dims())
            inputDims.push_back({d, {}});
        g.input(input, onnx::TensorProto::FLOAT, inputDims);
    }

    for (const NamedTensor& t : graph.stateDict()) {
        Tensor host = Tensor::host(t.tensor->shape(), DType::F32);
        graph.backend().copy(*t.tensor, host);
        g.parameter(t.name, host);
    }

    std::map<std::string, std::string> values{{"input", normalise(g, card, input)}};
    std::map<std::string, Shape> shapes{{"input", graph.inputShape().withBatch(1)}};
    const std::vector<LayerRow> rows = graph.summary(1);
    // Only what the scores depend on: an auxiliary head (torchvision's aux_classifier) trains
    // but answers nothing, so its nodes stay out (its weights stay in, for the round trip).
    std::set<std::string> needed{rows.back().name};
    for (auto row = rows.rbegin(); row != rows.rend(); ++row)
        if (needed.count(row->name))
            needed.insert(row->inputs.begin(), row->inputs.end());
    std::string last;
    for (const LayerRow& row : rows) {
        if (!needed.count(row.name))
            continue;
        OnnxLayer l{*graph.layer(row.name), {}, {}, row.output, options.opset};
        for (const std::string& in : row.inputs) {
            l.inputs.push_back(values.at(in));
            l.inputShapes.push_back(shapes.at(in));
        }
        last = values[row.name] = emitOnnxLayer(g, l);
        shapes[row.name] = row.output;
    }
    g.rename(last, "logits");
    std::vector<OnnxDim> outputDims{batch};
    const Shape logits = shapes.at(rows.back().name);
    if (logits.rank() == 3)
        outputDims.push_back({0, "sequence"});
    if (graph.pixelLogits()) // (N, classes, H, W): a score per class and pixel
        for (int d = 1; d < logits.rank() - 1; ++d)
            outputDims.push_back({logits[d], {}});
    outputDims.push_back({logits[logits.rank() - 1], {}});
    g.output("logits", onnx::TensorProto::FLOAT, outputDims);

    addMetadata(model, "class_names",
                nlohmann::json(card.classNames)
                    .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    addMetadata(model, "input_normalization", normalisationText(card));
    addMetadata(model, "dataset", card.dataset);
    if (card.readsTokenIds()) {
        addMetadata(model, "vocabulary",
                    nlohmann::json(card.vocabulary)
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        addMetadata(model, "vocabulary_kind", card.byteLevel ? "byte" : "char");
    }
    addMetadata(model, kOnnxSampleShapeKey, nlohmann::json(card.sampleShape.dims()).dump());
    addMetadata(model, kOnnxSpecKey, card.spec.dump());

    check(model, logits);
    std::string bytes;
    if (!model.SerializeToString(&bytes))
        throw Error("cannot serialise the ONNX model for " + path +
                    " (protobuf's 2 GiB limit: the weights belong in external data)");
    writeWhole(path, bytes);
}

} // namespace tb
