// Sweep files: a grid lists every combination once (the last key changing fastest, log ranges
// evenly spaced in log space, integer ranges rounded), random search draws the same trials for
// the same seed and different ones for another, inside the ranges; the trials' configs carry
// their values; bad files are refused naming the file and the key, before anything runs.
#include "core/errors.h"
#include "experiments/sweepdefinition.h"

#include <QtTest>

#include <cmath>
#include <set>

using namespace tb;

namespace {

nlohmann::json sweep(const char* text) {
    return nlohmann::json::parse(text);
}

} // namespace

class TestSweepDefinition : public QObject {
    Q_OBJECT

private slots:
    void gridListsEveryCombinationOnce() {
        const SweepDefinition s = parseSweepDefinition(sweep(R"({
            "name": "lr-batch", "method": "grid", "metric": "best_val_acc",
            "config": {"model": "mlp", "max_epochs": 1},
            "parameters": {
              "lr": {"min": 0.001, "max": 0.1, "scale": "log", "steps": 3},
              "batch_size": {"values": [32, 64]},
              "optimizer": {"values": ["sgd", "adamw"]}}})"),
                                                       "lr.json");
        QCOMPARE(toString(s.method), "grid");
        QVERIFY(s.metric.maximize);
        const std::vector<SweepTrial> trials = sweepTrials(s);
        QCOMPARE(trials.size(), std::size_t{12});
        // nlohmann::json keeps object keys sorted: batch_size, lr, optimizer.
        QCOMPARE(QString::fromStdString(trials[0].label()),
                 QStringLiteral("batch_size=32 lr=0.001 optimizer=sgd"));
        QCOMPARE(QString::fromStdString(trials[1].label()),
                 QStringLiteral("batch_size=32 lr=0.001 optimizer=adamw"));
        QCOMPARE(QString::fromStdString(trials[2].label()),
                 QStringLiteral("batch_size=32 lr=0.01 optimizer=sgd"));
        QCOMPARE(QString::fromStdString(trials[11].label()),
                 QStringLiteral("batch_size=64 lr=0.1 optimizer=adamw"));
        std::set<std::string> labels;
        for (const SweepTrial& t : trials)
            labels.insert(t.label());
        QCOMPARE(labels.size(), trials.size());
        const RunConfig c = trialConfig(s, trials[11]);
        QCOMPARE(c.batchSize, int64_t{64});
        QCOMPARE(c.lr, 0.1f);
        QCOMPARE(c.model, std::string("mlp")); // the base config stays under the trial's keys
        QCOMPARE(c.maxEpochs, int64_t{1});
    }

    void integerRangesAreRounded() {
        const SweepDefinition s = parseSweepDefinition(sweep(R"({
            "name": "workers", "method": "grid", "metric": "samples_per_s",
            "parameters": {"num_workers": {"min": 0, "max": 3, "steps": 7}}})"),
                                                       "w.json");
        std::vector<std::string> values;
        for (const SweepTrial& t : sweepTrials(s))
            values.push_back(t.set[0].second);
        // 0, 0.5, 1, ... rounded: each whole number once.
        QCOMPARE(values, (std::vector<std::string>{"0", "1", "2", "3"}));
    }

    void randomDrawsAreSeededAndInside() {
        const char* text = R"({
            "name": "random", "method": "random", "count": 200, "seed": 7,
            "metric": "final_val_loss",
            "parameters": {
              "lr": {"min": 0.0001, "max": 0.1, "scale": "log"},
              "weight_decay": {"min": 0, "max": 0.1},
              "batch_size": {"values": [16, 32, 64]}}})";
        const SweepDefinition s = parseSweepDefinition(sweep(text), "r.json");
        QVERIFY(!s.metric.maximize); // a loss is minimised
        const std::vector<SweepTrial> a = sweepTrials(s);
        QCOMPARE(a.size(), std::size_t{200});
        QCOMPARE(sweepTrials(s)[137].label(), a[137].label());
        int belowMilli = 0, aboveCenti = 0;
        std::set<std::string> batches;
        for (const SweepTrial& t : a) {
            const double lr = std::stod(t.set[1].second);
            QVERIFY(lr >= 0.0001 && lr <= 0.1);
            belowMilli += lr < 0.001;
            aboveCenti += lr > 0.01;
            const double wd = std::stod(t.set[2].second);
            QVERIFY(wd >= 0.0 && wd <= 0.1);
            batches.insert(t.set[0].second);
            trialConfig(s, t); // every drawn value is one the config takes
        }
        // Log-uniform over three decades: about a third in each.
        QVERIFY2(belowMilli > 40 && aboveCenti > 40,
                 qPrintable(QString("%1 %2").arg(belowMilli).arg(aboveCenti)));
        QCOMPARE(batches.size(), std::size_t{3});
        nlohmann::json other = sweep(text);
        other["seed"] = 8;
        QVERIFY(sweepTrials(parseSweepDefinition(other, "r.json"))[0].label() != a[0].label());
    }

    // Halving starts a grid's trials (or a draw's, given a count) with the budget's max as
    // their length, and judges them at the rungs below it.
    void halvingTrialsCarryTheBudget() {
        const SweepDefinition s = parseSweepDefinition(sweep(R"({
            "name": "h", "method": "halving", "metric": "final_val_loss",
            "budget": {"unit": "epochs", "min": 1, "max": 9, "reduction": 3},
            "config": {"model": "mlp", "max_steps": 500},
            "parameters": {"lr": {"min": 0.001, "max": 0.1, "scale": "log", "steps": 3},
                           "optimizer": {"values": ["sgd", "adamw"]}}})"),
                                                       "h.json");
        QCOMPARE(toString(s.method), "halving");
        QVERIFY(!s.metric.maximize);
        QCOMPARE(s.budget.rungs(), (std::vector<int64_t>{1, 3}));
        const std::vector<SweepTrial> trials = sweepTrials(s);
        QCOMPARE(trials.size(), std::size_t{6}); // a grid: no count
        const RunConfig c = trialConfig(s, trials[0]);
        QCOMPARE(c.maxEpochs, int64_t{9});
        QCOMPARE(c.maxSteps, int64_t{-1}); // the budget, not the base config, bounds a trial

        nlohmann::json drawn = sweep(R"({
            "name": "h", "method": "halving", "metric": "final_train_loss", "count": 5,
            "budget": {"unit": "steps", "min": 50, "max": 800, "reduction": 2},
            "parameters": {"lr": {"min": 0.001, "max": 0.1, "scale": "log"}}})");
        const SweepDefinition d = parseSweepDefinition(drawn, "d.json");
        QCOMPARE(sweepTrials(d).size(), std::size_t{5});
        QCOMPARE(d.budget.rungs(), (std::vector<int64_t>{50, 100, 200, 400}));
        const RunConfig dc = trialConfig(d, sweepTrials(d)[0]);
        QCOMPARE(dc.maxSteps, int64_t{800});
        QCOMPARE(dc.maxEpochs, int64_t{0});
    }

    void badFilesAreRefusedNamingTheKey_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        const QString head = R"({"name": "s", "method": "grid", "metric": "best_val_acc", )";
        QTest::newRow("unknown key")
            << head + R"("parameters": {"learning_rate": {"values": [1]}}})"
            << "bad.json: parameters.learning_rate";
        QTest::newRow("value out of range")
            << head + R"("parameters": {"batch_size": {"values": [32, -4]}}})"
            << "bad.json: parameters.batch_size.values[1]";
        QTest::newRow("empty grid") << head + R"("parameters": {"lr": {"values": []}}})"
                                    << "bad.json: parameters.lr.values";
        QTest::newRow("no parameters") << head + R"("parameters": {}})"
                                       << "bad.json: parameters";
        QTest::newRow("range without steps in a grid")
            << head + R"("parameters": {"lr": {"min": 0.01, "max": 0.1}}})"
            << "bad.json: parameters.lr.steps";
        QTest::newRow("log range from zero")
            << head + R"("parameters": {"lr": {"min": 0, "max": 0.1, "scale": "log", "steps": 3}}})"
            << "bad.json: parameters.lr.min";
        QTest::newRow("range of a choice")
            << head + R"("parameters": {"optimizer": {"min": 0, "max": 1, "steps": 2}}})"
            << "bad.json: parameters.optimizer.values";
        QTest::newRow("unknown metric")
            << R"({"name": "s", "method": "grid", "metric": "val/accuracy", "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: metric";
        QTest::newRow("random without count")
            << R"({"name": "s", "method": "random", "metric": "best_val_acc", "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: count";
        QTest::newRow("unknown method")
            << R"({"name": "s", "method": "bayes", "metric": "best_val_acc", "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: method";
        QTest::newRow("name that cannot be a tag")
            << R"({"name": "my sweep, v2", "method": "grid", "metric": "best_val_acc", "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: name";
        const QString halving =
            R"({"name": "h", "method": "halving", "metric": "best_val_acc", "parameters": {"lr": {"values": [0.1, 0.01]}}, )";
        QTest::newRow("halving without a budget") << halving.chopped(2) + "}"
                                                  << "bad.json: budget";
        QTest::newRow("halving budget unit")
            << halving + R"("budget": {"unit": "hours", "min": 1, "max": 9}})"
            << "bad.json: budget.unit";
        QTest::newRow("halving budget max not above min")
            << halving + R"("budget": {"unit": "epochs", "min": 3, "max": 3}})"
            << "bad.json: budget.max";
        QTest::newRow("halving on a metric known only at the end")
            << R"({"name": "h", "method": "halving", "metric": "samples_per_s", "budget": {"unit": "epochs", "min": 1, "max": 9}, "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: metric";
        QTest::newRow("halving in steps by validation accuracy")
            << halving + R"("budget": {"unit": "steps", "min": 100, "max": 900}})"
            << "bad.json: metric";
        QTest::newRow("halving sweeping its own budget")
            << R"({"name": "h", "method": "halving", "metric": "best_val_acc", "budget": {"unit": "epochs", "min": 1, "max": 9}, "parameters": {"max_epochs": {"values": [3, 9]}}})"
            << "bad.json: parameters.max_epochs";
        QTest::newRow("budget outside halving")
            << head +
                   R"("budget": {"unit": "epochs", "min": 1, "max": 9}, "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: budget";
        QTest::newRow("bad base config")
            << head + R"("config": {"batch_size": 0}, "parameters": {"lr": {"values": [0.1]}}})"
            << "bad.json: config.batch_size";
    }
    void badFilesAreRefusedNamingTheKey() {
        QFETCH(QString, text);
        QFETCH(QString, key);
        try {
            parseSweepDefinition(nlohmann::json::parse(text.toStdString()), "bad.json");
            QFAIL("accepted");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), key);
        }
    }
};

QTEST_GUILESS_MAIN(TestSweepDefinition)
#include "tst_sweepdefinition.moc"
