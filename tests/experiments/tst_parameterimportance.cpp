// Parameter importance on synthetic runs whose metric depends on one key and not on another:
// the forest ranks them so, the correlations have the right signs, the numbers are the same
// every time, and too few runs say so instead of ranking noise.
#include "core/errors.h"
#include "experiments/parameterimportance.h"
#include "store/runrecord.h"

#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

// Runs over a grid of batch_size x seed x optimizer; best_val_acc falls with batch_size and
// carries a little seed noise, and nothing of the optimizer.
std::vector<RunRecord> syntheticRuns(int perKey) {
    std::vector<RunRecord> runs;
    for (int b = 0; b < perKey; ++b)
        for (int s = 0; s < perKey; ++s)
            for (const char* optimizer : {"sgd", "adamw"}) {
                RunRecord r;
                r.id = "run-" + std::to_string(runs.size());
                const int batch = 16 << b;
                r.config = {{"batch_size", batch},
                            {"seed", s},
                            {"optimizer", optimizer},
                            {"name", r.id},
                            {"checkpoint_dir", "/tmp/sweep/" + r.id}};
                r.bestValAcc = 0.95 - 0.05 * b + 0.002 * std::sin(7.0 * s);
                r.finalValLoss = 0.1 + 0.2 * b; // rises with batch_size
                runs.push_back(r);
            }
    return runs;
}

const KeyImportance& key(const ImportanceReport& report, const std::string& name) {
    for (const KeyImportance& k : report.keys)
        if (k.key == name)
            return k;
    throw std::runtime_error("no key " + name);
}

} // namespace

class TestParameterImportance : public QObject {
    Q_OBJECT

private slots:
    void ranksTheKeyTheMetricDependsOn() {
        const std::vector<RunRecord> runs = syntheticRuns(4); // 32 runs
        const ImportanceReport report = parameterImportance(runs, "best_val_acc");
        QCOMPARE(report.runs, 32);
        QVERIFY(report.enoughRuns());
        QCOMPARE(report.keys.size(),
                 std::size_t{3}); // name and checkpoint_dir differ, but are not keys
        QCOMPARE(report.keys.front().key, std::string("batch_size"));
        QVERIFY2(key(report, "batch_size").importance > 0.8,
                 std::to_string(key(report, "batch_size").importance).c_str());
        QVERIFY(key(report, "optimizer").importance < 0.1);
        double sum = 0.0;
        for (const KeyImportance& k : report.keys)
            sum += k.importance;
        QVERIFY(std::abs(sum - 1.0) < 1e-9);
        QVERIFY(*key(report, "batch_size").correlation < -0.9); // bigger batches, lower accuracy
        QVERIFY(std::abs(*key(report, "optimizer").correlation) < 0.1); // two values: r applies
        QVERIFY(key(report, "optimizer").categorical);
        QCOMPARE(key(report, "optimizer").distinctValues, 2);
        QVERIFY(report.outOfBagR2 > 0.8);
        // The same key against a loss that rises with it: a positive correlation.
        const ImportanceReport loss = parameterImportance(runs, "val/loss");
        QCOMPARE(loss.metric, std::string("final_val_loss"));
        QVERIFY(*key(loss, "batch_size").correlation > 0.9);
        QCOMPARE(loss.keys.front().key, std::string("batch_size"));
    }

    void theNumbersAreReproducible() {
        const std::vector<RunRecord> runs = syntheticRuns(3);
        const ImportanceReport a = parameterImportance(runs, "best_val_acc", {}, 7);
        const ImportanceReport b = parameterImportance(runs, "best_val_acc", {}, 7);
        QCOMPARE(a.keys.size(), b.keys.size());
        for (std::size_t i = 0; i < a.keys.size(); ++i) {
            QCOMPARE(a.keys[i].key, b.keys[i].key);
            QCOMPARE(a.keys[i].importance, b.keys[i].importance);
        }
        QCOMPARE(a.outOfBagR2, b.outOfBagR2);
    }

    void chosenKeysOnly() {
        const ImportanceReport r =
            parameterImportance(syntheticRuns(3), "best_val_acc", {"seed", "optimizer"});
        QCOMPARE(r.keys.size(), std::size_t{2});
        QVERIFY(r.outOfBagR2 < 0.3); // neither key explains the metric, and the report says so
    }

    void tooFewRunsAreNotRanked() {
        std::vector<RunRecord> runs = syntheticRuns(2); // 8 runs
        runs.resize(ImportanceReport::kMinimumRuns - 1);
        const ImportanceReport r = parameterImportance(runs, "best_val_acc");
        QVERIFY(!r.enoughRuns());
        QCOMPARE(r.runs, ImportanceReport::kMinimumRuns - 1);
        QVERIFY(r.keys.empty());
        runs = syntheticRuns(2);
        runs[0].bestValAcc.reset(); // a run without the metric does not count
        QVERIFY(!parameterImportance(runs, "best_val_acc").enoughRuns());
        QVERIFY_THROWS_EXCEPTION(ConfigError, parameterImportance(runs, "val/accuracy"));
    }
};

QTEST_GUILESS_MAIN(TestParameterImportance)
#include "tst_parameterimportance.moc"
