// BinnedMeans: a series of multi-channel points averaged into at most `maxBins` bins of
// consecutive points. When the bins run out, neighbours merge and each bin holds twice as many
// points, so a run of any length costs O(maxBins) to draw and O(1) per point to keep.
#pragma once

#include <cstddef>
#include <vector>

namespace tb::ui {

class BinnedMeans {
public:
    // maxBins is rounded up to an even number (bins merge in pairs).
    BinnedMeans(std::size_t channels, std::size_t maxBins);

    void clear();
    // values: `channels` numbers.
    void add(double key, const double* values);

    std::size_t binCount() const { return m_count.size(); }
    std::size_t pointsPerBin() const { return m_pointsPerBin; }
    // The mean key and the mean of one channel over the points of a bin.
    double key(std::size_t bin) const;
    double value(std::size_t bin, std::size_t channel) const;

private:
    void mergePairs();

    std::size_t m_channels;
    std::size_t m_maxBins;
    std::size_t m_pointsPerBin = 1;
    std::vector<std::size_t> m_count;
    std::vector<double> m_keySum;
    std::vector<double> m_sums; // (bins, channels)
};

} // namespace tb::ui
