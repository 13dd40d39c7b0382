// YOLOv8 as yolov8.yaml writes it: a table of modules, each reading the previous one or the
// rows it names, scaled by the model's depth and width multiples. Ultralytics' parse_model
// turns the table into modules; yoloV8Layers turns it into the engine's layers.
#include "nn/yolozoo.h"

#include "core/errors.h"
#include "nn/zoospec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tb {

namespace {

using nlohmann::json;

enum class Module { Conv, C2f, Sppf, Upsample, Concat, Detect };

struct Row {
    std::vector<int> from; // -1: the row before
    int repeats;
    Module module;
    int channels = 0; // before the width multiple
    int kernel = 1, stride = 1;
    bool shortcut = false; // C2f's bottlenecks add their input
};

// yolov8.yaml: the backbone (rows 0-9) and the PAN neck with the head (rows 10-22).
const std::vector<Row>& yoloV8Table() {
    static const std::vector<Row> rows = {
        {{-1}, 1, Module::Conv, 64, 3, 2},        // 0: P1/2
        {{-1}, 1, Module::Conv, 128, 3, 2},       // 1: P2/4
        {{-1}, 3, Module::C2f, 128, 1, 1, true},  // 2
        {{-1}, 1, Module::Conv, 256, 3, 2},       // 3: P3/8
        {{-1}, 6, Module::C2f, 256, 1, 1, true},  // 4
        {{-1}, 1, Module::Conv, 512, 3, 2},       // 5: P4/16
        {{-1}, 6, Module::C2f, 512, 1, 1, true},  // 6
        {{-1}, 1, Module::Conv, 1024, 3, 2},      // 7: P5/32
        {{-1}, 3, Module::C2f, 1024, 1, 1, true}, // 8
        {{-1}, 1, Module::Sppf, 1024, 5},         // 9
        {{-1}, 1, Module::Upsample},              // 10
        {{-1, 6}, 1, Module::Concat},             // 11: with backbone P4
        {{-1}, 3, Module::C2f, 512},              // 12
        {{-1}, 1, Module::Upsample},              // 13
        {{-1, 4}, 1, Module::Concat},             // 14: with backbone P3
        {{-1}, 3, Module::C2f, 256},              // 15: P3/8, small objects
        {{-1}, 1, Module::Conv, 256, 3, 2},       // 16
        {{-1, 12}, 1, Module::Concat},            // 17: with head P4
        {{-1}, 3, Module::C2f, 512},              // 18: P4/16, medium
        {{-1}, 1, Module::Conv, 512, 3, 2},       // 19
        {{-1, 9}, 1, Module::Concat},             // 20: with head P5
        {{-1}, 3, Module::C2f, 1024},             // 21: P5/32, large
        {{15, 18, 21}, 1, Module::Detect},        // 22
    };
    return rows;
}

struct Scale {
    double depth, width;
    int maxChannels;
};

// yolov8.yaml's scales: n, s, m, l, x.
Scale scaleOf(char size) {
    switch (size) {
    case 'n':
        return {0.33, 0.25, 1024};
    case 's':
        return {0.33, 0.50, 1024};
    case 'm':
        return {0.67, 0.75, 768};
    case 'l':
        return {1.00, 1.00, 512};
    default:
        return {1.00, 1.25, 512};
    }
}

constexpr int kRegMax = 16;
constexpr int64_t kStrides[] = {8, 16, 32};

// Builds the layers of one model, module by module, remembering each row's output.
class Builder {
public:
    explicit Builder(json& layers) : m_layers(layers) {}

    // Ultralytics' Conv: convolution without bias, batch norm (eps 1e-3, momentum 0.03, as
    // its initialize_weights sets them), SiLU. Returns the output's name.
    std::string conv(const std::string& name, const std::string& input, int64_t out, int64_t kernel,
                     int64_t stride) {
        m_layers.push_back(layerSpec("conv2d", name + ".conv",
                                     {{"inputs", {input}},
                                      {"out_channels", out},
                                      {"kernel", kernel},
                                      {"stride", stride},
                                      {"padding", kernel / 2},
                                      {"bias", false}}));
        m_layers.push_back(
            layerSpec("batchnorm2d", name + ".bn", {{"eps", 1e-3}, {"momentum", 0.03}}));
        m_layers.push_back(layerSpec("silu", name + ".act"));
        return name + ".act";
    }

