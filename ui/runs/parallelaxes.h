// The axes of a parallel-coordinates view: one per key, placing a run's value (as text) at a
// fraction of the axis's height. Numbers get a linear axis, or a log one when they are all
// positive and span more than a decade and a half (learning rates, weight decay: what sweeps
// draw on a log scale); anything else one evenly spaced tick per category.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace tb::ui {

class ParallelAxis {
public:
    enum class Kind { Linear, Log, Categories };

    // The axis that holds these values (empty texts, runs without the key, are left off).
    static ParallelAxis fit(const QString& key, const std::vector<QString>& values);

    const QString& key() const { return m_key; }
    Kind kind() const { return m_kind; }
    const QStringList& categories() const { return m_categories; }
    // 0 at the bottom, 1 at the top; empty for a value the axis does not hold.
    std::optional<double> fractionOf(const QString& value) const;
    // Where to put labels: (fraction, text), bottom to top. A linear axis holding a few values
    // (a grid's 16, 32, 64) is labelled at those values.
    std::vector<std::pair<double, QString>> ticks() const;

private:
    QString m_key;
    Kind m_kind = Kind::Linear;
    double m_min = 0.0, m_max = 1.0; // numbers: the range (log: of the logarithms)
    QStringList m_categories;
    std::vector<double> m_levels; // Linear: its values, sorted, when there are few of them
};

} // namespace tb::ui
