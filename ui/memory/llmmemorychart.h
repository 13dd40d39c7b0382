// LlmMemoryChart: where a language model's memory goes, as one stacked bar in GB (weights,
// gradients, optimizer state, activations, logits, KV cache, runtime), with a dashed line at the
// memory of each common GPU, so "does it fit" reads at a glance.
#pragma once

#include "charts/chartview.h"
#include "train/llmmemory.h"

#include <vector>

class QCPBars;
class QCPItemStraightLine;
class QCPItemText;

namespace tb::ui {

class LlmMemoryChart : public ChartView {
    Q_OBJECT

public:
    explicit LlmMemoryChart(QWidget* parent = nullptr);

    void setEstimate(const LlmMemoryEstimate& estimate);
    // The bar's parts in GB, in stacking order (for tests).
    std::vector<double> partsGb() const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    LlmMemoryEstimate m_estimate;
    std::vector<QCPBars*> m_parts;
    std::vector<QCPItemStraightLine*> m_gpuLines;
    std::vector<QCPItemText*> m_gpuLabels;
};

} // namespace tb::ui
