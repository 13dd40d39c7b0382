// Advisor rules fire on the patterns they describe, once each, and stay quiet otherwise.
#include "train/advisor.h"

#include <QtTest>

#include <cmath>

using namespace tb;

namespace {
StepEvent step(int64_t n, double stepMs, double waitMs, double loss = 1.0, bool skipped = false) {
    StepEvent e;
    e.step = n;
    e.stepMs = stepMs;
    e.dataWaitMs = waitMs;
    e.forwardMs = (stepMs - waitMs) * 0.3;
    e.backwardMs = (stepMs - waitMs) * 0.6;
    e.loss = loss;
    e.samplesPerSec = stepMs > 0 ? 64.0 / stepMs * 1000.0 : 0.0;
    e.skipped = skipped;
    return e;
}

SystemSample gpuSample(double util, double memShare) {
    SystemSample s;
    GpuSample g;
    g.index = 0;
    g.utilPercent = util;
    g.memTotalBytes = uint64_t(80) << 30;
    g.memUsedBytes = static_cast<uint64_t>(memShare * static_cast<double>(*g.memTotalBytes));
    s.gpus.push_back(g);
    return s;
}

SystemSample hostSample(double ramShare) {
    SystemSample s;
    s.host.ramTotalBytes = uint64_t(16) << 30;
    s.host.ramUsedBytes =
        static_cast<uint64_t>(ramShare * static_cast<double>(*s.host.ramTotalBytes));
    return s;
}

Advisor advisor(int workers, const char* precision, const char* device, bool gpuUsable = false,
                const char* gpuName = "") {
    return Advisor(AdvisorContext{workers, precision, device, gpuUsable, gpuName});
}

QStringList rulesOf(const std::vector<AdviceEvent>& advice) {
    QStringList rules;
    for (const AdviceEvent& a : advice)
        rules << QString::fromStdString(a.rule);
    return rules;
}

// Feeds steps [from, to] and returns every advice given, in order.
template <typename MakeStep>
std::vector<AdviceEvent> feed(Advisor& a, int from, int to, MakeStep make,
                              const std::optional<SystemSample>& sample = std::nullopt) {
    std::vector<AdviceEvent> all;
    for (int i = from; i <= to; ++i)
        for (AdviceEvent& e : a.onStep(make(i), sample))
            all.push_back(std::move(e));
    return all;
}
} // namespace

class TestAdvisor : public QObject {
    Q_OBJECT
private slots:
    void dataStarvedAfterThreeIntervals() {
        Advisor a = advisor(0, "32", "cpu");
        QVERIFY(a.onStep(step(1, 10, 5)).empty());
        QVERIFY(a.onStep(step(2, 10, 5)).empty());
        const auto advice = a.onStep(step(3, 10, 5));
        QCOMPARE(rulesOf(advice), QStringList{"data-starved"});
        QVERIFY(QString::fromStdString(advice[0].message).contains("num_workers"));
        QVERIFY(QString::fromStdString(advice[0].message).contains("50%"));
        QCOMPARE(advice[0].step, 3);
        QVERIFY(feed(a, 4, 40, [](int i) { return step(i, 10, 5); }).empty()); // once per run
    }

    // Noise in speed, a GPU busy and half full, a loss that falls: no rule has cause to fire.
    void healthyRunStaysQuiet() {
        Advisor a = advisor(2, "32", "cuda:0", true, "H200");
        const auto all = feed(
            a, 1, 200,
            [](int i) {
                StepEvent e = step(i, 10.0 + (i % 5) * 0.8, i % 4 == 0 ? 3.0 : 0.1,
                                   2.0 / (1.0 + 0.05 * i) + (i % 3) * 0.05);
                return e;
            },
            gpuSample(92, 0.5));
        QVERIFY2(all.empty(), qPrintable(rulesOf(all).join(", ")));
    }

    void nanLoss() {
        Advisor a = advisor(2, "32", "cpu");
        QCOMPARE(rulesOf(a.onStep(step(1, 10, 0, std::nan("")))), QStringList{"nan-loss"});
        QVERIFY(a.onStep(step(2, 10, 0, std::nan(""))).empty());
    }

    void persistentFp16Overflow() {
        Advisor a = advisor(2, "16-mixed", "cuda:0");
        const auto all = feed(a, 1, 20, [](int i) { return step(i, 10, 0, 1.0, true); });
        QCOMPARE(rulesOf(all), QStringList{"fp16-overflow"});
        QCOMPARE(all[0].step, 5);
        // A few skips while the scale settles are the GradScaler working, not advice.
        Advisor settling = advisor(2, "16-mixed", "cuda:0");
        QVERIFY(
            feed(settling, 1, 20, [](int i) { return step(i, 10, 0, 1.0, i % 4 != 0); }).empty());
    }

