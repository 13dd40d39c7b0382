// Builds the zoo's model specs in code (ResNets are regular enough to generate).
#include "nn/modelzoo.h"

#include "core/errors.h"
#include "io/jsontext.h"
#include "nn/finetune.h"
#include "nn/segmentationzoo.h"
#include "nn/torchvisionzoo.h"
#include "nn/unetzoo.h"
#include "nn/yolozoo.h"
#include "nn/zoospec.h"

#include <cmath>
#include <sstream>

namespace tb {

namespace {

using nlohmann::json;

std::vector<int64_t> parseWidths(const std::string& text) {
    std::vector<int64_t> widths;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        try {
            std::size_t used = 0;
            const long long v = std::stoll(item, &used);
            if (used != item.size() || v < 1)
                throw std::invalid_argument(item);
            widths.push_back(v);
        } catch (const std::exception&) {
            throw ConfigError("model.hidden", quoteUserData(text) +
                                                  " must be positive widths separated by commas, "
                                                  "e.g. 256,128");
        }
    }
    return widths;
}

json mlp(const json& options) {
    json layers = json::array({layerSpec("flatten", "flatten")});
    const auto widths = parseWidths(options.value("hidden", "256,128"));
    const float dropout = options.value("dropout", 0.0f);
    for (std::size_t i = 0; i < widths.size(); ++i) {
        const std::string n = "fc" + std::to_string(i + 1);
        layers.push_back(layerSpec("linear", n, {{"out_features", widths[i]}}));
        layers.push_back(layerSpec("relu", n + ".relu"));
        if (dropout > 0.0f)
            layers.push_back(layerSpec("dropout", n + ".dropout", {{"p", dropout}}));
    }
    layers.push_back(layerSpec("linear", "fc" + std::to_string(widths.size() + 1),
                               {{"out_features", "CLASSES"}}));
    return layers;
}

json lenet5() {
    return json::array({
        layerSpec("conv2d", "conv1", {{"out_channels", 6}, {"kernel", 5}, {"padding", 2}}),
        layerSpec("relu", "relu1"),
        layerSpec("maxpool2d", "pool1", {{"kernel", 2}}),
        layerSpec("conv2d", "conv2", {{"out_channels", 16}, {"kernel", 5}}),
        layerSpec("relu", "relu2"),
        layerSpec("maxpool2d", "pool2", {{"kernel", 2}}),
        layerSpec("flatten", "flatten"),
        layerSpec("linear", "fc1", {{"out_features", 120}}),
        layerSpec("relu", "relu3"),
        layerSpec("linear", "fc2", {{"out_features", 84}}),
        layerSpec("relu", "relu4"),
        layerSpec("linear", "fc3", {{"out_features", "CLASSES"}}),
    });
}

json fmnistCnn() {
    json layers = json::array();
    int64_t channels = 32;
    for (int i = 1; i <= 2; ++i, channels *= 2) {
        const std::string b = "block" + std::to_string(i);
        layers.push_back(layerSpec(
            "conv2d", b + ".conv",
            {{"out_channels", channels}, {"kernel", 3}, {"padding", 1}, {"bias", false}}));
        layers.push_back(layerSpec("batchnorm2d", b + ".bn"));
        layers.push_back(layerSpec("relu", b + ".relu"));
        layers.push_back(layerSpec("maxpool2d", b + ".pool", {{"kernel", 2}}));
    }
    layers.push_back(layerSpec("flatten", "flatten"));
    layers.push_back(layerSpec("linear", "fc1", {{"out_features", 128}}));
    layers.push_back(layerSpec("relu", "fc1.relu"));
    layers.push_back(layerSpec("linear", "fc2", {{"out_features", "CLASSES"}}));
    return layers;
}

// CIFAR ResNet (He et al. 2016, sec. 4.2): 6n+2 layers, widths 16/32/64.
json resnet(int depth, const std::string& shortcut) {
    if (shortcut != "A" && shortcut != "B")
        throw ConfigError("model.shortcut", quoteUserData(shortcut) + " must be A or B");
    const int n = (depth - 2) / 6;
    json layers = json::array({
        layerSpec("conv2d", "stem.conv",
                  {{"out_channels", 16}, {"kernel", 3}, {"padding", 1}, {"bias", false}}),
        layerSpec("batchnorm2d", "stem.bn"),
        layerSpec("relu", "stem.relu"),
    });
    std::string prev = "stem.relu";
    int64_t cin = 16;
    for (int stage = 0; stage < 3; ++stage) {
        const int64_t cout = 16 << stage;
        for (int i = 0; i < n; ++i) {
            const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
            const std::string b = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
            layers.push_back(layerSpec("conv2d", b + ".conv1",
                                       {{"out_channels", cout},
                                        {"kernel", 3},
                                        {"stride", stride},
                                        {"padding", 1},
                                        {"bias", false},
                                        {"inputs", {prev}}}));
            layers.push_back(layerSpec("batchnorm2d", b + ".bn1"));
            layers.push_back(layerSpec("relu", b + ".relu1"));
            layers.push_back(layerSpec(
                "conv2d", b + ".conv2",
                {{"out_channels", cout}, {"kernel", 3}, {"padding", 1}, {"bias", false}}));
            layers.push_back(layerSpec("batchnorm2d", b + ".bn2"));
            std::string identity = prev;
            if (stride != 1 || cin != cout) {
                if (shortcut == "A") {
                    layers.push_back(layerSpec(
                        "shortcut_pad", b + ".shortcut",
                        {{"out_channels", cout}, {"stride", stride}, {"inputs", {prev}}}));
                } else {
                    layers.push_back(layerSpec("conv2d", b + ".shortcut",
                                               {{"out_channels", cout},
                                                {"kernel", 1},
                                                {"stride", stride},
                                                {"bias", false},
                                                {"inputs", {prev}}}));
                    layers.push_back(layerSpec("batchnorm2d", b + ".shortcut_bn"));
                    identity = b + ".shortcut_bn";
                }
                if (shortcut == "A")
                    identity = b + ".shortcut";
            }
            layers.push_back(layerSpec("add", b + ".add", {{"inputs", {b + ".bn2", identity}}}));
            layers.push_back(layerSpec("relu", b + ".relu2"));
            prev = b + ".relu2";
            cin = cout;
        }
    }
    layers.push_back(layerSpec("globalavgpool", "pool"));
    layers.push_back(layerSpec("flatten", "flatten"));
    layers.push_back(layerSpec("linear", "fc", {{"out_features", "CLASSES"}}));
    return layers;
}

// A small VGG: three stages of two 3x3 conv + BN + ReLU, max pooling, then a classifier.
json vggSmall(const json& options) {
    json layers = json::array();
    int64_t channels = 32;
    for (int stage = 1; stage <= 3; ++stage, channels *= 2) {
        for (int i = 1; i <= 2; ++i) {
            const std::string b = "stage" + std::to_string(stage) + ".conv" + std::to_string(i);
            layers.push_back(layerSpec(
                "conv2d", b,
                {{"out_channels", channels}, {"kernel", 3}, {"padding", 1}, {"bias", false}}));
            layers.push_back(layerSpec("batchnorm2d", b + ".bn"));
            layers.push_back(layerSpec("relu", b + ".relu"));
        }
        layers.push_back(layerSpec("maxpool2d", "stage" + std::to_string(stage) + ".pool"));
    }
    layers.push_back(layerSpec("globalavgpool", "pool"));
    layers.push_back(layerSpec("flatten", "flatten"));
    layers.push_back(layerSpec("linear", "fc1", {{"out_features", 128}}));
    layers.push_back(layerSpec("relu", "fc1.relu"));
    layers.push_back(layerSpec("dropout", "fc1.dropout",
                               {{"p", options.value("dropout", defaultDropout("vgg-small"))}}));
    layers.push_back(layerSpec("linear", "fc2", {{"out_features", "CLASSES"}}));
    return layers;
}

// nanoGPT's GPT (model.py) with its parameter names: token and position embeddings, n_layer
// pre-norm blocks (causal self-attention, then a 4x-wide GELU MLP, each added back to the
// residual stream), a final layer norm and the output projection tied to the token embedding.
// Weights start as nanoGPT's: normal with std 0.02, the residual projections' scaled by
// 1/sqrt(2 n_layer), biases zero.
json gpt(const Shape& input, const json& options) {
    if (input.rank() != 1)
        throw ConfigError("model", "gpt is a language model: it trains on text (dataset=text), "
                                   "not on samples of shape " +
                                       input.toString());
    const int64_t layers = options.value("n_layer", 4), heads = options.value("n_head", 4),
                  width = options.value("n_embd", 128);
    const float dropout = options.value("dropout", 0.0f);
    if (width % heads != 0)
        throw ConfigError("model.n_embd", std::to_string(width) + " does not split into " +
                                              std::to_string(heads) + " heads (model.n_head)");
    const double residualStd = 0.02 / std::sqrt(2.0 * static_cast<double>(layers));
    json out = json::array();
    out.push_back(
        layerSpec("embedding", "transformer.wte",
                  {{"num_embeddings", "CLASSES"}, {"embedding_dim", width}, {"init_std", 0.02}}));
    out.push_back(layerSpec("position_embedding", "transformer.wpe",
                            {{"block_size", input[0]}, {"init_std", 0.02}}));
    std::string residual = "transformer.wpe";
    if (dropout > 0.0f) {
        out.push_back(layerSpec("dropout", "transformer.drop", {{"p", dropout}}));
        residual = "transformer.drop";
    }
    // A residual branch's last layer, its dropout when there is one, added to the stream.
    const auto addBranch = [&](const std::string& block, const std::string& branch,
                               const std::string& name) {
        std::string last = branch;
        if (dropout > 0.0f) {
            out.push_back(layerSpec("dropout", branch + "_dropout", {{"p", dropout}}));
            last = branch + "_dropout";
        }
        out.push_back(layerSpec("add", block + name, {{"inputs", {residual, last}}}));
        residual = block + name;
    };
    for (int64_t i = 0; i < layers; ++i) {
        const std::string b = "transformer.h." + std::to_string(i) + ".";
        out.push_back(layerSpec("layer_norm", b + "ln_1", {{"inputs", {residual}}}));
        out.push_back(layerSpec("linear", b + "attn.c_attn",
                                {{"out_features", 3 * width}, {"init_std", 0.02}}));
        out.push_back(layerSpec("causal_self_attention", b + "attn.attn",
                                {{"n_head", heads}, {"dropout", dropout}}));
        out.push_back(layerSpec("linear", b + "attn.c_proj",
                                {{"out_features", width}, {"init_std", residualStd}}));
        addBranch(b, b + "attn.c_proj", "attn_residual");
        out.push_back(layerSpec("layer_norm", b + "ln_2", {{"inputs", {residual}}}));
        out.push_back(
            layerSpec("linear", b + "mlp.c_fc", {{"out_features", 4 * width}, {"init_std", 0.02}}));
        out.push_back(layerSpec("gelu", b + "mlp.gelu", {{"approximate", "tanh"}}));
        out.push_back(layerSpec("linear", b + "mlp.c_proj",
                                {{"out_features", width}, {"init_std", residualStd}}));
        addBranch(b, b + "mlp.c_proj", "mlp_residual");
    }
    out.push_back(layerSpec("layer_norm", "transformer.ln_f", {{"inputs", {residual}}}));
    out.push_back(layerSpec(
        "linear", "lm_head",
        {{"out_features", "CLASSES"}, {"bias", false}, {"tie_weight", "transformer.wte"}}));
    return out;
}

// Layer sizes written "CLASSES": the classifier's outputs, a language model's vocabulary.
void fillClasses(json& layers, int classes) {
    for (auto& l : layers)
        for (const char* key : {"out_features", "out_channels", "num_embeddings"})
            if (l.is_object() && l.value(key, json()) == "CLASSES")
                l[key] = classes;
}

// A file or a pipe. One that cannot be read (missing, a folder, a FIFO nothing writes to) is a
// bad `model` value; one that does not parse is a bad file, named with the offset.
json loadSpecFile(const std::string& path) {
    std::string text;
    try {
        text = readJsonText(path);
    } catch (const DatasetError& e) {
        throw ConfigError("model", e.what());
    }
    return parseJson(text, path);
}

} // namespace

