// Segmenter: resize, forward on the CPU, scores back to each image's size, argmax.
#include "train/segmenter.h"

#include "core/errors.h"
#include "data/dataconfig.h"
#include "data/segmentaugment.h"
#include "export/onnxmodelfile.h"
#include "train/checkpointer.h"

#include <algorithm>
#include <cmath>

namespace tb {

Segmenter::Segmenter(const std::string& path) : m_model(path) {
    if (!m_model.graph().pixelLogits())
        throw ConfigError("model", m_model.card().model + " does not score every pixel: predict "
                                                          "ranks its classes instead");
    if (inputHeight() != inputWidth())
        throw ConfigError("model", m_model.card().model + " reads " +
                                       m_model.card().sampleShape.toString() +
                                       " images; predict resizes images to a square input");
}

Segmenter::~Segmenter() = default;

bool Segmenter::holdsSegmenter(const std::string& path) {
    const std::string dataset = isOnnxPath(path) ? readOnnxModelFile(path).card.dataset
                                                 : Checkpointer::configOf(path).data.name;
    return isSegmentationDataset(dataset.substr(0, dataset.find(':')));
}

std::vector<SegmentedPrediction> Segmenter::segment(const std::vector<RgbImage>& images) {
    const int side = inputHeight();
    const auto n = static_cast<int64_t>(images.size());
    if (n == 0)
        return {};
    const auto plane = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
    Tensor x = Tensor::host({n, 3, side, side}, DType::F32);
    const std::vector<float>& mean = card().mean;
    const std::vector<float>& stdDev = card().stdDev;
    for (std::size_t i = 0; i < images.size(); ++i) {
        float* image = x.data<float>() + i * 3 * plane;
        warpImage(images[i], resizeWarp(images[i].width, images[i].height, side), side, image);
        for (std::size_t c = 0; c < 3 && c < mean.size(); ++c) // as NormalizeDataset
            for (std::size_t p = 0; p < plane; ++p)
                image[c * plane + p] =
                    (image[c * plane + p] - mean[c]) / (stdDev[c] > 1e-6f ? stdDev[c] : 1.0f);
    }
    Backend& backend = m_model.backend();
    const Tensor& logits = m_model.graph().forward(x, false);
    Tensor scores = Tensor::host(logits.shape(), DType::F32);
    backend.copy(logits, scores);
    const auto classes = static_cast<std::size_t>(logits.dim(1));
    std::vector<SegmentedPrediction> out(images.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        const int w = images[i].width, h = images[i].height;
        Tensor resized = Tensor::host({1, logits.dim(1), h, w}, DType::F32);
        backend.resizeBilinearForward(
            scores.slice(static_cast<int64_t>(i), static_cast<int64_t>(i) + 1), resized);
        SegmentedPrediction& p = out[i];
        p.mask.width = w;
        p.mask.height = h;
        const auto pixels = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
        p.mask.classes.resize(pixels);
        p.classShare.assign(classes, 0.0);
        p.meanConfidence.assign(classes, 0.0);
        const float* z = resized.data<float>();
        for (std::size_t q = 0; q < pixels; ++q) {
            std::size_t best = 0;
            for (std::size_t c = 1; c < classes; ++c)
                if (z[c * pixels + q] > z[best * pixels + q])
                    best = c;
            double sum = 0.0;
            for (std::size_t c = 0; c < classes; ++c)
                sum += std::exp(static_cast<double>(z[c * pixels + q] - z[best * pixels + q]));
            p.mask.classes[q] = static_cast<uint8_t>(best);
            p.classShare[best] += 1.0;
            p.meanConfidence[best] += 1.0 / sum;
        }
        for (std::size_t c = 0; c < classes; ++c) {
            if (p.classShare[c] > 0)
                p.meanConfidence[c] /= p.classShare[c];
            p.classShare[c] /= static_cast<double>(pixels);
        }
    }
    return out;
}

} // namespace tb
