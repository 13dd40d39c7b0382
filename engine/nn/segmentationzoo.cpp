// fcn_resnet50 and deeplabv3_resnet50 layer by layer, as torchvision.models.segmentation builds
// them: IntermediateLayerGetter's "out" (layer4) and "aux" (layer3), each head's scores
// resized to the input.
#include "nn/segmentationzoo.h"

#include "core/errors.h"
#include "nn/torchvisionzoo.h"
#include "nn/zoospec.h"

#include <array>

namespace tb {

namespace {

using nlohmann::json;

// A convolution with torchvision's "same" padding; `out` may be "CLASSES".
json segConv(const std::string& name, const json& out, int64_t kernel, int64_t dilation, bool bias,
             const std::string& input) {
    json options = {{"out_channels", out},
                    {"kernel", kernel},
                    {"padding", kernel / 2 * dilation},
                    {"bias", bias}};
    if (dilation != 1)
        options["dilation"] = dilation;
    if (!input.empty())
        options["inputs"] = {input};
    return layerSpec("conv2d", name, options);
}

// conv `name`.0 (no bias), batch norm .1, ReLU .2: torchvision's Sequential of the three.
std::string appendConvBnRelu(json& layers, const std::string& name, int64_t out, int64_t kernel,
                             int64_t dilation, const std::string& input) {
    layers.push_back(segConv(name + ".0", out, kernel, dilation, false, input));
    layers.push_back(layerSpec("batchnorm2d", name + ".1"));
    layers.push_back(layerSpec("relu", name + ".2"));
    return name + ".2";
}

// The scores brought back to the image: F.interpolate(size=input, bilinear, align_corners=False).
void appendUpsample(json& layers, const std::string& name, int64_t height, int64_t width,
                    const std::string& input = {}) {
    json options = {{"size", {height, width}}, {"mode", "bilinear"}, {"align_corners", false}};
    if (!input.empty())
        options["inputs"] = {input};
    layers.push_back(layerSpec("resize", name, options));
}

// FCNHead(in, classes): 3x3 conv to in/4 + BN + ReLU, dropout 0.1, 1x1 conv (with bias) to the
// classes.
void appendFcnHead(json& layers, const std::string& name, const std::string& input,
                   int64_t inChannels) {
    appendConvBnRelu(layers, name, inChannels / 4, 3, 1, input);
    layers.push_back(layerSpec("dropout", name + ".3", {{"p", 0.1}}));
    layers.push_back(segConv(name + ".4", "CLASSES", 1, 1, true, {}));
}

// DeepLabHead(in, classes): ASPP (a 1x1 branch, three 3x3 at rates 12, 24, 36 and the image
// pooling branch, joined and projected to 256 with dropout 0.5), then 3x3 conv + BN + ReLU and
// a 1x1 conv to the classes. At output stride 16 the rates halve to 6, 12, 18, as the DeepLabV3
// paper sets them there (the same view in pixels of the image).
void appendDeepLabHead(json& layers, const std::string& input, int64_t mapHeight, int64_t mapWidth,
                       int outputStride) {
    constexpr int64_t kAsppChannels = 256;
    const std::array<int64_t, 3> kRates =
        outputStride == 8 ? std::array<int64_t, 3>{12, 24, 36} : std::array<int64_t, 3>{6, 12, 18};
    const std::string aspp = "classifier.0.";
    json branches = json::array();
    branches.push_back(appendConvBnRelu(layers, aspp + "convs.0", kAsppChannels, 1, 1, input));
    for (std::size_t i = 0; i < kRates.size(); ++i)
        branches.push_back(appendConvBnRelu(layers, aspp + "convs." + std::to_string(i + 1),
                                            kAsppChannels, 3, kRates[i], input));
    // ASPPPooling: the whole map averaged (.0), 1x1 conv (.1), BN (.2), ReLU (.3), spread back
    // over the map by the same bilinear resize (every tap reads the one value).
    const std::string pooling = aspp + "convs.4.";
    layers.push_back(layerSpec("globalavgpool", pooling + "0", {{"inputs", {input}}}));
    layers.push_back(segConv(pooling + "1", kAsppChannels, 1, 1, false, {}));
    layers.push_back(layerSpec("batchnorm2d", pooling + "2"));
    layers.push_back(layerSpec("relu", pooling + "3"));
    appendUpsample(layers, pooling + "resize", mapHeight, mapWidth);
    branches.push_back(pooling + "resize");
    layers.push_back(layerSpec("concat", aspp + "cat", {{"inputs", branches}}));
    appendConvBnRelu(layers, aspp + "project", kAsppChannels, 1, 1, {});
    layers.push_back(layerSpec("dropout", aspp + "project.3", {{"p", 0.5}}));
    layers.push_back(segConv("classifier.1", kAsppChannels, 3, 1, false, {}));
    layers.push_back(layerSpec("batchnorm2d", "classifier.2"));
    layers.push_back(layerSpec("relu", "classifier.3"));
    layers.push_back(segConv("classifier.4", "CLASSES", 1, 1, true, {}));
}

// torchvision's conv1 (stride 2), maxpool (stride 2, ceil off) and strided stages shrink a side
// this way; the dilated stages keep it.
int64_t featureSide(int64_t side, int outputStride) {
    const auto half = [](int64_t s) { return (s - 1) / 2 + 1; }; // kernel 3 or 7, same padding
    side = half(half(side));                                     // conv1, maxpool: stride 4
    for (int stride = 8; stride <= outputStride; stride *= 2)
        side = half(side);
    return side;
}

} // namespace

bool isTorchvisionSegmentation(const std::string& model) {
    return model == "fcn_resnet50" || model == "deeplabv3_resnet50";
}

SegmentationSpec torchvisionSegmentation(const std::string& model, const Shape& input,
                                         const json& options) {
    if (input.rank() != 3)
        throw ConfigError("model",
                          model + " reads images (C, H, W), not samples of " + input.toString());
    const int outputStride = options.value("output_stride", 8);
    if (outputStride != 8 && outputStride != 16)
        throw ConfigError("model.output_stride",
                          "must be 8 (layer3 and layer4 dilated, torchvision's) or 16 (only "
                          "layer4), not " +
                              std::to_string(outputStride));
    SegmentationSpec spec;
    spec.layers = json::array();
    const ResnetFeatures features =
        appendResnetStages(spec.layers, 50, "backbone.", {false, outputStride == 8, true});
    spec.auxiliary = json::array();
    if (options.value("aux_loss", false)) {
        appendFcnHead(spec.layers, "aux_classifier", features.layer3, features.layer3Channels);
        appendUpsample(spec.layers, "aux_classifier.upsample", input[1], input[2]);
        spec.auxiliary.push_back(
            {{"output", "aux_classifier.upsample"}, {"weight", kAuxiliaryLossWeight}});
    }
    if (model == "fcn_resnet50")
        appendFcnHead(spec.layers, "classifier", features.layer4, features.layer4Channels);
    else
        appendDeepLabHead(spec.layers, features.layer4, featureSide(input[1], outputStride),
                          featureSide(input[2], outputStride), outputStride);
    appendUpsample(spec.layers, "upsample", input[1], input[2]);
    return spec;
}

} // namespace tb
