// Device probing and selection: the probe never throws and gives a reason when the GPU cannot be
// used; device names resolve or throw typed errors; the CPU backend is always available.
#include "backend/devices.h"
#include "core/errors.h"

#include <QtTest>

using namespace tb;

class TestDevices : public QObject {
    Q_OBJECT
private slots:
    void probeIsStableAndExplained() {
        const CudaStatus& s = probeCuda();
        QCOMPARE(&probeCuda(), &s); // probed once
        std::printf("  usable=%d reason='%s'\n  advice='%s'\n  plugin=%s\n", s.usable,
                    s.reason.c_str(), s.advice.c_str(), s.pluginPath.c_str());
        if (s.usable) {
            QVERIFY(!s.gpus.empty());
            QVERIFY(s.reason.empty());
            for (const GpuInfo& g : s.gpus) {
                QVERIFY(!g.name.empty());
                QVERIFY(g.computeMajor >= 7);
                QVERIFY(g.smCount > 0 && g.cudaCores >= g.smCount);
                QVERIFY(g.totalMemory > 0);
            }
        } else {
            // A precise reason and something to do about it, never an empty string.
            QVERIFY(s.reason.size() > 10);
            QVERIFY(s.advice.size() > 10);
        }
        const nlohmann::json j = toJson(s);
        QCOMPARE(j["usable"].get<bool>(), s.usable);
        QCOMPARE(j["reason"].get<std::string>(), s.reason);
        QVERIFY(j["gpus"].is_array());
    }

    void autoFallsBackToCpu() {
        const Device d = resolveDevice("auto");
        QCOMPARE(d.isCuda(), probeCuda().usable);
        QCOMPARE(resolveDevice("cpu"), Device::cpu());
        QCOMPARE(resolveDevice("CPU"), Device::cpu());
    }

    void cudaDeviceWithoutGpuThrowsWithReason() {
        if (probeCuda().usable) {
            QCOMPARE(resolveDevice("cuda:0"), Device::cuda(0));
            QVERIFY_THROWS_EXCEPTION(BackendUnavailable, resolveDevice("cuda:99"));
            return;
        }
        try {
            resolveDevice("cuda:0");
            QFAIL("cuda:0 resolved without a usable GPU");
        } catch (const BackendUnavailable& e) {
            QVERIFY(e.reason().find(probeCuda().reason) != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(BackendUnavailable, createBackend(Device::cuda(0), 1));
    }

    void malformedDeviceIsConfigError_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("gpu7") << "gpu7";
        QTest::newRow("empty") << "";
        QTest::newRow("cuda-colon") << "cuda:";
        QTest::newRow("cuda-negative") << "cuda:-1";
        QTest::newRow("cuda-letters") << "cuda:x";
        QTest::newRow("cuda-huge") << "cuda:99999999";
    }
    void malformedDeviceIsConfigError() {
        QFETCH(QString, text);
        try {
            resolveDevice(text.toStdString());
            QFAIL("no error");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("device"));
        }
    }

    void cpuBackendAlwaysAvailable() {
        const std::unique_ptr<Backend> b = createBackend(Device::cpu(), 1);
        QVERIFY(b);
        QCOMPARE(b->device(), Device::cpu());
    }
};

QTEST_GUILESS_MAIN(TestDevices)
#include "tst_devices.moc"
