// trainbench-cli and the hardware: doctor's report of native or emulated bf16 / f16.
#include "clirun.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tb::test;

namespace {

CliResult runCliWith(const QStringList& args, const QString& home, const QString& envKey = {},
                     const QString& envValue = {}) {
    QProcess p;
    prepareCli(p, home);
    if (!envKey.isEmpty()) {
        QProcessEnvironment env = p.processEnvironment();
        env.insert(envKey, envValue);
        p.setProcessEnvironment(env);
    }
    p.start(TB_CLI_PATH, args);
    return finishCli(p, 120000);
}

} // namespace

class TestCliHardware : public QObject {
    Q_OBJECT
private slots:
    void doctorReportsLowPrecisionCompute_data() {
        QTest::addColumn<QString>("maxIsa");
        QTest::newRow("this CPU") << QString();
        QTest::newRow("capped at AVX2") << QString("AVX2");
    }
    void doctorReportsLowPrecisionCompute() {
        QFETCH(QString, maxIsa);
        QTemporaryDir home;
        const CliResult r = runCliWith({"doctor", "--json"}, home.path(),
                                       maxIsa.isEmpty() ? QString() : "ONEDNN_MAX_CPU_ISA", maxIsa);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject compute = QJsonDocument::fromJson(r.out.toUtf8())
                                        .object()["cpu"]
                                        .toObject()["compute"]
                                        .toObject();
        const QString bf16 = compute["bf16"].toString(), f16 = compute["f16"].toString();
        QVERIFY2(bf16 == "native" || bf16 == "emulated", qPrintable(r.out));
        QVERIFY2(f16 == "native" || f16 == "emulated", qPrintable(r.out));
        if (!maxIsa.isEmpty()) {
            QCOMPARE(compute["isa"].toString(), QString("avx2"));
            QCOMPARE(bf16, QString("emulated"));
            QCOMPARE(f16, QString("emulated"));
        }
        const CliResult text = runCliWith(
            {"doctor"}, home.path(), maxIsa.isEmpty() ? QString() : "ONEDNN_MAX_CPU_ISA", maxIsa);
        QVERIFY2(text.out.contains(QRegularExpression("bf16 / f16 +" + bf16 + " / " + f16)),
                 qPrintable(text.out));
    }
};

QTEST_GUILESS_MAIN(TestCliHardware)
#include "tst_cli_hardware.moc"
