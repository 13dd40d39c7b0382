// Run export and comparison: flattened configs, differing keys, CSV shape and JSON contents.
#include "store/runexport.h"

#include "store/storeerror.h"
#include "storetestutil.h"

#include <QDir>
#include <QFile>

#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

#include <unistd.h>

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

    // `runs export ID --out runs.db` truncated the store. The database and SQLite's files
    // beside it are refused however the path is spelled; the store is untouched.
    void refusesToExportOverTheStore_data() {
        QTest::addColumn<QString>("target");
        QTest::newRow("database") << "runs.db";
        QTest::newRow("wal") << "runs.db-wal";
        QTest::newRow("shm") << "runs.db-shm";
        QTest::newRow("other-spelling") << "./sub/../runs.db";
        QTest::newRow("symlink") << "link.db";
        QTest::newRow("hard-link") << "hard.db";
    }
    void refusesToExportOverTheStore() {
        QFETCH(QString, target);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("sub"));
        const std::string db = dir.filePath("runs.db").toStdString();
        RunStore store(db);
        store.beginTransaction();
        store.beginRun(runStarted("e"), 1000.0);
        store.addStep("e", step(1));
        store.commit(); // the open connection keeps -wal and -shm in place
        QVERIFY(QFile::link(dir.filePath("runs.db"), dir.filePath("link.db")));
        QCOMPARE(::link(db.c_str(), dir.filePath("hard.db").toStdString().c_str()), 0);
        const std::string out = dir.filePath(target).toStdString();
        try {
            exportRunToFile(store, "e", ExportFormat::Csv, out);
            QFAIL("an export over the run database must be refused");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("Choose another file") != std::string::npos,
                     e.what());
        }
        QCOMPARE(store.stepMetrics("e").size(), std::size_t{1});
        QVERIFY(store.checkIntegrity().empty());
    }

    // The export goes to a temporary file renamed into place: a failed one leaves the earlier
    // file whole and nothing beside it.
    void failedExportKeepsTheEarlierFile() {
        QTemporaryDir dir;
        RunStore store(dir.filePath("runs.db").toStdString());
        store.beginTransaction();
        store.beginRun(runStarted("e"), 1000.0);
        store.addStep("e", step(1));
        store.commit();
        const std::string out = dir.filePath("e.json").toStdString();
        exportRunToFile(store, "e", ExportFormat::Json, out);
        const QByteArray before = readAll(out);
        QVERIFY(nlohmann::json::parse(before.toStdString())["steps"].size() == 1);
        QVERIFY_THROWS_EXCEPTION(StoreError,
                                 exportRunToFile(store, "gone", ExportFormat::Json, out));
        QCOMPARE(readAll(out), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).filter("e.json").size(), 1);
    }

private:
    static QByteArray readAll(const std::string& path) {
        QFile f(QString::fromStdString(path));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
};

QTEST_GUILESS_MAIN(TestRunExport)
#include "tst_runexport.moc"
