// RunConfig: every invalid value is rejected with the key named; JSON round-trips.
#include "core/errors.h"
#include "train/runconfig.h"

#include <QtTest>

using namespace tb;

class TestRunConfig : public QObject {
    Q_OBJECT
private slots:
    void rejectsInvalidValues_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("batch_size=0") << "batch_size"
                                      << "0";
        QTest::newRow("batch_size=abc") << "batch_size"
                                        << "abc";
        QTest::newRow("lr=-1") << "lr"
                               << "-1";
        QTest::newRow("lr=0") << "lr"
                              << "0";
        QTest::newRow("num_workers=-2") << "num_workers"
                                        << "-2";
        QTest::newRow("precision=8") << "precision"
                                     << "8";
        QTest::newRow("optimizer=rmsprop") << "optimizer"
                                           << "rmsprop";
        QTest::newRow("momentum=1.5") << "momentum"
                                      << "1.5";
        QTest::newRow("pin_memory=maybe") << "pin_memory"
                                          << "maybe";
        QTest::newRow("accumulate_grad_batches=0") << "accumulate_grad_batches"
                                                   << "0";
        QTest::newRow("dataset=imagenet") << "dataset"
                                          << "imagenet";
        QTest::newRow("max_steps=-5") << "max_steps"
                                      << "-5";
        QTest::newRow("unknown-key") << "batchsize"
                                     << "64";
    }
    void rejectsInvalidValues() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        RunConfig c;
        try {
            c.set(key.toStdString(), value.toStdString());
            QFAIL("accepted an invalid value");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), key);
            QVERIFY(!QString(e.what()).isEmpty());
        }
    }

    void unknownKeySuggestsTheRightOne() {
        RunConfig c;
        try {
            c.set("batch", "64");
            QFAIL("accepted an unknown key");
        } catch (const ConfigError& e) {
            QVERIFY2(QString(e.what()).contains("batch_size"), e.what());
        }
    }

    void crossFieldChecks() {
        RunConfig c;
        c.set("max_epochs", "0");
        QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
        c.set("max_steps", "10");
        c.validate();
        c.set("device", "gpu");
        QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
    }

    void jsonRoundTrip() {
        RunConfig c;
        c.set("batch_size", "256");
        c.set("precision", "bf16-mixed");
        c.set("data.augment", "true");
        c.set("tags", "a,b");
        c.set("lr_milestones", "100,200");
        const RunConfig d = RunConfig::fromJson(c.toJson());
        QCOMPARE(d.toJson(), c.toJson());
        QCOMPARE(d.batchSize, int64_t{256});
        QCOMPARE(d.tags.size(), std::size_t{2});
    }

    void nestedConfigFiles() {
        RunConfig c;
        c.applyJson(nlohmann::json::parse(R"({"data": {"root": "/x", "augment": true},
                                              "batch_size": 32, "precision": 32})"));
        QCOMPARE(c.data.root, std::string("/x"));
        QVERIFY(c.data.augment);
        QCOMPARE(c.precision, std::string("32"));
        QVERIFY_THROWS_EXCEPTION(ConfigError,
                                 c.applyJson(nlohmann::json::parse(R"({"batch_size": "x"})")));
    }

    void everyFieldHasHelp() {
        for (const ConfigField& f : configFields())
            QVERIFY2(!f.help.empty(), f.key.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunConfig)
#include "tst_runconfig.moc"
