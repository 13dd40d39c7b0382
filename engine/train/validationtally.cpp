// ValidationTally: argmax and softmax probability per row, counted into the matrix.
#include "train/validationtally.h"

#include <algorithm>
#include <cmath>

namespace tb {

ValidationTally::ValidationTally(int classes, std::vector<std::string> classNames) {
    m_report.classes = classes;
    m_report.classNames = std::move(classNames);
    m_report.confusion.assign(static_cast<std::size_t>(classes) * static_cast<std::size_t>(classes),
                              0);
}

void ValidationTally::add(const float* logits, const int32_t* labels, int64_t n,
                          const Tensor& inputs, int64_t firstIndex) {
    const int c = m_report.classes;
    const int64_t sampleSize = n > 0 ? inputs.numel() / n : 0;
    for (int64_t i = 0; i < n; ++i) {
        const float* row = logits + i * c;
        const int predicted = static_cast<int>(std::max_element(row, row + c) - row);
        const int label = labels[i];
        if (label < 0 || label >= c)
            continue; // the readers reject such labels; a tally must not write past its matrix
        ++m_report.confusion[static_cast<std::size_t>(label * c + predicted)];
        if (predicted == label ||
            m_report.misclassified.size() >= ValidationReport::kKeptMisclassified)
            continue;
        double sum = 0.0;
        for (int k = 0; k < c; ++k)
            sum += std::exp(static_cast<double>(row[k] - row[predicted]));
        MisclassifiedSample s;
        s.index = firstIndex + i;
        s.label = label;
        s.predicted = predicted;
        s.confidence = static_cast<float>(1.0 / sum);
        for (int d = 1; d < inputs.shape().rank(); ++d)
            s.shape.push_back(inputs.dim(d));
        const float* pixels = inputs.data<float>() + i * sampleSize;
        s.pixels.assign(pixels, pixels + sampleSize);
        m_report.misclassified.push_back(std::move(s));
    }
}

} // namespace tb
