// bf16 / f16 honesty on the CPU: what oneDNN reports, and the run-log line for an emulated
// precision.
#include "backend/cpu/cpuisa.h"

#include <QtTest>

using namespace tb;

class TestCpuIsa : public QObject {
    Q_OBJECT
private slots:
    void reportsTheEffectiveIsa() {
        const CpuLowPrecisionSupport s = cpuLowPrecisionSupport();
        QVERIFY(!s.isa.empty());
        QVERIFY2(s.isa != "other", s.isa.c_str());
        // bf16 arithmetic is the avx512_core_bf16 extension, which AMX contains.
        QCOMPARE(s.bf16Native, s.isa == "avx512_core_bf16" || s.isa == "avx512_core_amx");
    }

    void noteOnlyForAnEmulatedPrecision_data() {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<bool>("bf16Native");
        QTest::addColumn<bool>("f16Native");
        QTest::addColumn<QString>("note"); // empty: none
        const QString bf16 = "bf16 is emulated on this CPU: expect it slower than 32";
        const QString f16 = "f16 is emulated on this CPU: expect it slower than 32";
        QTest::newRow("32, nothing native") << "32" << false << false << QString();
        QTest::newRow("bf16, emulated") << "bf16-mixed" << false << true << bf16;
        QTest::newRow("bf16, native") << "bf16-mixed" << true << false << QString();
        QTest::newRow("16, emulated") << "16-mixed" << true << false << f16;
        QTest::newRow("16, native") << "16-mixed" << false << true << QString();
    }
    void noteOnlyForAnEmulatedPrecision() {
        QFETCH(QString, precision);
        QFETCH(bool, bf16Native);
        QFETCH(bool, f16Native);
        QFETCH(QString, note);
        const auto got =
            emulatedPrecisionNote(precision.toStdString(), {"avx2", bf16Native, f16Native});
        QCOMPARE(got.has_value(), !note.isEmpty());
        if (got) {
            QVERIFY2(QString::fromStdString(*got).startsWith(note), got->c_str());
            QVERIFY2(got->find("ISA here is avx2") != std::string::npos, got->c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuIsa)
#include "tst_cpuisa.moc"
