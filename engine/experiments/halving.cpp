// Successive halving: the rung rule, the shared ladder and the judge of one trial.
#include "experiments/halving.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

bool promotedAtRung(double value, std::vector<double> measured, int reduction, bool maximize) {
    if (!std::isfinite(value))
        return false;
    // Best first, with what is not a number last.
    const auto better = [maximize](double a, double b) {
        if (!std::isfinite(b))
            return std::isfinite(a);
        if (!std::isfinite(a))
            return false;
        return maximize ? a > b : a < b;
    };
    std::sort(measured.begin(), measured.end(), better);
    const std::size_t kept =
        std::max<std::size_t>(1, measured.size() / static_cast<std::size_t>(reduction));
    const double threshold = measured[std::min(kept, measured.size()) - 1];
    return !better(threshold, value);
}

std::optional<double> metricAfterEpochs(const std::string& metric,
                                        const std::vector<EpochEvent>& epochs) {
    if (epochs.empty())
        return std::nullopt;
    const EpochEvent& last = epochs.back();
    if (metric == "best_map50_95" && !last.validation.detection)
        return std::nullopt;
    if (metric == "best_val_acc" || metric == "best_map50_95") { // a detector's valAcc is mAP50-95
        double best = -std::numeric_limits<double>::infinity();
        for (const EpochEvent& e : epochs)
            best = std::max(best, e.valAcc);
        return best;
    }
    if (metric == "best_miou") {
        if (!last.validation.segmentation)
            return std::nullopt;
        double best = -std::numeric_limits<double>::infinity();
        for (const EpochEvent& e : epochs)
            if (e.validation.segmentation)
                best = std::max(best, e.validation.segmentation->meanIoU);
        return best;
    }
    if (metric == "final_val_acc")
        return last.valAcc;
    if (metric == "final_val_loss")
        return last.valLoss;
    if (metric == "final_train_loss")
        return last.trainLoss;
    return std::nullopt;
}

HalvingLadder::HalvingLadder(HalvingBudget budget, bool maximize)
    : m_budget(budget), m_maximize(maximize), m_values(budget.rungs().size()) {}

bool HalvingLadder::judge(std::size_t rung, double value) {
    const std::lock_guard lock(m_mutex);
    m_values.at(rung).push_back(value);
    return promotedAtRung(value, m_values[rung], m_budget.reduction, m_maximize);
}

void HalvingLadder::record(std::size_t rung, double value) {
    const std::lock_guard lock(m_mutex);
    m_values.at(rung).push_back(value);
}

std::size_t HalvingLadder::measuredAt(std::size_t rung) const {
    const std::lock_guard lock(m_mutex);
    return m_values.at(rung).size();
}

HalvingJudge::HalvingJudge(HalvingLadder& ladder, std::string metric, std::stop_source stop)
    : m_ladder(ladder), m_metric(std::move(metric)), m_stop(std::move(stop)),
      m_rungs(ladder.budget().rungs()) {}

void HalvingJudge::onEvent(const Event& event) {
    if (m_haltedAt)
        return;
    if (const auto* epoch = std::get_if<EpochEvent>(&event);
        epoch && !epoch->partial && m_ladder.budget().epochs) {
        m_epochs.push_back(*epoch);
        reach(epoch->epoch, metricAfterEpochs(m_metric, m_epochs));
    } else if (const auto* step = std::get_if<StepEvent>(&event);
               step && !m_ladder.budget().epochs) {
        // Steps arrive in logging intervals: the interval that reaches a rung measures it.
        reach(step->step, step->loss);
    }
}

void HalvingJudge::reach(int64_t budgetUsed, const std::optional<double>& value) {
    while (!m_haltedAt && m_nextRung < m_rungs.size() && budgetUsed >= m_rungs[m_nextRung]) {
        const double v = value.value_or(std::numeric_limits<double>::quiet_NaN());
        if (!m_ladder.judge(m_nextRung, v)) {
            m_haltedAt = m_rungs[m_nextRung];
            m_stop.request_stop();
        }
        ++m_nextRung;
    }
}

} // namespace tb
