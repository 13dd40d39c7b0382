// Learning-rate schedules at known steps.
#include "core/errors.h"
#include "optim/lrschedule.h"

#include <QtTest>

#include <cmath>

using namespace tb;

class TestLrSchedule : public QObject {
    Q_OBJECT
private slots:
    void warmupThenConstant() {
        ScheduleConfig c;
        c.name = "constant";
        c.warmupSteps = 4;
        LrSchedule s(c, 0.4f, 100);
        QCOMPARE(s.lr(0), 0.1f);
        QCOMPARE(s.lr(3), 0.4f);
        QCOMPARE(s.lr(50), 0.4f);
        QCOMPARE(s.warmupFraction(0), 0.25f);
        QCOMPARE(s.warmupFraction(3), 1.0f);
        QCOMPARE(s.warmupFraction(50), 1.0f);
    }
    void stepAndMultistep() {
        ScheduleConfig c;
        c.name = "step";
        c.stepSize = 10;
        LrSchedule s(c, 1.0f, 100);
        QCOMPARE(s.lr(9), 1.0f);
        QVERIFY(std::fabs(s.lr(10) - 0.1f) < 1e-7f);
        QVERIFY(std::fabs(s.lr(25) - 0.01f) < 1e-8f);
        c.name = "multistep";
        c.milestones = {5, 8};
        LrSchedule m(c, 1.0f, 100);
        QCOMPARE(m.lr(4), 1.0f);
        QVERIFY(std::fabs(m.lr(5) - 0.1f) < 1e-7f);
        QVERIFY(std::fabs(m.lr(9) - 0.01f) < 1e-8f);
    }
    void cosine() {
        ScheduleConfig c;
        c.name = "cosine";
        LrSchedule s(c, 1.0f, 100);
        QCOMPARE(s.lr(0), 1.0f);
        QVERIFY(std::fabs(s.lr(50) - 0.5f) < 1e-6f);
        QVERIFY(s.lr(100) < 1e-6f);
    }
    // PolynomialLR(power=0.9) over the steps after the warm-up, down to min_lr.
    void poly() {
        ScheduleConfig c;
        c.name = "poly";
        LrSchedule s(c, 1.0f, 100);
        QCOMPARE(s.lr(0), 1.0f);
        QVERIFY(std::fabs(s.lr(50) - std::pow(0.5f, 0.9f)) < 1e-6f);
        QVERIFY(s.lr(100) < 1e-6f);
        c.minLr = 0.1f;
        c.warmupSteps = 10;
        LrSchedule w(c, 1.0f, 110);
        QVERIFY(std::fabs(w.lr(4) - 0.5f) < 1e-6f);
        QVERIFY(std::fabs(w.lr(60) - (0.1f + 0.9f * std::pow(0.5f, 0.9f))) < 1e-6f);
        QVERIFY(std::fabs(w.lr(110) - 0.1f) < 1e-6f);
    }
    void oneCycle() {
        ScheduleConfig c;
        c.name = "onecycle";
        LrSchedule s(c, 1.0f, 100);
        QVERIFY(std::fabs(s.lr(0) - 1.0f / 25.0f) < 1e-6f);
        QVERIFY(std::fabs(s.lr(29) - 1.0f) < 1e-6f); // the peak at pct_start * total - 1
        QVERIFY(s.lr(99) < 1e-5f);
    }
    // The LR range test: 1e-6 at the first step, 1 at the last, a decade every 20 steps.
    void exponential() {
        ScheduleConfig c;
        c.name = "exponential";
        c.minLr = 1e-6f;
        LrSchedule s(c, 1.0f, 121);
        QVERIFY(std::fabs(s.lr(0) - 1e-6f) < 1e-12f);
        QVERIFY(std::fabs(s.lr(20) / 1e-5f - 1.0f) < 1e-4f);
        QVERIFY(std::fabs(s.lr(120) - 1.0f) < 1e-5f);
        c.minLr = 0.0f; // a log sweep cannot start at 0
        QVERIFY_THROWS_EXCEPTION(ConfigError, LrSchedule(c, 1.0f, 10));
    }
    void rejectsUnknown() {
        ScheduleConfig c;
        c.name = "triangular";
        QVERIFY_THROWS_EXCEPTION(ConfigError, LrSchedule(c, 1.0f, 10));
    }
};

QTEST_GUILESS_MAIN(TestLrSchedule)
#include "tst_lrschedule.moc"
