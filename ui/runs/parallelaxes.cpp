// ParallelAxis: the scale a key's values fit, and their places on it.
#include "runs/parallelaxes.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tb::ui {

namespace {

// Log axes for positive values spanning at least this ratio.
constexpr double kLogSpan = 30.0;
// A linear axis with this many distinct values or fewer is labelled at each.
constexpr std::size_t kMostLabelledLevels = 6;

std::optional<double> numberOf(const QString& text) {
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || !std::isfinite(v))
        return std::nullopt;
    return v;
}

} // namespace

ParallelAxis ParallelAxis::fit(const QString& key, const std::vector<QString>& values) {
    ParallelAxis axis;
    axis.m_key = key;
    std::vector<double> numbers;
    std::set<QString> distinct;
    bool numeric = true;
    for (const QString& v : values) {
        if (v.isEmpty())
            continue;
        distinct.insert(v);
        if (const auto n = numberOf(v))
            numbers.push_back(*n);
        else
            numeric = false;
    }
    if (!numeric || numbers.empty()) {
        axis.m_kind = Kind::Categories;
        axis.m_categories = QStringList(distinct.begin(), distinct.end());
        return axis;
    }
    const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
    axis.m_min = *lo;
    axis.m_max = *hi;
    if (*lo > 0.0 && *hi / *lo >= kLogSpan) {
        axis.m_kind = Kind::Log;
        axis.m_min = std::log10(*lo);
        axis.m_max = std::log10(*hi);
    } else {
        const std::set<double> levels(numbers.begin(), numbers.end());
        if (levels.size() <= kMostLabelledLevels)
            axis.m_levels.assign(levels.begin(), levels.end());
    }
    if (axis.m_max == axis.m_min) { // one value: the middle of the axis
        axis.m_min -= 0.5;
        axis.m_max += 0.5;
    }
    return axis;
}

std::optional<double> ParallelAxis::fractionOf(const QString& value) const {
    if (value.isEmpty())
        return std::nullopt;
    if (m_kind == Kind::Categories) {
        const int i = static_cast<int>(m_categories.indexOf(value));
        if (i < 0)
            return std::nullopt;
        return m_categories.size() == 1 ? 0.5 : double(i) / double(m_categories.size() - 1);
    }
    auto v = numberOf(value);
    if (!v || (m_kind == Kind::Log && *v <= 0.0))
        return std::nullopt;
    const double x = m_kind == Kind::Log ? std::log10(*v) : *v;
    return std::clamp((x - m_min) / (m_max - m_min), 0.0, 1.0);
}

std::vector<std::pair<double, QString>> ParallelAxis::ticks() const {
    std::vector<std::pair<double, QString>> out;
    if (m_kind == Kind::Categories) {
        for (const QString& c : m_categories)
            out.emplace_back(*fractionOf(c), c);
        return out;
    }
    if (m_kind == Kind::Log) { // the powers of ten inside, and the ends
        out.emplace_back(0.0, QString::number(std::pow(10.0, m_min), 'g', 3));
        for (double p = std::ceil(m_min); p < m_max; p += 1.0)
            if (p > m_min)
                out.emplace_back((p - m_min) / (m_max - m_min), QString::number(std::pow(10, p)));
        out.emplace_back(1.0, QString::number(std::pow(10.0, m_max), 'g', 3));
        return out;
    }
    if (!m_levels.empty()) {
        for (const double v : m_levels)
            out.emplace_back((v - m_min) / (m_max - m_min), QString::number(v, 'g', 4));
        return out;
    }
    for (int i = 0; i <= 4; ++i) {
        const double f = i / 4.0;
        out.emplace_back(f, QString::number(m_min + f * (m_max - m_min), 'g', 4));
    }
    return out;
}

} // namespace tb::ui
