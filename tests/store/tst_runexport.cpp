// Run export and comparison: flattened configs, differing keys, CSV shape and JSON contents.
#include "store/runexport.h"

#include "storetestutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

using namespace tb;
using namespace tb::test;

class TestRunExport : public QObject {
    Q_OBJECT

private slots:
    void flattensNestedKeys() {
        const auto flat = flattenJson(nlohmann::json::parse(
            R"({"a": 1, "b": {"c": "x", "d": {"e": [1, 2]}}, "f": {}, "g": null})"));
        QCOMPARE(flat.size(), std::size_t{5});
        QCOMPARE(flat.at("a"), std::string("1"));
        QCOMPARE(flat.at("b.c"), std::string("x"));
        QCOMPARE(flat.at("b.d.e"), std::string("[1,2]"));
        QCOMPARE(flat.at("f"), std::string("{}"));
        QCOMPARE(flat.at("g"), std::string("null"));
    }

    void reportsOnlyDifferingKeys() {
        RunRecord a, b, c;
        a.config = {{"lr", 0.1}, {"batch_size", 64}, {"optim", {{"name", "sgd"}}}};
        b.config = {{"lr", 0.01}, {"batch_size", 64}, {"optim", {{"name", "sgd"}}}};
        c.config = {{"lr", 0.1}, {"batch_size", 64}, {"optim", {{"name", "adamw"}}}, {"amp", true}};
        const auto diffs = configDifferences({a, b, c});
        QCOMPARE(diffs.size(), std::size_t{3});
        QCOMPARE(diffs[0].key, std::string("amp"));
        QVERIFY(!diffs[0].values[0] && !diffs[0].values[1]);
        QCOMPARE(diffs[0].values[2].value_or(""), std::string("true"));
        QCOMPARE(diffs[1].key, std::string("lr"));
        QCOMPARE(diffs[1].values[1].value_or(""), std::string("0.01"));
        QCOMPARE(diffs[2].key, std::string("optim.name"));
        QVERIFY(configDifferences({a, a}).empty());
    }

    void exportsCsvAndJson() {
        QTemporaryDir dir;
        RunStore store(dir.filePath("export.db").toStdString());
        store.beginTransaction();
        store.beginRun(runStarted("e"), 1000.0);
        for (int i = 1; i <= 20; ++i)
            store.addStep("e", step(i));
        EpochEvent ep = epoch(1, 0.5);
        ep.checkpoint = "/tmp/a \"quoted\", path.safetensors";
        store.addEpoch("e", ep);
        store.commit();

        std::ostringstream csv;
        exportRunCsv(store, "e", csv);
        std::istringstream lines(csv.str());
        std::string line;
        int rows = 0;
        std::getline(lines, line);
        const auto columns = std::count(line.begin(), line.end(), ',') + 1;
        QCOMPARE(columns, 23);
        while (std::getline(lines, line)) {
            ++rows;
            if (line.rfind("step,", 0) == 0)
                QCOMPARE(std::count(line.begin(), line.end(), ',') + 1, columns);
        }
        QCOMPARE(rows, 21);
        QVERIFY(csv.str().find("\"/tmp/a \"\"quoted\"\", path.safetensors\"") != std::string::npos);
        QVERIFY(csv.str().find("\nepoch,10,1,,,,,,,,,,,,,,1,0.5,1.2,0.5,3,4000,") !=
                std::string::npos);

        std::ostringstream json;
        exportRunJson(store, "e", json);
        const auto doc = nlohmann::json::parse(json.str());
        QCOMPARE(doc["steps"].size(), std::size_t{20});
        QCOMPARE(doc["epochs"].size(), std::size_t{1});
        QCOMPARE(doc["run"]["id"].get<std::string>(), std::string("e"));
        QCOMPARE(doc["steps"][1]["loss"].get<double>(), 1.0);
    }
};

QTEST_GUILESS_MAIN(TestRunExport)
#include "tst_runexport.moc"
