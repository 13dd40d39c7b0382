// BinnedMeans: sums per bin, divided on read; merging adds neighbouring sums.
#include "charts/binnedmeans.h"

namespace tb::ui {

BinnedMeans::BinnedMeans(std::size_t channels, std::size_t maxBins)
    : m_channels(channels), m_maxBins(maxBins < 2 ? 2 : maxBins + maxBins % 2) {}

void BinnedMeans::clear() {
    m_pointsPerBin = 1;
    m_count.clear();
    m_keySum.clear();
    m_sums.clear();
}

void BinnedMeans::add(double key, const double* values) {
    if (m_count.empty() || m_count.back() >= m_pointsPerBin) {
        if (m_count.size() == m_maxBins)
            mergePairs();
        if (m_count.empty() || m_count.back() >= m_pointsPerBin) {
            m_count.push_back(0);
            m_keySum.push_back(0.0);
            m_sums.resize(m_sums.size() + m_channels, 0.0);
        }
    }
    ++m_count.back();
    m_keySum.back() += key;
    double* sums = &m_sums[m_sums.size() - m_channels];
    for (std::size_t c = 0; c < m_channels; ++c)
        sums[c] += values[c];
}

double BinnedMeans::key(std::size_t bin) const {
    return m_keySum[bin] / static_cast<double>(m_count[bin]);
}

double BinnedMeans::value(std::size_t bin, std::size_t channel) const {
    return m_sums[bin * m_channels + channel] / static_cast<double>(m_count[bin]);
}

void BinnedMeans::mergePairs() {
    const std::size_t merged = (m_count.size() + 1) / 2;
    for (std::size_t i = 0; i < merged; ++i) {
        const std::size_t a = 2 * i, b = 2 * i + 1;
        m_count[i] = m_count[a];
        m_keySum[i] = m_keySum[a];
        for (std::size_t c = 0; c < m_channels; ++c)
            m_sums[i * m_channels + c] = m_sums[a * m_channels + c];
        if (b < m_count.size()) {
            m_count[i] += m_count[b];
            m_keySum[i] += m_keySum[b];
            for (std::size_t c = 0; c < m_channels; ++c)
                m_sums[i * m_channels + c] += m_sums[b * m_channels + c];
        }
    }
    m_count.resize(merged);
    m_keySum.resize(merged);
    m_sums.resize(merged * m_channels);
    m_pointsPerBin *= 2;
}

} // namespace tb::ui
