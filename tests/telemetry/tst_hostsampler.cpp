// HostSampler: plausible readings from the real /proc, and exact ones from a fake /proc.
#include "telemetry/hostsampler.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>

using namespace tb;

namespace {

void writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

} // namespace

class TestHostSampler : public QObject {
    Q_OBJECT

private slots:
    void realProcIsPlausible() {
        HostSampler sampler;
        // Keep a core busy for a while so the CPU counters move.
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
        volatile double sink = 0;
        while (std::chrono::steady_clock::now() < until)
            sink = sink + 1.0;
        const HostSample s = sampler.sample();
        QVERIFY(s.cpuPercent.has_value());
        QVERIFY(*s.cpuPercent > 0.0 && *s.cpuPercent <= 100.0);
        QVERIFY(!s.perCorePercent.empty());
        for (double p : s.perCorePercent)
            QVERIFY(p >= 0.0 && p <= 100.0);
        QVERIFY(s.ramTotalBytes.value_or(0) > (64ull << 20));
        QVERIFY(s.ramUsedBytes.value_or(0) > 0);
        QVERIFY(*s.ramUsedBytes < *s.ramTotalBytes);
        QVERIFY(s.processRssBytes.value_or(0) > (1ull << 20));
        QVERIFY(s.processPeakRssBytes.value_or(0) >= *s.processRssBytes);
        qInfo("cpu %.1f%% over %zu cores, ram %llu/%llu MiB, rss %llu MiB", *s.cpuPercent,
              s.perCorePercent.size(), (unsigned long long)(*s.ramUsedBytes >> 20),
              (unsigned long long)(*s.ramTotalBytes >> 20),
              (unsigned long long)(*s.processRssBytes >> 20));
    }

    void fakeProcGivesExactValues() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath("self"));
        // user nice system idle iowait irq softirq steal guest guest_nice
        writeText(dir.filePath("stat"), "cpu  100 0 100 700 100 0 0 0 0 0\n"
                                        "cpu0 50 0 50 350 50 0 0 0 0 0\n"
                                        "cpu1 50 0 50 350 50 0 0 0 0 0\n"
                                        "intr 12345\n");
        writeText(dir.filePath("meminfo"), "MemTotal:        1000 kB\n"
                                           "MemFree:          100 kB\n"
                                           "MemAvailable:     250 kB\n");
        writeText(dir.filePath("self/status"), "Name:\ttst\nVmHWM:\t     300 kB\n"
                                               "VmRSS:\t     200 kB\n");
        HostSampler sampler(dir.path().toStdString());

        // +1000 ticks in all, +250 busy: cpu0 +200 of 500, cpu1 +50 of 500.
        writeText(dir.filePath("stat"), "cpu  300 0 150 1350 200 0 0 0 0 0\n"
                                        "cpu0 200 0 100 650 50 0 0 0 0 0\n"
                                        "cpu1 100 0 50 700 150 0 0 0 0 0\n");
        const HostSample s = sampler.sample();
        QCOMPARE(s.cpuPercent.value_or(-1), 25.0);
        QCOMPARE(s.perCorePercent, (std::vector<double>{40.0, 10.0}));
        QCOMPARE(s.ramTotalBytes.value_or(0), uint64_t{1000 * 1024});
        QCOMPARE(s.ramUsedBytes.value_or(0), uint64_t{750 * 1024});
        QCOMPARE(s.processRssBytes.value_or(0), uint64_t{200 * 1024});
        QCOMPARE(s.processPeakRssBytes.value_or(0), uint64_t{300 * 1024});

        // No ticks passed: CPU values are missing rather than 0 or garbage.
        const HostSample again = sampler.sample();
        QVERIFY(!again.cpuPercent);
        QVERIFY(again.perCorePercent.empty());
    }

    void missingFilesLeaveValuesMissing() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeText(dir.filePath("meminfo"), "MemTotal:        1000 kB\n");
        HostSampler sampler(dir.path().toStdString());
        const HostSample s = sampler.sample();
        QVERIFY(!s.cpuPercent);
        QCOMPARE(s.ramTotalBytes.value_or(0), uint64_t{1000 * 1024});
        QVERIFY(!s.ramUsedBytes); // no MemAvailable
        QVERIFY(!s.processRssBytes);
        QVERIFY(!s.processPeakRssBytes);
    }
};

QTEST_GUILESS_MAIN(TestHostSampler)
#include "tst_hostsampler.moc"
