// Host facts: exact ones from a fake /proc, plausible ones from the real one.
#include "telemetry/hostinfo.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

void writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

} // namespace

class TestHostInfo : public QObject {
    Q_OBJECT

private slots:
    void readsAFakeProc() {
        QTemporaryDir root;
        QByteArray cpuinfo;
        for (int i = 0; i < 4; ++i)
            cpuinfo += "processor\t: " + QByteArray::number(i) +
                       "\nmodel name\t: Test CPU 9000\nphysical id\t: 0\ncpu cores\t: 2\n"
                       "flags\t\t: fpu sse4_2 avx avx2 fma\n\n";
        writeText(root.filePath("cpuinfo"), cpuinfo);
        writeText(root.filePath("meminfo"),
                  "MemTotal:        8000000 kB\nMemFree: 1 kB\nMemAvailable:    6000000 kB\n");
        QVERIFY(QDir(root.path()).mkpath("driver/nvidia"));
        writeText(root.filePath("driver/nvidia/version"),
                  "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 2025\n");

        const HostFacts f = readHostFacts(root.path().toStdString());
        QCOMPARE(f.cpu.model, std::string("Test CPU 9000"));
        QCOMPARE(f.cpu.logicalCores, 4);
        QCOMPARE(f.cpu.physicalCores, 2);
        QCOMPARE(f.cpu.simd, (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma"}));
        QCOMPARE(f.memory.total, uint64_t{8000000} * 1024);
        QCOMPARE(f.memory.available, uint64_t{6000000} * 1024);
        QCOMPARE(f.nvidiaDriverVersion, std::string("580.65.06"));
        const nlohmann::json j = toJson(f);
        QCOMPARE(j["cpu"]["logicalCores"].get<int>(), 4);
        QCOMPARE(j["nvidiaDriver"].get<std::string>(), std::string("580.65.06"));
    }

    void missingFilesLeaveDefaults() {
        QTemporaryDir root;
        const HostFacts f = readHostFacts(root.path().toStdString());
        QCOMPARE(f.cpu.model, std::string("unknown"));
        QVERIFY(f.cpu.logicalCores > 0); // from the C++ runtime instead
        QCOMPARE(f.memory.total, uint64_t{0});
        QVERIFY(f.nvidiaDriverVersion.empty());
    }

    void realProcIsPlausible() {
        const HostFacts f = readHostFacts();
        QVERIFY(f.cpu.logicalCores > 0);
        QVERIFY(f.memory.total > (64ull << 20));
        QVERIFY(f.memory.available <= f.memory.total);
        QVERIFY(!f.onednnVersion.empty()); // the engine links oneDNN
    }
};

QTEST_GUILESS_MAIN(TestHostInfo)
#include "tst_hostinfo.moc"
