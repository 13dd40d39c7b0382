// bench_live_view: how the live charts hold up. A producer thread pushes a synthetic run (one
// logged step per ms, 2 Hz telemetry for 4 GPUs) into a tb::EventQueue; the GUI drains it on a
// 30 ms timer as the run controller does, hands the batches to a ChartsPanel and replots once.
// Reports the tick time (drain + add + replot) at each size, the lateness of a 10 ms timer
// (how long input would wait) and the process RSS. The tick's thread CPU time is printed too:
// on a loaded machine the wall-clock p99 measures the scheduler, the CPU time our work.
// Usage: tb_bench_live_view [--seconds S] (per size; default 5). Not a test.
#include "charts/chartspanel.h"
#include "events/eventqueue.h"
#include "support/benchfigures.h"
#include "support/syntheticrun.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QStyleFactory>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

using namespace tb;
using tb::test::percentile;
using tb::test::procStatusMiB;
using namespace tb::ui;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kGpus = 4;
constexpr double kStepSeconds = 0.001; // 1,000 logged steps per second
constexpr double kSampleSeconds = 0.5; // telemetry at 2 Hz

double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The 1-minute load average: how much the machine was shared while we measured.
QByteArray loadAverage() {
    QFile f(QStringLiteral("/proc/loadavg"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().split(' ').front() : QByteArray("?");
}

// Hands a drained batch to the panel, one call per kind of event.
void dispatch(ChartsPanel& panel, const std::vector<TaggedEvent>& events) {
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    std::vector<SystemSample> samples;
    for (const TaggedEvent& tagged : events) {
        const Event& e = tagged.event;
        if (const auto* s = std::get_if<StepEvent>(&e))
            steps.push_back(*s);
        else if (const auto* ep = std::get_if<EpochEvent>(&e))
            epochs.push_back(*ep);
        else if (const auto* sys = std::get_if<SystemSampleEvent>(&e))
            samples.push_back(sys->sample);
    }
    panel.addSteps(steps);
    panel.addEpochs(epochs);
    panel.addSystemSamples(samples);
}

// Fast-forward: the run's next `count` steps (and their epochs and telemetry) in bulk.
void preload(ChartsPanel& panel, test::SyntheticRun& run, int64_t count, double& nextSample) {
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    std::vector<SystemSample> samples;
    for (int64_t i = 0; i < count; ++i) {
        steps.push_back(run.nextStep());
        if (run.epochEnded())
            epochs.push_back(run.lastEpoch());
        for (; nextSample <= steps.back().unixTime; nextSample += kSampleSeconds)
            samples.push_back(run.sample(nextSample));
    }
    panel.addSteps(steps);
    panel.addEpochs(epochs);
    panel.addSystemSamples(samples);
    panel.replot();
}

struct Phase {
    int64_t pointsAtStart = 0;
    int64_t pointsAtEnd = 0;
    std::vector<double> tickMs;
    std::vector<double> tickCpuMs;
    std::vector<double> latenessMs;
    double eventsPerTick = 0.0;
    double rssMiB = 0.0;
};

// Streams `seconds` of the run through an EventQueue while the GUI ticks; returns the figures.
Phase measure(QApplication& app, ChartsPanel& panel, test::SyntheticRun& run, double seconds,
              double& nextSample, int64_t points) {
    Phase phase;
    phase.pointsAtStart = points;
    EventQueue queue;
    std::atomic<int64_t> produced{0};
    const int64_t total = static_cast<int64_t>(seconds / kStepSeconds);
    std::jthread producer([&](std::stop_token stop) {
        const auto t0 = Clock::now();
        for (int64_t i = 0; i < total && !stop.stop_requested(); ++i) {
            std::this_thread::sleep_until(t0 + std::chrono::microseconds(1000 * i));
            const StepEvent s = run.nextStep();
            queue.onEvent(s);
            produced.fetch_add(1, std::memory_order_relaxed);
            if (run.epochEnded())
                queue.onEvent(run.lastEpoch());
            for (; nextSample <= s.unixTime; nextSample += kSampleSeconds)
                queue.onEvent(SystemSampleEvent{run.sample(nextSample)});
        }
    });

    int64_t events = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const auto t0 = Clock::now();
        const double cpu0 = threadCpuMs();
        const std::vector<TaggedEvent> batch = queue.drain();
        dispatch(panel, batch);
        panel.replot();
        phase.tickMs.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        phase.tickCpuMs.push_back(threadCpuMs() - cpu0);
        events += static_cast<int64_t>(batch.size());
    });
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    auto last = Clock::now();
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const auto now = Clock::now();
        const double late = std::chrono::duration<double, std::milli>(now - last).count() - 10.0;
        phase.latenessMs.push_back(std::max(0.0, late));
        last = now;
    });
    QTimer end;
    end.setSingleShot(true);
    QObject::connect(&end, &QTimer::timeout, &app, [&] { app.exit(0); });
    tick.start(30);
    probe.start(10);
    end.start(static_cast<int>(seconds * 1000.0) + 100);
    app.exec();
    producer.request_stop();
    producer.join();
    // What was still queued goes in too, so the next phase starts from a known size.
    dispatch(panel, queue.drain());
    phase.pointsAtEnd = points + produced.load();
    phase.eventsPerTick = phase.tickMs.empty() ? 0.0 : double(events) / phase.tickMs.size();
    phase.rssMiB = procStatusMiB("VmRSS:");
    return phase;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    double seconds = 5.0;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--seconds") == 0)
            seconds = std::atof(argv[i + 1]);

    test::SyntheticRunOptions options;
    options.gpus = kGpus;
    options.stepSeconds = kStepSeconds;
    options.stepsPerEpoch = 1000;
    test::SyntheticRun run(options);
    ChartsPanel panel;
    panel.resize(1280, 800);
    panel.show();
    QElapsedTimer exposed;
    exposed.start();
    while (exposed.elapsed() < 200)
        QApplication::processEvents();
    panel.beginRun(run.started(), options.startUnixTime);
    double nextSample = options.startUnixTime;

    std::printf("platform %s, panel 1280x800, 1000 steps/s + 2 Hz telemetry x %d GPUs, %.0f s "
                "per size, load average %s\n",
                qPrintable(QGuiApplication::platformName()), kGpus, seconds,
                loadAverage().constData());
    std::printf("%-16s %6s %8s %8s %8s %8s %8s %7s %9s %9s %8s\n", "points (steps)", "ticks",
                "tick ms", "p99", "max", "cpu ms", "cpu p99", "ev/tick", "loop p99", "loop max",
                "RSS MiB");
    int64_t points = 0;
    std::vector<double> allLateness;
    for (const int64_t size : {10000, 100000, 200000}) {
        preload(panel, run, size - points, nextSample);
        points = size;
        const Phase p = measure(app, panel, run, seconds, nextSample, points);
        points = p.pointsAtEnd;
        allLateness.insert(allLateness.end(), p.latenessMs.begin(), p.latenessMs.end());
        std::printf("%7lld-%-8lld %6zu %8.2f %8.2f %8.2f %8.2f %8.2f %7.1f %9.2f %9.2f %8.0f\n",
                    static_cast<long long>(p.pointsAtStart), static_cast<long long>(p.pointsAtEnd),
                    p.tickMs.size(), percentile(p.tickMs, 0.5), percentile(p.tickMs, 0.99),
                    percentile(p.tickMs, 1.0), percentile(p.tickCpuMs, 0.5),
                    percentile(p.tickCpuMs, 0.99), p.eventsPerTick, percentile(p.latenessMs, 0.99),
                    percentile(p.latenessMs, 1.0), p.rssMiB);
        std::fflush(stdout);
    }
    std::printf(
        "(tick ms = median wall time of drain + add + replot; cpu = its thread CPU time)\n");
    std::printf("event loop: 10 ms timer lateness p99 %.2f ms over the whole run; peak RSS %.0f "
                "MiB; load average %s\n",
                percentile(allLateness, 0.99), procStatusMiB("VmHWM:"), loadAverage().constData());
    return 0;
}
