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
    e.loss = loss;
    e.skipped = skipped;
    return e;
}
} // namespace

class TestAdvisor : public QObject {
    Q_OBJECT
private slots:
    void dataStarvedAfterThreeIntervals() {
        Advisor a({0, "32", "cpu"});
        QVERIFY(!a.onStep(step(1, 10, 5)));
        QVERIFY(!a.onStep(step(2, 10, 5)));
        const auto advice = a.onStep(step(3, 10, 5));
        QVERIFY(advice);
        QCOMPARE(advice->rule, std::string("data-starved"));
        QVERIFY(QString::fromStdString(advice->message).contains("num_workers"));
        QVERIFY(!a.onStep(step(4, 10, 5))); // once per run
    }
    void healthyLoopStaysQuiet() {
        Advisor a({2, "32", "cuda:0"});
        for (int i = 1; i < 50; ++i)
            QVERIFY(!a.onStep(step(i, 10, i % 4 == 0 ? 5 : 0.1)));
    }
    void nanLoss() {
        Advisor a({2, "32", "cpu"});
        const auto advice = a.onStep(step(1, 10, 0, std::nan("")));
        QVERIFY(advice);
        QCOMPARE(advice->rule, std::string("nan-loss"));
    }
    void persistentFp16Overflow() {
        Advisor a({2, "16-mixed", "cuda:0"});
        std::optional<AdviceEvent> advice;
        for (int i = 1; i <= 5; ++i)
            advice = a.onStep(step(i, 10, 0, 1.0, true));
        QVERIFY(advice);
        QCOMPARE(advice->rule, std::string("fp16-overflow"));
    }
};

QTEST_GUILESS_MAIN(TestAdvisor)
#include "tst_advisor.moc"
