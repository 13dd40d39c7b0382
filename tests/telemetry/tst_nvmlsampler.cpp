// NvmlSampler: a missing or foreign library is reported with a reason; with a (fake) NVML every
// metric is read, _v2 entry points win, and unsupported metrics stay missing.
#include "support/buildtree.h"
#include "telemetry/nvmlsampler.h"

#include <QtTest>

#include <dlfcn.h>

using namespace tb;

class TestNvmlSampler : public QObject {
    Q_OBJECT

private slots:
    void thisMachine() {
        NvmlSampler nvml;
        void* probe = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (probe) {
            dlclose(probe);
            qInfo("NVML present: %s", nvml.available() ? "initialised" : nvml.lastError().c_str());
            if (nvml.available())
                QVERIFY(!nvml.facts().gpuNames.empty() || !nvml.lastError().empty());
            return;
        }
        QVERIFY(!nvml.available());
        QCOMPARE(QString::fromStdString(nvml.lastError()),
                 QString("NVML not available: libnvidia-ml.so.1 not found"));
        QVERIFY(nvml.sample().empty());
        const NvmlFacts facts = nvml.facts();
        QVERIFY(!facts.available);
        QCOMPARE(facts.error, nvml.lastError());
    }

    void unusableLibraries_data() {
        QTest::addColumn<QString>("library");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing") << "/nonexistent/libnvidia-ml.so.1"
                                 << "NVML not available: /nonexistent/libnvidia-ml.so.1 not found";
        QTest::newRow("not-nvml") << "libz.so.1"
                                  << "NVML not available: libz.so.1 lacks nvmlInit";
    }

    void unusableLibraries() {
        QFETCH(QString, library);
        QFETCH(QString, reason);
        NvmlSampler nvml(library.toStdString());
        QVERIFY(!nvml.available());
        QVERIFY2(QString::fromStdString(nvml.lastError()).startsWith(reason),
                 nvml.lastError().c_str());
        QVERIFY(nvml.sample().empty());
    }

    void readsEveryMetric() {
        NvmlSampler nvml(test::fakeNvmlPath().toStdString());
        QVERIFY2(nvml.available(), nvml.lastError().c_str()); // nvmlInit_v2, not nvmlInit
        const auto gpus = nvml.sample();
        QCOMPARE(gpus.size(), std::size_t{2}); // nvmlDeviceGetCount_v2 says 2, the old one 1
        const GpuSample& g = gpus[0];
        QCOMPARE(g.index, 0);
        QCOMPARE(QString::fromStdString(g.name), QString("Fake H200"));
        QCOMPARE(g.utilPercent.value_or(-1), 87.0);
        QCOMPARE(g.memUtilPercent.value_or(-1), 40.0);
        QCOMPARE(g.memUsedBytes.value_or(0), uint64_t{10} << 30); // from the _v2 struct
        QCOMPARE(g.memTotalBytes.value_or(0), uint64_t{141} << 30);
        QCOMPARE(g.temperatureC.value_or(-1), 65.0);
        QCOMPARE(g.powerW.value_or(-1), 350.5);
        QCOMPARE(g.powerLimitW.value_or(-1), 700.0);
        QCOMPARE(g.smClockMHz.value_or(-1), 1980.0);
        QCOMPARE(g.memClockMHz.value_or(-1), 2619.0);
        QCOMPARE(g.pcieTxMBps.value_or(-1), 1.2);
        QCOMPARE(g.pcieRxMBps.value_or(-1), 34.0);
        QCOMPARE(g.throttleReasons.value_or(0), uint64_t{4});
        QCOMPARE(nvml.lastError(), std::string());
    }

    void unsupportedMetricsStayMissing() {
        NvmlSampler nvml(test::fakeNvmlPath().toStdString());
        const GpuSample g = nvml.sample().at(1);
        QCOMPARE(QString::fromStdString(g.name), QString("Fake T4"));
        QVERIFY(!g.utilPercent);
        QVERIFY(!g.memUtilPercent);
        QVERIFY(!g.powerW);
        QVERIFY(!g.powerLimitW);
        QVERIFY(!g.smClockMHz);
        QVERIFY(!g.pcieTxMBps);
        QVERIFY(!g.throttleReasons);
        QCOMPARE(g.memUsedBytes.value_or(0), uint64_t{1} << 30); // fell back to nvmlMemory_t
        QCOMPARE(g.temperatureC.value_or(-1), 65.0);
    }

    void factsForDoctor() {
        NvmlSampler nvml(test::fakeNvmlPath().toStdString());
        const NvmlFacts f = nvml.facts();
        QVERIFY(f.available);
        QCOMPARE(QString::fromStdString(f.driverVersion), QString("555.42.06"));
        QCOMPARE(f.cudaDriverVersion.value_or(0), 12040); // the _v2 entry point
        QCOMPARE(QString::fromStdString(formatCudaVersion(*f.cudaDriverVersion)), QString("12.4"));
        QCOMPARE(f.gpuNames, (std::vector<std::string>{"Fake H200", "Fake T4"}));
        QCOMPARE(f.gpuMemoryBytes.at(1).value_or(0), uint64_t{16} << 30);
    }
};

QTEST_GUILESS_MAIN(TestNvmlSampler)
#include "tst_nvmlsampler.moc"
