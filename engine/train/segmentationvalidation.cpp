// validateSegmentation(): the loss op on the device, the argmax and the counts on the host.
#include "train/segmentationvalidation.h"

#include "segment/segmentationconfusion.h"
#include "train/validation.h"

#include <algorithm>

namespace tb {

int64_t countedPixels(const Tensor& labels) {
    const int32_t* y = labels.data<int32_t>();
    return labels.numel() - std::count(y, y + labels.numel(), kIgnoreIndex);
}

bool validateSegmentation(Backend& backend, Graph& graph, DataLoader& loader, Tensor& deviceInputs,
                          Tensor& deviceLabels, EpochEvent& epoch, std::stop_token& stop) {
    loader.startEpoch(0);
    const Dataset& dataset = loader.dataset();
    segment::SegmentationConfusion confusion(dataset.numClasses(), kIgnoreIndex);
    Tensor lossSum = backend.empty({2}, DType::F32), lossHost = Tensor::host({2}, DType::F32);
    Tensor logitsF32, logitsHost;
    std::vector<ImageIoU> imageScores;
    double lossTotal = 0.0;
    int64_t images = 0, counted = 0;
    while (auto batch = loader.next()) {
        if (stop.stop_requested())
            return false;
        const Tensor& x = stageOnDevice(backend, batch->inputs, deviceInputs);
        const Tensor& y = stageOnDevice(backend, batch->labels, deviceLabels);
        const Tensor& logits = graph.forward(x, false);
        const int64_t pixels = countedPixels(batch->labels);
        backend.fill(lossSum, 0.0f);
        backend.pixelCrossEntropy(logits, y, kIgnoreIndex, pixels, lossSum, nullptr, nullptr, 1.0f);
        backend.copy(lossSum, lossHost);
        // The batch's mean over its counted pixels, weighed by them: the split's mean per pixel.
        lossTotal += static_cast<double>(lossHost.data<float>()[0]) * static_cast<double>(pixels);
        const int64_t n = logits.dim(0), hw = logits.dim(2) * logits.dim(3);
        const std::vector<int32_t> predicted = segment::predictedClasses(
            logitsOnHost(backend, logits, logitsF32, logitsHost), n, logits.dim(1), hw);
        confusion.add(batch->labels.data<int32_t>(), predicted.data(), n * hw);
        for (int64_t i = 0; i < n; ++i) {
            segment::SegmentationConfusion image(dataset.numClasses(), kIgnoreIndex);
            image.add(batch->labels.data<int32_t>() + i * hw, predicted.data() + i * hw, hw);
            if (const segment::SegmentationScores s = image.scores(); s.pixels > 0)
                imageScores.push_back({images + i, s.meanIoU});
        }
        images += n;
        counted += pixels;
    }
    const segment::SegmentationScores scores = confusion.scores();
    SegmentationReport report;
    report.meanIoU = scores.meanIoU;
    report.pixelAccuracy = scores.pixelAccuracy;
    report.classNames = dataset.classNames();
    report.iou = scores.iou;
    report.classAccuracy = scores.classAccuracy;
    report.images = images;
    report.pixels = scores.pixels;
    report.confusion = confusion.counts();
    const std::size_t kept = std::min(imageScores.size(), SegmentationReport::kKeptWorstImages);
    std::partial_sort(imageScores.begin(), imageScores.begin() + static_cast<std::ptrdiff_t>(kept),
                      imageScores.end(), [](const ImageIoU& a, const ImageIoU& b) {
                          return a.meanIoU < b.meanIoU ||
                                 (a.meanIoU == b.meanIoU && a.index < b.index);
                      });
    report.worstImages.assign(imageScores.begin(),
                              imageScores.begin() + static_cast<std::ptrdiff_t>(kept));
    epoch.valLoss = counted ? lossTotal / static_cast<double>(counted) : 0.0;
    epoch.valAcc = scores.pixelAccuracy;
    epoch.validation = {};
    epoch.validation.segmentation = std::move(report);
    return true;
}

} // namespace tb
