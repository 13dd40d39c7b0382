// The CPU's measured f32 peak: a plausible figure, measured once per (CPU, ISA, threads) and
// read back from the cache after that.
#include "backend/cpu/cpupeak.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace tb;

class TestCpuPeak : public QObject {
    Q_OBJECT
private slots:
    // Any x86 core of the last fifteen years does more than 1 GFLOP/s, and none does 10 TFLOP/s.
    void measuresAPlausiblePeak() {
        const double gflops = measureCpuPeakGflops(1);
        QVERIFY2(gflops > 1.0 && gflops < 10000.0, qPrintable(QString::number(gflops)));
    }

    void secondCallReadsTheCache() {
        QTemporaryDir d;
        const std::string cache = (d.path() + "/sub/cpu-peak.json").toStdString();
        const CpuPeak first = cachedCpuPeak(1, "Test CPU", cache);
        QVERIFY(first.measured);
        QVERIFY(first.gflops > 0.0);
        QVERIFY(QFile::exists(QString::fromStdString(cache)));
        const CpuPeak second = cachedCpuPeak(1, "Test CPU", cache);
        QVERIFY(!second.measured);
        QCOMPARE(second.gflops, first.gflops);
        // Another CPU model or thread count is another entry, measured on its own.
        QVERIFY(cachedCpuPeak(1, "Other CPU", cache).measured);
        QVERIFY(cachedCpuPeak(2, "Test CPU", cache).measured);
        QVERIFY(!cachedCpuPeak(2, "Test CPU", cache).measured);
    }

    // A cache that is not JSON (a crash mid-write by an older build, a user's edit) is measured
    // around and replaced, never an error.
    void brokenCacheIsMeasuredAround() {
        QTemporaryDir d;
        const QString path = d.path() + "/cpu-peak.json";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"Test CPU / avx2 / 1 threads\": ");
        f.close();
        const CpuPeak peak = cachedCpuPeak(1, "Test CPU", path.toStdString());
        QVERIFY(peak.measured);
        QVERIFY(!cachedCpuPeak(1, "Test CPU", path.toStdString()).measured);
    }

    // A FIFO where the cache should be is not opened (it would block until a writer came),
    // and JSON nested past the parser's depth bound is no cache: both are measured around.
    void fifoOrDeepJsonIsMeasuredAround() {
        QTemporaryDir d;
        const std::string fifo = (d.path() + "/fifo.json").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QVERIFY(cachedCpuPeak(1, "Test CPU", fifo).measured);
        const QString deep = d.path() + "/deep.json";
        QFile f(deep);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(100000, '['));
        f.close();
        QVERIFY(cachedCpuPeak(1, "Test CPU", deep.toStdString()).measured);
        QVERIFY(!cachedCpuPeak(1, "Test CPU", deep.toStdString()).measured); // replaced
    }
};

QTEST_GUILESS_MAIN(TestCpuPeak)
#include "tst_cpupeak.moc"