const std::vector<ZooEntry>& modelZoo() {
    static const std::vector<ZooEntry> zoo = {
        {"mlp", "multi-layer perceptron, hidden widths 256,128 (model.hidden)", {1, 28, 28}},
        {"lenet5", "LeNet-5: conv 6@5x5 pad 2, pool, conv 16@5x5, pool, FC 120-84", {1, 28, 28}},
        {"fmnist-cnn", "2 x (conv 3x3 + BN + ReLU + max pool), FC 128: the default", {1, 28, 28}},
        {"resnet20",
         "CIFAR ResNet-20 (He et al. 2016), option-A shortcuts (model.shortcut)",
         {3, 32, 32}},
        {"resnet32", "CIFAR ResNet-32", {3, 32, 32}},
        {"resnet56", "CIFAR ResNet-56", {3, 32, 32}},
        {"vgg-small", "VGG-style: 3 stages of 2 conv 3x3 + BN, widths 32/64/128", {3, 32, 32}},
        {"resnet18", "torchvision's ResNet-18 (ImageNet), its parameter names", {3, 224, 224}},
        {"resnet34", "torchvision's ResNet-34 (ImageNet)", {3, 224, 224}},
        {"resnet50", "torchvision's ResNet-50 (ImageNet, bottleneck blocks, v1.5)", {3, 224, 224}},
        {"mobilenet_v2",
         "torchvision's MobileNetV2 (ImageNet: depthwise convolutions, inverted residuals, ReLU6)",
         {3, 224, 224}},
        {"vgg11_bn",
         "torchvision's VGG-11 with batch norm (ImageNet: 7x7 adaptive pooling, 4096-wide "
         "classifier with dropout: model.dropout)",
         {3, 224, 224}},
        {"gpt",
         "nanoGPT's GPT for text (dataset=text): model.n_layer blocks of causal self-attention "
         "and a GELU MLP, model.n_head heads, model.n_embd wide (default 4, 4, 128)",
         {64}},
        {"unet",
         "U-Net for segmentation (shapes-seg, voc, masks): model.depth levels of double 3x3 "
         "convolutions, bilinear upsampling and skip connections, model.width channels at the "
         "top, doubled at each level (default 3, 16)",
         {3, 32, 32}},
        {"fcn_resnet50",
         "torchvision's FCN for segmentation: ResNet-50 dilated to output stride 8 (or 16 with "
         "model.output_stride), FCNHead, scores resized to the image; model.aux_loss adds the "
         "auxiliary head on layer3 (32.9M parameters at 21 classes)",
         {3, 520, 520}},
        {"deeplabv3_resnet50",
         "torchvision's DeepLabV3 for segmentation: the same dilated ResNet-50 and an ASPP head "
         "(atrous rates 12, 24, 36 and image pooling); model.aux_loss as fcn_resnet50's (39.6M "
         "parameters at 21 classes)",
         {3, 520, 520}},
        {"yolov8n",
         "Ultralytics' YOLOv8n detector (detection sets: shapes-detect, yolo, coco): C2f "
         "backbone, SPPF, PAN neck, anchor-free head with DFL; 3.2M parameters at 80 classes",
         {3, 640, 640}},
        {"yolov8s",
         "Ultralytics' YOLOv8s detector: YOLOv8n twice as wide (11.2M parameters)",
         {3, 640, 640}},
    };
    return zoo;
}