    void idleGpu() {
        Advisor a = advisor(4, "32", "cuda:0");
        const auto all = feed(
            a, 1, 10, [](int i) { return step(i, 10, 0.2); }, gpuSample(31, 0.2));
        QCOMPARE(rulesOf(all), QStringList{"low-gpu-util"});
        QCOMPARE(all[0].step, 3);
        QVERIFY(QString::fromStdString(all[0].message).contains("31%"));
        QCOMPARE(conceptCardOfRule("low-gpu-util"), std::string("data-starved"));
        // Another GPU's idleness is not this run's.
        Advisor other = advisor(4, "32", "cuda:1");
        QVERIFY(feed(
                    other, 1, 10, [](int i) { return step(i, 10, 0.2); }, gpuSample(31, 0.2))
                    .empty());
    }

    void memoryNearlyFull() {
        Advisor gpu = advisor(2, "32", "cuda:0");
        const auto onGpu = feed(
            gpu, 1, 5, [](int i) { return step(i, 10, 0.1); }, gpuSample(95, 0.93));
        QCOMPARE(rulesOf(onGpu), QStringList{"memory-full"});
        QVERIFY(QString::fromStdString(onGpu[0].message).contains("cuda:0 memory is 93% full"));
        QVERIFY(QString::fromStdString(onGpu[0].message).contains("accumulate_grad_batches"));

        Advisor cpu = advisor(2, "32", "cpu");
        QCOMPARE(rulesOf(feed(
                     cpu, 1, 5, [](int i) { return step(i, 10, 0.1); }, hostSample(0.95))),
                 QStringList{"memory-full"});
        Advisor roomy = advisor(2, "32", "cpu");
        QVERIFY(feed(
                    roomy, 1, 5, [](int i) { return step(i, 10, 0.1); }, hostSample(0.6))
                    .empty());
    }

    void divergingLoss() {
        Advisor a = advisor(2, "32", "cpu");
        // Falls from 2.3 to 0.5 over 20 intervals, then climbs to 6.
        const auto all = feed(a, 1, 60, [](int i) {
            const double loss = i <= 20 ? 2.3 - 0.09 * i : 0.5 + 0.15 * (i - 20);
            return step(i, 10, 0.1, loss);
        });
        QCOMPARE(rulesOf(all), QStringList{"diverging"});
        QVERIFY2(all[0].step > 26 && all[0].step < 45, qPrintable(QString::number(all[0].step)));
        QVERIFY(QString::fromStdString(all[0].message).contains("lower lr", Qt::CaseInsensitive));
        // A loss that only wobbles around its level is not diverging.
        Advisor wobbly = advisor(2, "32", "cpu");
        QVERIFY(feed(wobbly, 1, 60, [](int i) {
                    return step(i, 10, 0.1, 1.0 + (i % 2) * 0.6);
                }).empty());
    }

    void cpuWhileAGpuIsUsable() {
        Advisor a = advisor(2, "32", "cpu", true, "NVIDIA H200");
        const auto first = a.onStep(step(1, 10, 0.1));
        QCOMPARE(rulesOf(first), QStringList{"cpu-with-gpu"});
        QVERIFY(QString::fromStdString(first[0].message).contains("NVIDIA H200"));
        QVERIFY(a.onStep(step(2, 10, 0.1)).empty());
        Advisor noGpu = advisor(2, "32", "cpu", false, "");
        QVERIFY(noGpu.onStep(step(1, 10, 0.1)).empty());
    }

    // 20 intervals at 10 ms a step, then backward grows from 5.4 to 14 ms and stays there.
    void lastingThroughputDropNamesThePart() {
        Advisor a = advisor(2, "32", "cpu");
        const auto slowAfter = [](int from) {
            return [from](int i) {
                StepEvent e = step(i, 10, 0.1);
                if (i > from) {
                    e.backwardMs += 8.6;
                    e.stepMs += 8.6;
                    e.samplesPerSec = 64.0 / e.stepMs * 1000.0;
                }
                return e;
            };
        };
        const auto all = feed(a, 1, 40, slowAfter(20));
        QCOMPARE(rulesOf(all), QStringList{"throughput-drop"});
        const QString message = QString::fromStdString(all[0].message);
        QVERIFY2(message.contains("throughput fell 46%"), qPrintable(message));
        QVERIFY2(message.contains("backward grew most, 5.94 to 14.54 ms"), qPrintable(message));
        QVERIFY(message.contains("flush_denormals"));
        QCOMPARE(conceptCardOfRule("throughput-drop"), std::string("throughput-drop"));

        // Slow for eight intervals, then back: a pause in the machine, not a lasting drop.
        Advisor passing = advisor(2, "32", "cpu");
        QVERIFY(feed(passing, 1, 60, [&](int i) {
                    return i > 20 && i <= 28 ? slowAfter(0)(i) : step(i, 10, 0.1);
                }).empty());

        // One slow interval (an epoch's first, a busy moment) is not a lasting drop.
        Advisor blip = advisor(2, "32", "cpu");
        QVERIFY(feed(blip, 1, 40, [](int i) {
                    StepEvent e = step(i, 10, 0.1);
                    if (i % 10 == 0) {
                        e.stepMs = 40;
                        e.dataWaitMs = 30;
                        e.samplesPerSec = 1600;
                    }
                    return e;
                }).empty());
    }
};

QTEST_GUILESS_MAIN(TestAdvisor)
#include "tst_advisor.moc"
