// unetLayers(): the encoder's levels, then the decoder's, each joining the encoder map of its
// size.
#include "nn/unetzoo.h"

#include "core/errors.h"
#include "nn/zoospec.h"

#include <string>
#include <vector>

namespace tb {

namespace {

using nlohmann::json;

// (conv 3x3, batch norm, ReLU) twice; returns the name of its last layer.
std::string doubleConv(json& layers, const std::string& prefix, int64_t channels) {
    const std::string p = prefix + ".double_conv.";
    for (int i = 0; i < 2; ++i) {
        layers.push_back(layerSpec(
            "conv2d", p + std::to_string(3 * i),
            {{"out_channels", channels}, {"kernel", 3}, {"padding", 1}, {"bias", false}}));
        layers.push_back(layerSpec("batchnorm2d", p + std::to_string(3 * i + 1)));
        layers.push_back(layerSpec("relu", p + std::to_string(3 * i + 2)));
    }
    return p + "5";
}

} // namespace

json unetLayers(const Shape& input, const json& options) {
    const int64_t width = options.value("width", kUnetDefaultWidth);
    const int depth = options.value("depth", kUnetDefaultDepth);
    if (width < 1)
        throw ConfigError("model.width", "must be at least 1");
    if (depth < 1 || depth > 8)
        throw ConfigError("model.depth", "must be from 1 to 8");
    if (input.rank() != 3)
        throw ConfigError("model",
                          "unet reads images (C, H, W), not samples of " + input.toString());
    const int64_t step = int64_t{1} << depth;
    if (input[1] % step != 0 || input[2] % step != 0)
        throw ConfigError("model.depth",
                          "a U-Net of depth " + std::to_string(depth) + " halves the image " +
                              std::to_string(depth) + " times: its sides must be multiples of " +
                              std::to_string(step) + ", not " + std::to_string(input[1]) + "x" +
                              std::to_string(input[2]));
    json layers = json::array();
    std::vector<std::string> skips{doubleConv(layers, "inc", width)};
    for (int level = 1; level <= depth; ++level) {
        const std::string down = "down" + std::to_string(level) + ".maxpool_conv";
        layers.push_back(layerSpec("maxpool2d", down + ".0", {{"kernel", 2}}));
        skips.push_back(doubleConv(layers, down + ".1", width << level));
    }
    for (int i = 1; i <= depth; ++i) {
        const int level = depth - i;
        const std::string up = "up" + std::to_string(i);
        layers.push_back(
            layerSpec("resize", up + ".up",
                      {{"scale_factor", 2}, {"mode", "bilinear"}, {"align_corners", false}}));
        // torch.cat([skip, upsampled], dim=1), as the PyTorch U-Net joins them.
        layers.push_back(layerSpec(
            "concat", up + ".cat",
            {{"inputs", json::array({skips[static_cast<std::size_t>(level)], up + ".up"})}}));
        doubleConv(layers, up + ".conv", width << level);
    }
    layers.push_back(
        layerSpec("conv2d", "outc.conv", {{"out_channels", "CLASSES"}, {"kernel", 1}}));
    return layers;
}

} // namespace tb
