// A bf16-mixed or 16-mixed run on a CPU without that arithmetic says once, in its run log, that
// the precision is emulated and slower than 32. oneDNN is capped at AVX2 (no bf16) for the whole
// process, so the test holds on any x86 host.
#include "backend/cpu/cpuisa.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace tb;

namespace {

RunConfig tinyRun(const QString& dir, const QString& precision) {
    RunConfig c = test::shapesRunConfig(dir.toStdString(), "mlp");
    c.set("data.synthetic_samples", "64");
    c.set("max_epochs", "1");
    c.set("threads", "1");
    c.set("precision", precision.toStdString());
    return c;
}

long countStartingWith(const std::vector<std::string>& logs, const std::string& prefix) {
    return std::count_if(logs.begin(), logs.end(),
                         [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

} // namespace

class TestTrainerLowPrecision : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // Read by oneDNN when it is first asked for its ISA, which nothing has done yet.
        qputenv("ONEDNN_MAX_CPU_ISA", "AVX2");
        QVERIFY2(!cpuLowPrecisionSupport().bf16Native, cpuLowPrecisionSupport().isa.c_str());
    }

    void emulatedPrecisionIsLoggedOnce_data() {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<int>("bf16Count");
        QTest::addColumn<int>("f16Count");
        QTest::newRow("bf16-mixed") << "bf16-mixed" << 1 << 0;
        QTest::newRow("16-mixed") << "16-mixed" << 0 << 1;
        QTest::newRow("32") << "32" << 0 << 0;
    }
    void emulatedPrecisionIsLoggedOnce() {
        QFETCH(QString, precision);
        QFETCH(int, bf16Count);
        QFETCH(int, f16Count);
        QTemporaryDir d;
        test::RunLog log;
        const auto f = Trainer(tinyRun(d.path(), precision), log).run();
        QVERIFY2(f.error.empty(), f.error.c_str());
        QCOMPARE(countStartingWith(log.logs, "bf16 is emulated on this CPU: expect it slower than "
                                             "32"),
                 long{bf16Count});
        QCOMPARE(
            countStartingWith(log.logs, "f16 is emulated on this CPU: expect it slower than 32"),
            long{f16Count});
    }
};

QTEST_GUILESS_MAIN(TestTrainerLowPrecision)
#include "tst_trainer_lowprecision.moc"
