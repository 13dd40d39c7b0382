// trainbench-cli and the hardware: bench's FLOP rate against the CPU's measured peak, and
// doctor's report of native or emulated bf16 / f16.
#include "clirun.h"
#include "support/buildtree.h"

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
    p.start(cliPath(), args);
    return finishCli(p, 120000);
}

QJsonObject benchMlp(const QString& home, const QString& hidden, const QString& threads = "1") {
    const CliResult r = runCli({"bench", "--model", "mlp", "--hidden", hidden, "--batch", "32",
                                "--steps", "5", "--warmup", "1", "--threads", threads, "--json"},
                               home);
    if (r.code != 0)
        qWarning("%s", qPrintable(r.err));
    return lastJsonLine(r.out);
}

} // namespace

class TestCliHardware : public QObject {
    Q_OBJECT
private slots:
    void benchReportsFlopsAgainstThePeak() {
        QTemporaryDir home;
        const QJsonObject narrow = benchMlp(home.path(), "256");
        for (const char* key : {"step_gflop", "achieved_gflops", "cpu_peak_gflops"})
            QVERIFY2(narrow[key].toDouble() > 0.0, key);
        const double fraction = narrow["cpu_peak_fraction"].toDouble();
        QVERIFY2(fraction > 0.0 && fraction <= 1.5, qPrintable(QString::number(fraction)));
        QCOMPARE(narrow["cpu_peak_source"].toString(), QString("measured"));

        // The mlp's FLOPs grow with its hidden width (784x256 + 256x10 against 784x512 +
        // 512x10, plus elementwise work per unit): twice the width, twice the FLOPs per step.
        const QJsonObject wide = benchMlp(home.path(), "512");
        const double ratio = wide["step_gflop"].toDouble() / narrow["step_gflop"].toDouble();
        QVERIFY2(ratio > 1.95 && ratio < 2.05, qPrintable(QString::number(ratio)));
        // Same CPU, same threads: the peak comes from the cache, unchanged.
        QCOMPARE(wide["cpu_peak_source"].toString(), QString("cached"));
        QCOMPARE(wide["cpu_peak_gflops"].toDouble(), narrow["cpu_peak_gflops"].toDouble());
        QVERIFY(QFile::exists(home.path() + "/TrainBench/cpu-peak.json"));
        // Another thread count is another peak.
        QCOMPARE(benchMlp(home.path(), "256", "2")["cpu_peak_source"].toString(),
                 QString("measured"));
    }

    void benchTextShowsTheRate() {
        QTemporaryDir home;
        const CliResult r = runCli({"bench", "--model", "mlp", "--batch", "32", "--steps", "3",
                                    "--warmup", "1", "--threads", "1"},
                                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QRegularExpression(
                     "GFLOP per step \\(forward x 3\\), [0-9.]+ GFLOP/s achieved, [0-9]+% of the "
                     "measured f32 peak [0-9.]+ GFLOP/s \\(measured now\\)")),
                 qPrintable(r.out));
    }

    // Reorders are counted per step: the same model gives the same count every time, a model
    // without convolutions (plain-layout matmuls only) none.
    void benchCountsReordersPerStep() {
        QTemporaryDir home;
        const auto reorders = [&](const QString& model) {
            const CliResult r = runCli({"bench", "--model", model, "--batch", "16", "--steps", "3",
                                        "--warmup", "1", "--threads", "1", "--json"},
                                       home.path());
            if (r.code != 0)
                qWarning("%s", qPrintable(r.err));
            return lastJsonLine(r.out)["reorders_per_step"].toInteger(-1);
        };
        const qint64 cnn = reorders("fmnist-cnn");
        QVERIFY2(cnn >= 0, qPrintable(QString::number(cnn)));
        QCOMPARE(reorders("fmnist-cnn"), cnn);
        QCOMPARE(reorders("mlp"), qint64{0});
    }

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
