// The CPU's measured f32 peak: a plausible figure, measured once per (CPU, ISA, threads) and
// read back from the cache after that, measured again when the cached one is a day old or
// below what a run achieved, and the best figure kept.
#include "backend/cpu/cpuisa.h"
#include "backend/cpu/cpupeak.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace tb;

namespace {

// The key cachedCpuPeak files a 1-thread "Test CPU" under, read from the cache it wrote.
QString onlyKey(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    return o.size() == 1 ? o.keys().first() : QString();
}

void writeEntry(const QString& path, const QString& key, double gflops, double ageSeconds) {
    const double at = static_cast<double>(QDateTime::currentSecsSinceEpoch()) - ageSeconds;
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QJsonDocument(QJsonObject{{key, QJsonObject{{"gflops", gflops}, {"measured_at", at}}}})
                .toJson());
}

} // namespace

class TestCpuPeak : public QObject {
    Q_OBJECT
private slots:
    // Any x86 core of the last fifteen years does more than 1 GFLOP/s, and none does 10 TFLOP/s.
    void measuresAPlausiblePeak() {
        const double gflops = measureCpuPeakGflops(1);
        QVERIFY2(gflops > 1.0 && gflops < 10000.0, qPrintable(QString::number(gflops)));
    }

    // Where the CPU computes bf16 natively its matmul has its own roof, cached apart from f32's.
    void measuresTheBf16PeakApart() {
        const CpuLowPrecisionSupport support = cpuLowPrecisionSupport();
        if (!support.bf16Native)
            QSKIP(qPrintable("oneDNN runs no native bf16 here (" +
                             QString::fromStdString(support.isa) + "): the f32 roof applies"));
        const double gflops = measureCpuBf16PeakGflops(1);
        qInfo("bf16 %.1f GFLOP/s, f32 %.1f GFLOP/s on one thread, %s", gflops,
              measureCpuPeakGflops(1), support.isa.c_str());
        QVERIFY2(gflops > 1.0 && gflops < 10000.0, qPrintable(QString::number(gflops)));
        QTemporaryDir d;
        const std::string cache = (d.path() + "/cpu-peak.json").toStdString();
        QVERIFY(cachedCpuPeak(1, "Test CPU", cache).measured);
        QVERIFY2(cachedCpuBf16Peak(1, "Test CPU", cache).measured, "bf16 has an entry of its own");
        QVERIFY(!cachedCpuBf16Peak(1, "Test CPU", cache).measured);
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

    // A day-old entry is measured again, and a figure that was lower than what a run achieved
    // (measured while the machine was busy) is replaced; a higher one is kept, being the best.
    void staleOrLowPeakIsMeasuredAgain() {
        QTemporaryDir d;
        const QString path = d.path() + "/cpu-peak.json";
        const double real = cachedCpuPeak(1, "Test CPU", path.toStdString()).gflops;
        const QString key = onlyKey(path);
        QVERIFY(!key.isEmpty());

        writeEntry(path, key, 0.5, 3600.0); // fresh, but half a GFLOP/s
        CpuPeak peak = cachedCpuPeak(1, "Test CPU", path.toStdString());
        QVERIFY2(!peak.measured, "an hour-old entry is trusted when nothing contradicts it");
        QCOMPARE(peak.gflops, 0.5);
        peak = cachedCpuPeak(1, "Test CPU", path.toStdString(), 1.0); // a run did 1 GFLOP/s
        QVERIFY(peak.measured);
        QVERIFY2(peak.gflops > 1.0, qPrintable(QString::number(peak.gflops)));
        QVERIFY(!cachedCpuPeak(1, "Test CPU", path.toStdString(), 1.0).measured);

        writeEntry(path, key, 0.5, 2 * kCpuPeakMaxAgeSeconds); // two days old
        peak = cachedCpuPeak(1, "Test CPU", path.toStdString());
        QVERIFY(peak.measured);
        QVERIFY(peak.gflops > 1.0);

        writeEntry(path, key, 100 * real, 2 * kCpuPeakMaxAgeSeconds); // old, and the best seen
        peak = cachedCpuPeak(1, "Test CPU", path.toStdString());
        QVERIFY(peak.measured);
        QCOMPARE(peak.gflops, 100 * real);
        QVERIFY(!cachedCpuPeak(1, "Test CPU", path.toStdString()).measured); // dated now
    }

    // The format of earlier versions (a bare number, never dated) is measured again.
    void undatedEntryIsMeasuredAgain() {
        QTemporaryDir d;
        const QString path = d.path() + "/cpu-peak.json";
        cachedCpuPeak(1, "Test CPU", path.toStdString());
        const QString key = onlyKey(path);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(QJsonObject{{key, 173.0}}).toJson());
        f.close();
        QVERIFY(cachedCpuPeak(1, "Test CPU", path.toStdString()).measured);
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
