// deviceChoices / deviceMemoryBytes: what the window's device picker lists, against the plugin's
// own probe.
#include "backend/devices.h"
#include "core/hostmemory.h"
#include "train/devicechoices.h"

#include <QtTest>

using namespace tb;

class TestDeviceChoices : public QObject {
    Q_OBJECT
private slots:
    void autoAndCpuFirstThenEveryGpu() {
        const auto choices = deviceChoices();
        const CudaStatus& cuda = probeCuda();
        QVERIFY(choices.size() >= 2);
        QCOMPARE(choices[0].value, std::string("auto"));
        QCOMPARE(choices[1].value, std::string("cpu"));
        QVERIFY(choices[0].usable && choices[1].usable);
        std::size_t gpus = 0;
        for (const DeviceChoice& c : choices)
            gpus += c.value.rfind("cuda:", 0) == 0;
        QCOMPARE(gpus, cuda.gpus.size());
        QCOMPARE(&gpuBackendStatus(), &cuda);
    }

    // Without a usable GPU the list ends with one entry that cannot be picked and says why.
    void anUnusableGpuBackendSaysWhy() {
        const CudaStatus& cuda = probeCuda();
        const auto choices = deviceChoices();
        const DeviceChoice& last = choices.back();
        if (cuda.usable) {
            QVERIFY(last.usable);
            return;
        }
        QVERIFY(!last.usable);
        QVERIFY(last.value.empty());
        QVERIFY2(last.reason.starts_with(cuda.reason), last.reason.c_str());
        QVERIFY2(last.label.find(cuda.reason) != std::string::npos, last.label.c_str());
    }

    void memoryOfEachDevice() {
        const auto host = hostMemory();
        QVERIFY(host.has_value());
        QCOMPARE(deviceMemoryBytes("cpu"), host->total);
        QCOMPARE(deviceMemoryBytes("cuda:4096"), uint64_t{0});
        const CudaStatus& cuda = probeCuda();
        QCOMPARE(deviceMemoryBytes("auto"),
                 cuda.usable && !cuda.gpus.empty() ? cuda.gpus.front().totalMemory : host->total);
    }
};

QTEST_GUILESS_MAIN(TestDeviceChoices)
#include "tst_devicechoices.moc"
