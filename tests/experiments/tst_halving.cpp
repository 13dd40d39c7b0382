// Successive halving: ASHA's rule at a rung (the best 1/reduction go on, the best always, a
// diverged trial never), a training-time metric after some epochs, and the trials a sweep
// stops on recorded curves whose outcome is worked out by hand below.
#include "experiments/halving.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace tb;

namespace {

HalvingBudget budget(bool epochs, int64_t min, int64_t max, int reduction) {
    HalvingBudget b;
    b.epochs = epochs;
    b.min = min;
    b.max = max;
    b.reduction = reduction;
    return b;
}

// Feeds one trial's epochs to a judge until it is stopped (as the trainer stops after a stop
// request); returns where halving stopped it, if it did.
std::optional<int64_t> trainOnCurve(HalvingLadder& ladder, const std::vector<double>& valAcc) {
    std::stop_source stop;
    HalvingJudge judge(ladder, "best_val_acc", stop);
    for (std::size_t i = 0; i < valAcc.size() && !stop.stop_requested(); ++i) {
        EpochEvent e;
        e.epoch = static_cast<int64_t>(i) + 1;
        e.valAcc = valAcc[i];
        judge.onEvent(e);
    }
    return judge.haltedAt();
}

} // namespace

class TestHalving : public QObject {
    Q_OBJECT

private slots:
    void rungsGrowByTheReduction() {
        QCOMPARE(budget(true, 1, 27, 3).rungs(), (std::vector<int64_t>{1, 3, 9}));
        QCOMPARE(budget(true, 1, 9, 3).rungs(), (std::vector<int64_t>{1, 3}));
        QCOMPARE(budget(false, 100, 1000, 2).rungs(), (std::vector<int64_t>{100, 200, 400, 800}));
    }

    void theBestFractionGoesOn() {
        QVERIFY(promotedAtRung(0.5, {0.5}, 3, true)); // alone at a rung: the best so far
        QVERIFY(!promotedAtRung(0.4, {0.5, 0.4}, 3, true));
        QVERIFY(promotedAtRung(0.6, {0.5, 0.6}, 3, true));
        // Six measured, reduction 3: the best two go on.
        const std::vector<double> six = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
        QVERIFY(promotedAtRung(0.6, six, 3, true));
        QVERIFY(promotedAtRung(0.5, six, 3, true));
        QVERIFY(!promotedAtRung(0.4, six, 3, true));
        QVERIFY(promotedAtRung(0.1, six, 3, false)); // losses: the lowest go on
        QVERIFY(promotedAtRung(0.2, six, 3, false));
        QVERIFY(!promotedAtRung(0.3, six, 3, false));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(!promotedAtRung(nan, {nan}, 3, false)); // a diverged trial stops
        QVERIFY(promotedAtRung(2.0, {nan, 2.0}, 2, false));
    }

    void metricsAfterEpochs() {
        std::vector<EpochEvent> epochs(3);
        const double acc[] = {0.5, 0.7, 0.6}, loss[] = {1.0, 0.6, 0.8};
        for (int i = 0; i < 3; ++i) {
            epochs[i].valAcc = acc[i];
            epochs[i].valLoss = loss[i];
            epochs[i].trainLoss = loss[i] / 2;
        }
        QCOMPARE(*metricAfterEpochs("best_val_acc", epochs), 0.7);
        QCOMPARE(*metricAfterEpochs("final_val_acc", epochs), 0.6);
        QCOMPARE(*metricAfterEpochs("final_val_loss", epochs), 0.8);
        QCOMPARE(*metricAfterEpochs("final_train_loss", epochs), 0.4);
        QVERIFY(!metricAfterEpochs("samples_per_s", epochs));
        QVERIFY(!metricAfterEpochs("best_val_acc", {}));
        // mAP50-95 is a detector's validation score (its valAcc); no other model has one.
        QVERIFY(!metricAfterEpochs("best_map50_95", epochs));
        for (EpochEvent& e : epochs)
            e.validation.detection = DetectionReport{};
        QCOMPARE(*metricAfterEpochs("best_map50_95", epochs), 0.7);
    }

    // Six trials in order, budget 1..9 epochs, reduction 3: rungs at epochs 1 and 3.
    //   t0 0.50 | alone at rung 1: on; 0.70 alone at rung 3: on, completes
    //   t1 0.40 | 2 at rung 1, the best 1 (0.50) goes on: stopped at 1
    //   t2 0.55 | 3 at rung 1, best 1 is itself: on; 0.60 at rung 3 behind 0.70: stopped at 3
    //   t3 0.52 | 4 at rung 1, best 1 is 0.55: stopped at 1
    //   t4 0.53 | 5 at rung 1: stopped at 1
    //   t5 0.60 | 6 at rung 1, best 2 (0.60, 0.55): on; 0.80 best at rung 3: completes
    void stopsTheTrialsTheRuleSays() {
        HalvingLadder ladder(budget(true, 1, 9, 3), /*maximize=*/true);
        const std::vector<std::vector<double>> curves = {
            {0.50, 0.60, 0.70, 0.72, 0.73, 0.74, 0.75, 0.76, 0.77},
            {0.40, 0.80, 0.90, 0.95, 0.96, 0.97, 0.98, 0.99, 0.99}, // a late bloomer: halved
            {0.55, 0.58, 0.60, 0.61, 0.62, 0.63, 0.64, 0.65, 0.66},
            {0.52, 0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59, 0.60},
            {0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59, 0.60, 0.61},
            {0.60, 0.65, 0.80, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86},
        };
        std::vector<std::optional<int64_t>> halted;
        for (const auto& curve : curves)
            halted.push_back(trainOnCurve(ladder, curve));
        const std::vector<std::optional<int64_t>> expected = {std::nullopt, 1, 3, 1, 1,
                                                              std::nullopt};
        QCOMPARE(halted, expected);
        QCOMPARE(ladder.measuredAt(0), std::size_t{6});
        QCOMPARE(ladder.measuredAt(1), std::size_t{3});
    }

    // A budget in steps: the logging interval that reaches a rung measures it, by train loss.
    void stepsAreJudgedByTheIntervalThatReachesTheRung() {
        HalvingLadder ladder(budget(false, 25, 100, 2), /*maximize=*/false);
        ladder.record(0, 0.5); // an earlier trial measured 0.5 at step 25
        std::stop_source stop;
        HalvingJudge judge(ladder, "final_train_loss", stop);
        for (int64_t step = 10; step <= 30; step += 10) {
            StepEvent s;
            s.step = step;
            s.loss = 0.9;
            judge.onEvent(s);
        }
        QVERIFY(stop.stop_requested());
        QCOMPARE(judge.haltedAt(), std::optional<int64_t>(25));
        QCOMPARE(ladder.measuredAt(0), std::size_t{2});
        QCOMPARE(ladder.measuredAt(1), std::size_t{0});
    }
};

QTEST_GUILESS_MAIN(TestHalving)
#include "tst_halving.moc"
