// HardwareChart: live telemetry over wall time. With GPUs, one panel each for utilisation (%),
// memory used (GiB), temperature (°C) and power (W), a line per GPU; without, the host's CPU
// utilisation and RAM used. A metric the sampler could not read is a gap (or, if never read,
// no series at all), never a 0.
#pragma once

#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "core/systemsample.h"

#include <array>
#include <map>
#include <optional>
#include <utility>
#include <vector>

class QCPGraph;

namespace tb::ui {

class HardwareChart : public ChartView {
    Q_OBJECT

public:
    // With GPUs all four; the host view uses Utilisation (CPU) and Memory (RAM).
    enum Metric { Utilisation, Memory, Temperature, Power, kMetricCount };
    static constexpr int kHost = -1; // the "GPU index" of the host's series

    // 12 hours at the sampler's 2 Hz: the chart is live all day, so its history is bounded.
    static constexpr std::size_t kDefaultHistory = 12 * 3600 * 2;

    explicit HardwareChart(QWidget* parent = nullptr);

    // At most this many samples are kept; past it the oldest quarter is dropped at once.
    void setHistoryLimit(std::size_t samples);
    std::size_t sampleCount() const { return m_readings.size(); }

    // Wall time is measured from unixTime (the run's start); earlier samples sit at negative
    // times. Until it is called, time counts from the first sample.
    void setTimeOrigin(double unixTime);
    void clear();
    void addSamples(const std::vector<SystemSample>& samples);

    bool showsGpus() const { return m_showsGpus; }
    // The series of a metric for GPU `gpu` (kHost: the host), nullptr while it has no value.
    QCPGraph* graph(Metric metric, int gpu) const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    // What the chart plots of a sample, ~10x smaller than a SystemSample (no names, no
    // per-core loads, no clocks), memory already in GiB.
    struct GpuReading {
        int index = 0;
        std::optional<double> utilPercent, memUsedGiB, memTotalGiB, temperatureC, powerW;
    };
    struct Reading {
        double unixTime = 0.0;
        std::optional<double> cpuPercent, ramUsedGiB, ramTotalGiB;
        std::vector<GpuReading> gpus;
    };
    static Reading readingOf(const SystemSample& s);

    using SeriesKey = std::pair<int, int>; // (Metric, GPU index or kHost)
    using Pending = std::map<SeriesKey, QVector<QCPGraphData>>;

    void buildLayout(bool gpus);
    void replay();
    void plotReading(const Reading& r, Pending& pending);
    QCPGraph* ensureGraph(Metric metric, int gpu);

    bool m_showsGpus = false;
    std::optional<double> m_origin;
    std::vector<Reading> m_readings;
    std::size_t m_historyLimit = kDefaultHistory;
    std::array<QCPAxisRect*, kMetricCount> m_rects{};
    std::map<SeriesKey, QCPGraph*> m_graphs;
    std::array<Extent, kMetricCount> m_extents;
    Extent m_memoryTotal; // GiB: the memory axis reaches the largest total
    Extent m_time;
};

} // namespace tb::ui
