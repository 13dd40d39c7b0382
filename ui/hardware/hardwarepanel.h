// HardwarePanel: the environment check (driver, CUDA, cuDNN, each GPU, and why a GPU cannot be
// used) and live gauges for every GPU, or the CPU and RAM, updating with or without a run.
#pragma once

#include "core/systemsample.h"

#include <QWidget>

#include <vector>

class QGridLayout;
class QLabel;
class QProgressBar;

namespace tb::ui {

class HardwarePanel : public QWidget {
    Q_OBJECT
public:
    explicit HardwarePanel(QWidget* parent = nullptr);

    // The newest sample of a batch is shown; gauges appear for the metrics it has.
    void addSamples(const std::vector<tb::SystemSample>& samples);
    // Why the sampler has no GPU readings (empty: it reads them fine).
    void setGpuStatus(const QString& status);
    QString reportText() const;

private:
    QProgressBar* gauge(const QString& key, const QString& title);

    QLabel* m_report;
    QLabel* m_gpuStatus;
    QGridLayout* m_gauges;
    std::vector<std::pair<QString, QProgressBar*>> m_bars;
};

// The environment check as rich text: CUDA status and every GPU with its memory and bandwidth.
QString environmentReport();

} // namespace tb::ui
