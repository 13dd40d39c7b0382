// MemoryBar: the training-memory estimate (weights, gradients, optimizer state, activations)
// as a stacked bar against the chosen device's memory; red when it will not fit.
#pragma once

#include "train/memoryestimate.h"

#include <QWidget>

#include <optional>

namespace tb::ui {

class MemoryBar : public QWidget {
    Q_OBJECT
public:
    explicit MemoryBar(QWidget* parent = nullptr);

    // capacityBytes: what the device has (0 when unknown); deviceName for the caption.
    void setEstimate(const std::optional<MemoryEstimate>& estimate, uint64_t capacityBytes,
                     const QString& deviceName);
    bool fits() const;
    QString caption() const { return m_caption; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::optional<MemoryEstimate> m_estimate;
    uint64_t m_capacity = 0;
    QString m_caption;
};

} // namespace tb::ui