    // C2f: cv1 to 2c channels, split in halves; n bottlenecks on the second half, one after
    // another; every piece joined and cv2 to `out`.
    std::string c2f(const std::string& name, const std::string& input, int64_t out, int n,
                    bool shortcut) {
        const int64_t c = out / 2;
        const std::string both = conv(name + ".cv1", input, 2 * c, 1, 1);
        m_layers.push_back(layerSpec("channel_slice", name + ".chunk1",
                                     {{"inputs", {both}}, {"begin", c}, {"end", 2 * c}}));
        std::vector<std::string> pieces{both};
        std::string last = name + ".chunk1";
        for (int i = 0; i < n; ++i) {
            const std::string block = name + ".m." + std::to_string(i);
            conv(block + ".cv1", last, c, 3, 1);
            std::string y = conv(block + ".cv2", block + ".cv1.act", c, 3, 1);
            if (shortcut) {
                m_layers.push_back(layerSpec("add", block + ".add", {{"inputs", {y, last}}}));
                y = block + ".add";
            }
            pieces.push_back(y);
            last = y;
        }
        m_layers.push_back(layerSpec("concat", name + ".cat", {{"inputs", pieces}}));
        return conv(name + ".cv2", name + ".cat", out, 1, 1);
    }

    // SPPF: cv1 to half the channels, three 5x5 max pools in a row, all four joined, cv2.
    std::string sppf(const std::string& name, const std::string& input, int64_t in, int64_t out,
                     int64_t kernel) {
        std::vector<std::string> pieces{conv(name + ".cv1", input, in / 2, 1, 1)};
        for (int i = 1; i <= 3; ++i) {
            const std::string pool = name + ".m" + std::to_string(i); // one MaxPool2d, thrice
            m_layers.push_back(layerSpec("maxpool2d", pool,
                                         {{"inputs", {pieces.back()}},
                                          {"kernel", kernel},
                                          {"stride", 1},
                                          {"padding", kernel / 2}}));
            pieces.push_back(pool);
        }
        m_layers.push_back(layerSpec("concat", name + ".cat", {{"inputs", pieces}}));
        return conv(name + ".cv2", name + ".cat", out, 1, 1);
    }

    // Detect: per scale a box branch (cv2: two 3x3 Convs, a 1x1 convolution to 4 x reg_max)
    // and a class branch (cv3: the same to `classes`), joined; then the scales joined. Biases
    // as Ultralytics' bias_init: 1 for the boxes, log(5 / classes / (640 / stride)^2) for the
    // classes (about 5 objects in a 640 px image at the start).
    std::string detect(const std::string& name, const std::vector<std::string>& inputs,
                       const std::vector<int64_t>& channels, int64_t classes) {
        const int64_t boxWidth = std::max<int64_t>({16, channels[0] / 4, 4 * kRegMax});
        const int64_t classWidth = std::max<int64_t>(channels[0], std::min<int64_t>(classes, 100));
        std::vector<std::string> scales;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const std::string level = std::to_string(i);
            const double stride = static_cast<double>(kStrides[i]);
            std::string box = conv(name + ".cv2." + level + ".0", inputs[i], boxWidth, 3, 1);
            box = conv(name + ".cv2." + level + ".1", box, boxWidth, 3, 1);
            m_layers.push_back(layerSpec("conv2d", name + ".cv2." + level + ".2",
                                         {{"inputs", {box}},
                                          {"out_channels", 4 * kRegMax},
                                          {"kernel", 1},
                                          {"bias_init", 1.0}}));
            std::string cls = conv(name + ".cv3." + level + ".0", inputs[i], classWidth, 3, 1);
            cls = conv(name + ".cv3." + level + ".1", cls, classWidth, 3, 1);
            const double prior =
                std::log(5.0 / static_cast<double>(classes) / std::pow(640.0 / stride, 2.0));
            m_layers.push_back(layerSpec("conv2d", name + ".cv3." + level + ".2",
                                         {{"inputs", {cls}},
                                          {"out_channels", classes},
                                          {"kernel", 1},
                                          {"bias_init", prior}}));
            m_layers.push_back(layerSpec(
                "concat", name + ".cat." + level,
                {{"inputs", {name + ".cv2." + level + ".2", name + ".cv3." + level + ".2"}}}));
            scales.push_back(name + ".cat." + level);
        }
        m_layers.push_back(layerSpec("detect_output", name,
                                     {{"inputs", scales},
                                      {"reg_max", kRegMax},
                                      {"classes", classes},
                                      {"strides", kStrides}}));
        return name;
    }

private:
    json& m_layers;
};

