// torchvision.models.resnet, mobilenetv2 and vgg, layer by layer: the same modules under the same
// names.
#include "nn/torchvisionzoo.h"

#include "core/errors.h"
#include "nn/zoospec.h"

#include <array>
#include <string>

namespace tb {

namespace {

using nlohmann::json;

json conv(const std::string& name, int64_t out, int64_t kernel, int64_t stride,
          const std::string& input = {}, int64_t groups = 1, bool bias = false,
          int64_t dilation = 1) {
    json options = {{"out_channels", out},
                    {"kernel", kernel},
                    {"stride", stride},
                    {"padding", kernel / 2 * dilation},
                    {"bias", bias}};
    if (groups != 1)
        options["groups"] = groups;
    if (dilation != 1)
        options["dilation"] = dilation;
    if (!input.empty())
        options["inputs"] = {input};
    return layerSpec("conv2d", name, options);
}

// torchvision's Conv2dNormActivation with ReLU6: `name`.0 convolution, .1 batch norm, .2 ReLU6.
void appendConvBnRelu6(json& layers, const std::string& name, int64_t out, int64_t kernel,
                       int64_t stride, int64_t groups = 1) {
    layers.push_back(conv(name + ".0", out, kernel, stride, {}, groups));
    layers.push_back(layerSpec("batchnorm2d", name + ".1"));
    layers.push_back(layerSpec("relu6", name + ".2"));
}

// One InvertedResidual reading the previous layer's output `input`; returns its output's name.
std::string appendInvertedResidual(json& layers, const std::string& block, const std::string& input,
                                   int64_t in, int64_t out, int64_t stride, int64_t expansion) {
    const int64_t hidden = in * expansion;
    int part = 0;
    auto next = [&] { return block + ".conv." + std::to_string(part++); };
    if (expansion != 1)
        appendConvBnRelu6(layers, next(), hidden, 1, 1);
    appendConvBnRelu6(layers, next(), hidden, 3, stride, hidden); // depthwise
    layers.push_back(conv(next(), out, 1, 1));
    layers.push_back(layerSpec("batchnorm2d", next()));
    if (stride != 1 || in != out)
        return layers.back()["name"];
    layers.push_back(
        layerSpec("add", block + ".add", {{"inputs", {layers.back()["name"], input}}}));
    return block + ".add";
}

// Appends one residual block reading `input`; returns the name of its output. Basic blocks have
// two 3x3 convolutions; bottlenecks 1x1 (down to `planes`), 3x3 (with the stride and dilation),
// 1x1 (up to 4 x planes). The shortcut is torchvision's downsample (1x1 conv + BN) where the
// shape changes.
std::string appendBlock(json& layers, const std::string& block, const std::string& input,
                        int64_t inChannels, int64_t planes, int64_t stride, int64_t dilation,
                        bool bottleneck) {
    const int64_t outChannels = bottleneck ? planes * 4 : planes;
    if (bottleneck) {
        layers.push_back(conv(block + ".conv1", planes, 1, 1, input));
        layers.push_back(layerSpec("batchnorm2d", block + ".bn1"));
        layers.push_back(layerSpec("relu", block + ".relu1"));
        layers.push_back(conv(block + ".conv2", planes, 3, stride, {}, 1, false, dilation));
        layers.push_back(layerSpec("batchnorm2d", block + ".bn2"));
        layers.push_back(layerSpec("relu", block + ".relu2"));
        layers.push_back(conv(block + ".conv3", outChannels, 1, 1));
        layers.push_back(layerSpec("batchnorm2d", block + ".bn3"));
    } else {
        layers.push_back(conv(block + ".conv1", planes, 3, stride, input));
        layers.push_back(layerSpec("batchnorm2d", block + ".bn1"));
        layers.push_back(layerSpec("relu", block + ".relu1"));
        layers.push_back(conv(block + ".conv2", planes, 3, 1));
        layers.push_back(layerSpec("batchnorm2d", block + ".bn2"));
    }
    const std::string residual = layers.back()["name"];
    std::string identity = input;
    if (stride != 1 || inChannels != outChannels) {
        layers.push_back(conv(block + ".downsample.0", outChannels, 1, stride, input));
        layers.push_back(layerSpec("batchnorm2d", block + ".downsample.1"));
        identity = block + ".downsample.1";
    }
    layers.push_back(layerSpec("add", block + ".add", {{"inputs", {residual, identity}}}));
    layers.push_back(layerSpec("relu", block + ".relu"));
    return block + ".relu";
}

} // namespace

ResnetFeatures appendResnetStages(json& layers, int depth, const std::string& prefix,
                                  std::array<bool, 3> replaceStrideWithDilation) {
    std::array<int, 4> blocks{};
    bool bottleneck = false;
    switch (depth) {
    case 18:
        blocks = {2, 2, 2, 2};
        break;
    case 34:
        blocks = {3, 4, 6, 3};
        break;
    case 50:
        blocks = {3, 4, 6, 3};
        bottleneck = true;
        break;
    default:
        throw ConfigError("model", "torchvision ResNets here are 18, 34 and 50 layers deep, not " +
                                       std::to_string(depth));
    }
    layers.push_back(conv(prefix + "conv1", 64, 7, 2));
    layers.push_back(layerSpec("batchnorm2d", prefix + "bn1"));
    layers.push_back(layerSpec("relu", prefix + "relu"));
    layers.push_back(
        layerSpec("maxpool2d", prefix + "maxpool", {{"kernel", 3}, {"stride", 2}, {"padding", 1}}));
    ResnetFeatures features;
    std::string previous = prefix + "maxpool";
    int64_t channels = 64, dilation = 1;
    for (int stage = 0; stage < 4; ++stage) {
        const int64_t planes = int64_t{64} << stage;
        // torchvision's _make_layer: a stage that dilates instead of striding keeps its first
        // block at the dilation before it and widens the taps of the rest.
        int64_t stride = stage > 0 ? 2 : 1;
        const int64_t previousDilation = dilation;
        if (stage > 0 && replaceStrideWithDilation[static_cast<std::size_t>(stage - 1)]) {
            if (!bottleneck) // as torchvision's BasicBlock refuses it
                throw ConfigError("model", "resnet" + std::to_string(depth) +
                                               "'s basic blocks do not dilate: only resnet50 "
                                               "keeps its map by dilation");
            dilation *= stride;
            stride = 1;
        }
        for (int i = 0; i < blocks[stage]; ++i) {
            const std::string block =
                prefix + "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
            previous = appendBlock(layers, block, previous, channels, planes, i == 0 ? stride : 1,
                                   i == 0 ? previousDilation : dilation, bottleneck);
            channels = bottleneck ? planes * 4 : planes;
        }
        if (stage == 2) {
            features.layer3 = previous;
            features.layer3Channels = channels;
        }
    }
    features.layer4 = previous;
    features.layer4Channels = channels;
    return features;
}

json torchvisionResnet(int depth) {
    json layers = json::array();
    appendResnetStages(layers, depth, "", {false, false, false});
    layers.push_back(layerSpec("globalavgpool", "avgpool"));
    layers.push_back(layerSpec("flatten", "flatten"));
    layers.push_back(layerSpec("linear", "fc", {{"out_features", "CLASSES"}}));
    return layers;
}

json torchvisionMobileNetV2() {
    struct Stage {
        int64_t expansion, channels, blocks, stride;
    };
    static constexpr std::array<Stage, 7> stages{{{1, 16, 1, 1},
                                                  {6, 24, 2, 2},
                                                  {6, 32, 3, 2},
                                                  {6, 64, 4, 2},
                                                  {6, 96, 3, 1},
                                                  {6, 160, 3, 2},
                                                  {6, 320, 1, 1}}};
    json layers = json::array();
    appendConvBnRelu6(layers, "features.0", 32, 3, 2);
    std::string previous = "features.0.2";
    int64_t channels = 32;
    int index = 1;
    for (const Stage& stage : stages)
        for (int64_t i = 0; i < stage.blocks; ++i, ++index) {
            previous = appendInvertedResidual(layers, "features." + std::to_string(index), previous,
                                              channels, stage.channels, i == 0 ? stage.stride : 1,
                                              stage.expansion);
            channels = stage.channels;
        }
    appendConvBnRelu6(layers, "features." + std::to_string(index), 1280, 1, 1);
    layers.push_back(layerSpec("globalavgpool", "avgpool"));
    layers.push_back(layerSpec("flatten", "flatten"));
    layers.push_back(layerSpec("dropout", "classifier.0", {{"p", 0.2}}));
    layers.push_back(layerSpec("linear", "classifier.1", {{"out_features", "CLASSES"}}));
    return layers;
}

json torchvisionVgg11Bn(float dropout) {
    // Configuration "A": output channels of each 3x3 convolution, 0 for a 2x2 max pooling.
    static constexpr std::array<int64_t, 13> config{64,  0,   128, 0,   256, 256, 0,
                                                    512, 512, 0,   512, 512, 0};
    json layers = json::array();
    int index = 0;
    auto next = [&] { return "features." + std::to_string(index++); };
    for (int64_t channels : config) {
        if (channels == 0) {
            layers.push_back(layerSpec("maxpool2d", next(), {{"kernel", 2}, {"stride", 2}}));
            continue;
        }
        layers.push_back(conv(next(), channels, 3, 1, {}, 1, true));
        layers.push_back(layerSpec("batchnorm2d", next()));
        layers.push_back(layerSpec("relu", next()));
    }
    layers.push_back(layerSpec("adaptiveavgpool2d", "avgpool", {{"output_size", 7}}));
    layers.push_back(layerSpec("flatten", "flatten"));
    layers.push_back(layerSpec("linear", "classifier.0", {{"out_features", 4096}}));
    layers.push_back(layerSpec("relu", "classifier.1"));
    layers.push_back(layerSpec("dropout", "classifier.2", {{"p", dropout}}));
    layers.push_back(layerSpec("linear", "classifier.3", {{"out_features", 4096}}));
    layers.push_back(layerSpec("relu", "classifier.4"));
    layers.push_back(layerSpec("dropout", "classifier.5", {{"p", dropout}}));
    layers.push_back(layerSpec("linear", "classifier.6", {{"out_features", "CLASSES"}}));
    return layers;
}

} // namespace tb
