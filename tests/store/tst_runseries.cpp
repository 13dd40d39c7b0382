// RunSeries and groupSeries: every recorded point of a series against each x axis (samples and
// wall time interpolated from the step rows), telemetry placed on the step it happened at, the
// first x a series reaches a target, and group means and bands worked out by hand.
#include "storetestutil.h"

#include "store/rungroups.h"
#include "store/runseries.h"

#include <QTemporaryDir>

#include <cmath>

using namespace tb;
using namespace tb::test;

namespace {

// A run of 20 steps (step i at time 1000 + i, 64 samples a step, 10 steps an epoch) with
// validation accuracy per epoch, one telemetry reading at time 1005.5, and `lr` in its config.
void writeRun(RunStore& store, const std::string& id, double lr, double acc1, double acc2,
              double lossScale = 1.0) {
    RunStartedEvent start = runStarted(id);
    start.config["lr"] = lr;
    store.beginTransaction();
    store.beginRun(start, 1000.0);
    for (int i = 1; i <= 20; ++i) {
        StepEvent s = step(i);
        s.loss = lossScale * 2.0 / i;
        store.addStep(id, s);
    }
    store.addEpoch(id, epoch(1, acc1));
    store.addEpoch(id, epoch(2, acc2));
    SystemSample sample;
    sample.unixTime = 1005.5;
    sample.host.cpuPercent = 80.0;
    GpuSample gpu;
    gpu.index = 0;
    gpu.utilPercent = 95.0;
    sample.gpus.push_back(gpu);
    store.addSystemSample(id, sample);
    store.commit();
}

} // namespace

