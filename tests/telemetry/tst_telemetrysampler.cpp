// TelemetrySampler: host samples at about 2 Hz with no GPU, GPU samples with a (fake) NVML,
// prompt stop, and sinks that stop receiving once removed.
#include "support/buildtree.h"
#include "telemetry/telemetrysampler.h"

#include <QElapsedTimer>
#include <QtTest>

#include <dlfcn.h>

#include <mutex>

using namespace tb;
using Clock = std::chrono::steady_clock;

namespace {

class CollectingSink : public EventSink {
public:
    void onEvent(const Event& event) override {
        std::lock_guard lock(m_mutex);
        if (const auto* s = std::get_if<SystemSampleEvent>(&event)) {
            m_samples.push_back(s->sample);
            m_arrivals.push_back(Clock::now());
        }
    }
    std::size_t count() const {
        std::lock_guard lock(m_mutex);
        return m_samples.size();
    }
    std::vector<SystemSample> samples() const {
        std::lock_guard lock(m_mutex);
        return m_samples;
    }
    std::vector<Clock::time_point> arrivals() const {
        std::lock_guard lock(m_mutex);
        return m_arrivals;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<SystemSample> m_samples;
    std::vector<Clock::time_point> m_arrivals;
};

bool realNvmlPresent() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib)
        dlclose(lib);
    return lib != nullptr;
}

} // namespace

class TestTelemetrySampler : public QObject {
    Q_OBJECT

private slots:
    void hostSamplesAtTwoHertzWithoutNvml() {
        CollectingSink sink;
        TelemetrySampler sampler; // defaults: 500 ms, GPUs through the real NVML
        sampler.addSink(&sink);
        const auto started = Clock::now();
        sampler.start();
        QVERIFY(sampler.running());
        QTRY_VERIFY_WITH_TIMEOUT(sink.count() >= 4, 4000);
        sampler.stop();
        QVERIFY(!sampler.running());

        const auto arrivals = sink.arrivals();
        auto ms = [](Clock::duration d) {
            return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
        };
        qInfo("first sample after %lld ms", static_cast<long long>(ms(arrivals[0] - started)));
        for (std::size_t i = 1; i < arrivals.size(); ++i) {
            const auto gap = ms(arrivals[i] - arrivals[i - 1]);
            QVERIFY2(gap >= 350 && gap <= 800, qPrintable(QString("gap %1 ms").arg(gap)));
        }
        for (const SystemSample& s : sink.samples()) {
            QVERIFY(s.unixTime > 1.7e9);
            QVERIFY(s.host.ramTotalBytes.has_value());
            QVERIFY(s.host.cpuPercent.has_value());
        }
        QVERIFY(sampler.latest().has_value());
        if (!realNvmlPresent()) {
            QCOMPARE(QString::fromStdString(sampler.gpuStatus()),
                     QString("NVML not available: libnvidia-ml.so.1 not found"));
            QVERIFY(sink.samples().front().gpus.empty());
        }
    }

    void stopsPromptly() {
        TelemetryOptions options;
        options.interval = std::chrono::seconds(10);
        TelemetrySampler sampler(options);
        sampler.start();
        QTRY_VERIFY(sampler.waiting()); // the thread in its ten-second wait
        QElapsedTimer timer;
        timer.start();
        sampler.stop();
        qInfo("stop() took %lld ms", timer.elapsed());
        QVERIFY(timer.elapsed() < 100);
        sampler.start(); // restartable
        QVERIFY(sampler.running());
    } // the destructor stops it too

    void deliversGpuSamplesFromNvml() {
        TelemetryOptions options;
        options.interval = std::chrono::milliseconds(20);
        options.nvmlLibrary = test::fakeNvmlPath().toStdString();
        CollectingSink sink;
        TelemetrySampler sampler(options);
        sampler.addSink(&sink);
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(sink.count() >= 2, 2000);
        sampler.stop();
        const SystemSample s = sink.samples().back();
        QCOMPARE(s.gpus.size(), std::size_t{2});
        QCOMPARE(s.gpus[0].utilPercent.value_or(-1), 87.0);
        QCOMPARE(sampler.gpuStatus(), std::string());
    }

    void hostOnlyWhenGpusAreOff() {
        TelemetryOptions options;
        options.interval = std::chrono::milliseconds(20);
        options.gpus = false;
        options.nvmlLibrary = test::fakeNvmlPath().toStdString();
        CollectingSink sink;
        TelemetrySampler sampler(options);
        sampler.addSink(&sink);
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(sink.count() >= 1, 2000);
        sampler.stop();
        QVERIFY(sink.samples().front().gpus.empty());
    }

    void removedSinkIsNotCalled() {
        TelemetryOptions options;
        options.interval = std::chrono::milliseconds(10);
        options.gpus = false;
        CollectingSink kept;
        auto removed = std::make_unique<CollectingSink>();
        TelemetrySampler sampler(options);
        sampler.addSink(&kept);
        sampler.addSink(removed.get());
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(removed->count() >= 1, 2000);
        sampler.removeSink(removed.get());
        removed.reset(); // safe: removeSink waited for any delivery in progress
        const std::size_t before = kept.count();
        QTRY_VERIFY_WITH_TIMEOUT(kept.count() >= before + 3, 2000);
    }
};

QTEST_GUILESS_MAIN(TestTelemetrySampler)
#include "tst_telemetrysampler.moc"