// parse_model's make_divisible(min(c, max_channels) * width, 8).
int64_t scaledChannels(int channels, const Scale& s) {
    const double c = std::min(channels, s.maxChannels) * s.width;
    return static_cast<int64_t>(std::ceil(c / 8.0)) * 8;
}

} // namespace

bool isYoloV8(const std::string& name) {
    return name.size() == 7 && name.starts_with("yolov8") &&
           std::string("nsmlx").find(name[6]) != std::string::npos;
}

json yoloV8Layers(const std::string& name, const Shape& input, int classes) {
    if (input.rank() != 3 || input[0] != 3 || input[1] % 32 != 0 || input[2] % 32 != 0 ||
        input[1] < 32 || input[2] < 32)
        throw ConfigError("model", name +
                                       " takes RGB images whose sides are multiples of 32 "
                                       "(its coarsest map is 1/32 of the image), not " +
                                       input.toString());
    const Scale scale = scaleOf(name[6]);
    json layers = json::array();
    Builder build(layers);
    std::vector<std::string> outputs;
    std::vector<int64_t> channels;
    const auto& table = yoloV8Table();
    for (std::size_t i = 0; i < table.size(); ++i) {
        const Row& row = table[i];
        const std::string module = "model." + std::to_string(i);
        const auto source = [&](int from) {
            return from < 0 ? (i == 0 ? std::string("input") : outputs[i - 1])
                            : outputs[static_cast<std::size_t>(from)];
        };
        const auto sourceChannels = [&](int from) {
            return from < 0 ? (i == 0 ? int64_t{3} : channels[i - 1])
                            : channels[static_cast<std::size_t>(from)];
        };
        const int n = row.repeats > 1
                          ? std::max(1, static_cast<int>(std::lround(row.repeats * scale.depth)))
                          : row.repeats;
        const int64_t out = row.channels ? scaledChannels(row.channels, scale) : 0;
        switch (row.module) {
        case Module::Conv:
            outputs.push_back(build.conv(module, source(-1), out, row.kernel, row.stride));
            channels.push_back(out);
            break;
        case Module::C2f:
            outputs.push_back(build.c2f(module, source(-1), out, n, row.shortcut));
            channels.push_back(out);
            break;
        case Module::Sppf:
            outputs.push_back(build.sppf(module, source(-1), sourceChannels(-1), out, row.kernel));
            channels.push_back(out);
            break;
        case Module::Upsample:
            layers.push_back(
                layerSpec("upsample", module, {{"inputs", {source(-1)}}, {"scale_factor", 2}}));
            outputs.push_back(module);
            channels.push_back(sourceChannels(-1));
            break;
        case Module::Concat: {
            json inputs = json::array();
            int64_t sum = 0;
            for (int from : row.from) {
                inputs.push_back(source(from));
                sum += sourceChannels(from);
            }
            layers.push_back(layerSpec("concat", module, {{"inputs", inputs}}));
            outputs.push_back(module);
            channels.push_back(sum);
            break;
        }
        case Module::Detect: {
            std::vector<std::string> maps;
            std::vector<int64_t> widths;
            for (int from : row.from) {
                maps.push_back(source(from));
                widths.push_back(sourceChannels(from));
            }
            outputs.push_back(build.detect(module, maps, widths, classes));
            channels.push_back(4 * kRegMax + classes);
            break;
        }
        }
    }
    return layers;
}

} // namespace tb
