// SegmentationConfusion.
#include "segment/segmentationconfusion.h"

#include "core/errors.h"

#include <cmath>
#include <limits>
#include <string>

namespace tb::segment {

SegmentationConfusion::SegmentationConfusion(int classes, int32_t ignoreIndex)
    : m_classes(classes), m_ignoreIndex(ignoreIndex),
      m_counts(static_cast<std::size_t>(classes) * static_cast<std::size_t>(classes), 0) {
    if (classes < 1)
        throw Error("a segmentation needs at least one class, not " + std::to_string(classes));
    if (ignoreIndex >= 0 && ignoreIndex < classes)
        throw Error("the ignore index " + std::to_string(ignoreIndex) + " is one of the " +
                    std::to_string(classes) + " classes");
}

void SegmentationConfusion::add(const int32_t* labels, const int32_t* predicted, int64_t pixels) {
    for (int64_t p = 0; p < pixels; ++p) {
        const int32_t truth = labels[p], guess = predicted[p];
        if (truth == m_ignoreIndex)
            continue;
        if (truth < 0 || truth >= m_classes || guess < 0 || guess >= m_classes)
            throw Error("pixel " + std::to_string(p) + ": label " + std::to_string(truth) +
                        ", prediction " + std::to_string(guess) + " (classes 0.." +
                        std::to_string(m_classes - 1) + ", " + std::to_string(m_ignoreIndex) +
                        " ignored)");
        ++m_counts[static_cast<std::size_t>(truth) * static_cast<std::size_t>(m_classes) +
                   static_cast<std::size_t>(guess)];
    }
}

void SegmentationConfusion::merge(const SegmentationConfusion& other) {
    if (other.m_classes != m_classes)
        throw Error("cannot merge a confusion matrix of " + std::to_string(other.m_classes) +
                    " classes into one of " + std::to_string(m_classes));
    for (std::size_t i = 0; i < m_counts.size(); ++i)
        m_counts[i] += other.m_counts[i];
}

SegmentationScores SegmentationConfusion::scores() const {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    SegmentationScores s;
    std::vector<int64_t> labelled(static_cast<std::size_t>(m_classes), 0),
        predictedAs(static_cast<std::size_t>(m_classes), 0);
    int64_t right = 0;
    for (int t = 0; t < m_classes; ++t)
        for (int p = 0; p < m_classes; ++p) {
            const int64_t n = at(t, p);
            labelled[static_cast<std::size_t>(t)] += n;
            predictedAs[static_cast<std::size_t>(p)] += n;
            s.pixels += n;
            if (t == p)
                right += n;
        }
    s.pixelAccuracy =
        s.pixels > 0 ? static_cast<double>(right) / static_cast<double>(s.pixels) : kNaN;
    double iouSum = 0.0;
    int present = 0;
    for (int c = 0; c < m_classes; ++c) {
        const auto k = static_cast<std::size_t>(c);
        const auto hit = static_cast<double>(at(c, c));
        s.classAccuracy.push_back(labelled[k] > 0 ? hit / static_cast<double>(labelled[k]) : kNaN);
        const int64_t united = labelled[k] + predictedAs[k] - at(c, c);
        s.iou.push_back(united > 0 ? hit / static_cast<double>(united) : kNaN);
        if (united > 0) {
            iouSum += s.iou.back();
            ++present;
        }
    }
    s.meanIoU = present > 0 ? iouSum / present : kNaN;
    return s;
}

std::vector<int32_t> predictedClasses(const float* logits, int64_t n, int64_t classes, int64_t hw) {
    std::vector<int32_t> out(static_cast<std::size_t>(n * hw));
    for (int64_t i = 0; i < n; ++i)
        for (int64_t q = 0; q < hw; ++q) {
            const float* pixel = logits + i * classes * hw + q;
            int32_t best = 0;
            for (int64_t c = 1; c < classes; ++c)
                if (pixel[c * hw] > pixel[best * hw])
                    best = static_cast<int32_t>(c);
            out[static_cast<std::size_t>(i * hw + q)] = best;
        }
    return out;
}

} // namespace tb::segment