float defaultDropout(const std::string& model) {
    return model == "vgg-small" || model == "vgg11_bn" ? 0.5f : 0.0f;
}

Shape zooInputShape(const std::string& name, const Shape& fallback) {
    for (const auto& e : modelZoo())
        if (e.name == name)
            return e.defaultInput;
    return fallback;
}

bool isModelSpecPath(const std::string& model) {
    return (model.size() > 5 && model.ends_with(".json")) || model.starts_with("/dev/fd/") ||
           model.starts_with("/proc/self/fd/");
}

nlohmann::json modelSpec(const std::string& nameOrPath, const Shape& input, int classes,
                         const nlohmann::json& options) {
    json layers, auxiliary;
    if (nameOrPath == "mlp")
        layers = mlp(options);
    else if (nameOrPath == "lenet5")
        layers = lenet5();
    else if (nameOrPath == "fmnist-cnn")
        layers = fmnistCnn();
    else if (nameOrPath == "resnet20" || nameOrPath == "resnet32" || nameOrPath == "resnet56")
        layers = resnet(std::stoi(nameOrPath.substr(6)), options.value("shortcut", "A"));
    else if (nameOrPath == "resnet18" || nameOrPath == "resnet34" || nameOrPath == "resnet50")
        layers = torchvisionResnet(std::stoi(nameOrPath.substr(6)));
    else if (nameOrPath == "mobilenet_v2")
        layers = torchvisionMobileNetV2();
    else if (nameOrPath == "vgg11_bn")
        layers = torchvisionVgg11Bn(options.value("dropout", defaultDropout(nameOrPath)));
    else if (nameOrPath == "vgg-small")
        layers = vggSmall(options);
    else if (nameOrPath == "gpt")
        layers = gpt(input, options);
    else if (nameOrPath == "unet")
        layers = unetLayers(input, options);
    else if (nameOrPath == "yolov8n" || nameOrPath == "yolov8s")
        layers = yoloV8Layers(nameOrPath, input, classes);
    else if (isTorchvisionSegmentation(nameOrPath)) {
        SegmentationSpec segmentation = torchvisionSegmentation(nameOrPath, input, options);
        layers = std::move(segmentation.layers);
        auxiliary = std::move(segmentation.auxiliary);
    } else if (isModelSpecPath(nameOrPath)) {
        json spec = loadSpecFile(nameOrPath);
        // "CLASSES" stands for the dataset's class count (a text's vocabulary size), so one
        // spec fits any dataset of its input shape.
        if (spec.is_object() && spec.value("classes", json()) == "CLASSES")
            spec["classes"] = classes;
        if (spec.is_object() && spec.contains("layers") && spec["layers"].is_array())
            fillClasses(spec["layers"], classes);
        freezeLayers(spec, options.value("freeze", "none"));
        return spec;
    } else {
        std::string known;
        for (const auto& e : modelZoo())
            known += (known.empty() ? "" : ", ") + e.name;
        throw ConfigError("model", "unknown model " + quoteUserData(nameOrPath) + "; the zoo has " +
                                       known + ", or give the path of a spec file ending in .json");
    }
    fillClasses(layers, classes);
    json spec = {
        {"name", nameOrPath}, {"input", input.dims()}, {"classes", classes}, {"layers", layers}};
    if (!auxiliary.empty())
        spec["auxiliary"] = auxiliary;
    freezeLayers(spec, options.value("freeze", "none"));
    return spec;
}

} // namespace tb
