// A segmentation's confusion matrix over every validation pixel and the scores read from it, as
// torchvision's segmentation reference (references/segmentation/utils.py, ConfusionMatrix)
// computes them: pixel accuracy, each class's accuracy (recall) and IoU, and their mean. Pixels
// labelled with the ignore index (VOC's 255 on object borders) are left out. A class that
// neither the labels nor the predictions contain has no IoU (NaN) and is left out of the mean,
// as MMSegmentation's nanmean does (torchvision's plain mean would be NaN then).
#pragma once

#include <cstdint>
#include <vector>

namespace tb::segment {

struct SegmentationScores {
    double pixelAccuracy = 0.0;        // right pixels / counted pixels
    std::vector<double> classAccuracy; // right / labelled, per class (NaN: never labelled)
    std::vector<double> iou;           // right / (labelled + predicted - right) (NaN: neither)
    double meanIoU = 0.0;              // over the classes with an IoU
    int64_t pixels = 0;                // counted
};

class SegmentationConfusion {
public:
    explicit SegmentationConfusion(int classes, int32_t ignoreIndex = 255);

    // Adds `pixels` labels and their predictions (class indices). A label that is neither a
    // class nor the ignore index, or a prediction outside the classes, throws, naming the pixel.
    void add(const int32_t* labels, const int32_t* predicted, int64_t pixels);
    // Another rank's or batch's counts.
    void merge(const SegmentationConfusion& other);

    int classes() const { return m_classes; }
    int32_t ignoreIndex() const { return m_ignoreIndex; }
    // Pixels labelled `truth` and predicted `predicted`.
    int64_t at(int truth, int predicted) const {
        return m_counts[static_cast<std::size_t>(truth) * static_cast<std::size_t>(m_classes) +
                        static_cast<std::size_t>(predicted)];
    }
    // Row-major classes x classes counts: row = label, column = prediction.
    const std::vector<int64_t>& counts() const { return m_counts; }
    SegmentationScores scores() const;

private:
    int m_classes;
    int32_t m_ignoreIndex;
    std::vector<int64_t> m_counts;
};

// Each pixel's class: the argmax over logits(n, classes, h, w) (plain f32), the first on ties.
std::vector<int32_t> predictedClasses(const float* logits, int64_t n, int64_t classes, int64_t hw);

} // namespace tb::segment