class TestRunSeries : public QObject {
    Q_OBJECT
private slots:
    void readsEverySeriesAgainstEachAxis() {
        QTemporaryDir dir;
        RunStore store((dir.path() + "/runs.db").toStdString());
        writeRun(store, "a", 0.1, 0.5, 0.8);
        const RunSeries run = RunSeries::load(store, store.getRun("a"));
        const std::vector<std::string> names = run.names();
        for (const char* expected : {"train/loss", "val/acc", "step_ms", "data_wait_share",
                                     "cpu/util", "gpu0/util"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
        QVERIFY(std::find(names.begin(), names.end(), "gpu1/util") == names.end());

        const SeriesPoints loss = run.points("train/loss", SeriesX::Samples);
        QCOMPARE(loss.x.size(), std::size_t{20}); // every point, none merged or dropped
        QCOMPARE(loss.x[4], 5.0 * 64);
        QCOMPARE(loss.y[4], 2.0 / 5);
        QCOMPARE(run.points("train/loss", SeriesX::Time).x[4], 5.0);
        QCOMPARE(run.points("train/loss", SeriesX::Epoch).x[4], 0.5);
        QCOMPARE(run.points("data_wait_share", SeriesX::Step).y[0], 100.0 * 1.5 / 12.5);

        // Epoch rows sit at their last step: x = that step's samples and time.
        const SeriesPoints acc = run.points("val/acc", SeriesX::Samples);
        QCOMPARE(acc.x, (std::vector<double>{640.0, 1280.0}));
        QCOMPARE(acc.y, (std::vector<double>{50.0, 80.0}));
        QCOMPARE(run.points("val/acc", SeriesX::Epoch).x, (std::vector<double>{1.0, 2.0}));

        // A reading at 1005.5 s falls halfway between steps 5 and 6.
        const SeriesPoints gpu = run.points("gpu0/util", SeriesX::Step);
        QCOMPARE(gpu.x, (std::vector<double>{5.5}));
        QCOMPARE(gpu.y, (std::vector<double>{95.0}));
        QCOMPARE(run.points("gpu0/util", SeriesX::Time).x, (std::vector<double>{5.5}));
    }

    // 65% lies 3/6 of the way from epoch 1's 50% to epoch 2's 80%: step 10 + 0.5 * 10.
    void findsWhenATargetIsReached() {
        QTemporaryDir dir;
        RunStore store((dir.path() + "/runs.db").toStdString());
        writeRun(store, "a", 0.1, 0.5, 0.8);
        const RunSeries run = RunSeries::load(store, store.getRun("a"));
        QCOMPARE(*firstReaching(run.points("val/acc", SeriesX::Step), 65.0, true), 15.0);
        QCOMPARE(*firstReaching(run.points("val/acc", SeriesX::Samples), 65.0, true), 960.0);
        QVERIFY(!firstReaching(run.points("val/acc", SeriesX::Step), 90.0, true));
        QCOMPARE(*firstReaching(run.points("train/loss", SeriesX::Step), 0.5, false), 4.0);
    }

    // Two runs with lr=0.1 (losses 2/i and 4/i) and one with lr=0.2: the first group's mean at
    // step i is 3/i, its band 2/i..4/i, its std 1/i; the second group is its one run, std 0.
    void groupsByAConfigKey() {
        QTemporaryDir dir;
        RunStore store((dir.path() + "/runs.db").toStdString());
        writeRun(store, "a", 0.1, 0.5, 0.8, 1.0);
        writeRun(store, "b", 0.1, 0.6, 0.9, 2.0);
        writeRun(store, "c", 0.2, 0.4, 0.7, 1.5);
        std::vector<RunSeries> runs;
        for (const char* id : {"a", "b", "c"})
            runs.push_back(RunSeries::load(store, store.getRun(id)));
        const std::vector<SeriesGroup> groups =
            groupSeries({&runs[0], &runs[1], &runs[2]}, {"lr"}, "train/loss", SeriesX::Step);
        QCOMPARE(groups.size(), std::size_t{2});
        QCOMPARE(groups[0].label, std::string("lr=0.1"));
        QCOMPARE(groups[0].runIds, (std::vector<std::string>{"a", "b"}));
        QCOMPARE(groups[0].x.size(), std::size_t{20});
        for (std::size_t k = 0; k < 20; ++k) {
            const double i = static_cast<double>(k + 1);
            QVERIFY(std::abs(groups[0].mean[k] - 3.0 / i) < 1e-12);
            QVERIFY(std::abs(groups[0].min[k] - 2.0 / i) < 1e-12);
            QVERIFY(std::abs(groups[0].max[k] - 4.0 / i) < 1e-12);
            QVERIFY(std::abs(groups[0].stddev[k] - 1.0 / i) < 1e-12);
            QCOMPARE(groups[0].count[k], 2);
        }
        QCOMPARE(groups[1].label, std::string("lr=0.2"));
        QCOMPARE(groups[1].stddev.front(), 0.0);
        // Validation accuracy grouped the same way: (50 + 60) / 2 at epoch 1.
        const auto acc = groupSeries({&runs[0], &runs[1], &runs[2]}, {"lr"}, "val/acc",
                                     SeriesX::Epoch);
        QVERIFY(std::abs(acc[0].mean[0] - 55.0) < 1e-9);
        QCOMPARE(groupLabel(runs[0].record(), {"lr", "missing"}),
                 std::string("lr=0.1, missing=(absent)"));
    }

    // Runs that cover different x ranges: each contributes only where it has data.
    void groupMembersOnlyCountWithinTheirOwnRange() {
        QTemporaryDir dir;
        RunStore store((dir.path() + "/runs.db").toStdString());
        writeRun(store, "a", 0.1, 0.5, 0.8);
        RunStartedEvent shortRun = runStarted("s");
        shortRun.config["lr"] = 0.1;
        store.beginTransaction();
        store.beginRun(shortRun, 1000.0);
        for (int i = 1; i <= 5; ++i)
            store.addStep("s", step(i));
        store.commit();
        std::vector<RunSeries> runs{RunSeries::load(store, store.getRun("a")),
                                    RunSeries::load(store, store.getRun("s"))};
        const auto g = groupSeries({&runs[0], &runs[1]}, {"lr"}, "train/loss", SeriesX::Step);
        QCOMPARE(g.size(), std::size_t{1});
        QCOMPARE(g[0].count.front(), 2);
        QCOMPARE(g[0].count.back(), 1);
    }
};

QTEST_GUILESS_MAIN(TestRunSeries)
#include "tst_runseries.moc"
