// RunConfig: every invalid value is rejected with the key named; JSON round-trips; the schema a
// form is generated from is complete and agrees with what set() accepts.
#include "core/errors.h"
#include "data/datasets.h"
#include "nn/modelzoo.h"
#include "train/checkpointer.h"
#include "train/runconfig.h"

#include <limits>
#include <set>
#include <thread>

#include <QtTest>

using namespace tb;

class TestRunConfig : public QObject {
    Q_OBJECT
private slots:
    // ranks > 1 is a data-parallel job: it says distributed=mpi, so the ddp.* keys apply; a
    // config that asks for ranks but sets distributed back is named.
    void ranksMakeADataParallelJob() {
        RunConfig c;
        QCOMPARE(c.distributed, std::string("none"));
        QVERIFY(!findConfigField("ddp.bucket_mb")->appliesTo(c));
        c.set("ranks", "2");
        QCOMPARE(c.distributed, std::string("mpi"));
        QVERIFY(findConfigField("ddp.bucket_mb")->appliesTo(c));
        QVERIFY(findConfigField("sync_batchnorm")->appliesTo(c));
        c.validate();
        c.set("distributed", "none");
        try {
            c.validate();
            QFAIL("ranks=2 with distributed=none passed");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QString("distributed"));
        }
        const RunConfig back = RunConfig::fromJson(RunConfig().toJson());
        QCOMPARE(back.ranks, 1);
        RunConfig job;
        job.set("ranks", "4");
        QCOMPARE(RunConfig::fromJson(job.toJson()).distributed, std::string("mpi"));
    }

    // A job's place in its epoch is a count of samples: 2 ranks x 32 x 3 batches = 192 samples
    // is batch 6 of one rank of 32, batch 1 of 4 ranks x 32 (128), 64 of them read again.
    void aPositionMovesToAnotherJobShape_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("batchInEpoch");
        QTest::addColumn<int>("repeated");
        QTest::newRow("1 x 32") << 1 << 32 << 6 << 0;
        QTest::newRow("1 x 64") << 1 << 64 << 3 << 0;
        QTest::newRow("4 x 32") << 4 << 32 << 1 << 64;
        QTest::newRow("2 x 32, unchanged") << 2 << 32 << 3 << 0;
    }
    void aPositionMovesToAnotherJobShape() {
        QFETCH(int, ranks);
        QFETCH(int, batch);
        QFETCH(int, batchInEpoch);
        QFETCH(int, repeated);
        Position p;
        p.epoch = 1;
        p.step = 7;
        p.samplesSeen = 448;
        p.batchInEpoch = 3;
        p.ranks = 2;
        p.batchSize = 32;
        QCOMPARE(moveToJobShape(p, ranks, batch), int64_t{repeated});
        QCOMPARE(p.batchInEpoch, int64_t{batchInEpoch});
        QCOMPARE(p.ranks, ranks);
        QCOMPARE(p.batchSize, int64_t{batch});
        QCOMPARE(p.step, int64_t{7}); // steps and samples seen go on
        QCOMPARE(p.samplesSeen, int64_t{448});
    }

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
        QTest::newRow("lr=nan") << "lr"
                                << "nan";
        QTest::newRow("lr=inf") << "lr"
                                << "inf";
        QTest::newRow("seed=2^64") << "seed"
                                   << "18446744073709551616";
        QTest::newRow("threads=1024") << "threads"
                                      << "1024";
        QTest::newRow("device=gpu") << "device"
                                    << "gpu";
        QTest::newRow("device=cuda:") << "device"
                                      << "cuda:";
        QTest::newRow("model=resnet9000") << "model"
                                          << "resnet9000";
        QTest::newRow("data.image_size=4") << "data.image_size"
                                           << "4";
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
        c.set("data.synthetic_classes", "8"); // fine for spirals, too many for shapes
        c.set("dataset", "shapes");
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

    // A detector implies Ultralytics' recipe where a key is at its default: AdamW by default,
    // and with optimizer=sgd its SGD (Nesterov 0.937 warmed up from 0.8, biases warmed down
    // from 0.1). A saved config reloads as it was, even where it holds a default value that a
    // key after it would otherwise replace.
    void detectorRecipes() {
        RunConfig c;
        c.set("dataset", "shapes-detect");
        QCOMPARE(c.model, std::string("yolov8n"));
        QCOMPARE(c.optimizer.name, std::string("adamw"));
        QCOMPARE(c.optimizer.warmupBiasLr, 0.0f); // Ultralytics' auto: no bias warm-up for Adam
        c.set("optimizer", "sgd");
        QCOMPARE(c.optimizer.momentum, 0.937f);
        QVERIFY(c.optimizer.nesterov);
        QCOMPARE(c.optimizer.warmupMomentum, 0.8f);
        QCOMPARE(c.optimizer.warmupBiasLr, 0.1f);
        RunConfig chosen;
        chosen.set("dataset", "shapes-detect");
        chosen.set("momentum", "0.95"); // set on purpose: kept
        chosen.set("optimizer", "sgd");
        QCOMPARE(chosen.optimizer.momentum, 0.95f);

        RunConfig explicitDefaults;
        explicitDefaults.set("dataset", "shapes-detect");
        explicitDefaults.set("optimizer", "sgd");
        explicitDefaults.set("lr", "0.1");       // the default, chosen on purpose
        explicitDefaults.set("momentum", "0.9"); // likewise
        const RunConfig back = RunConfig::fromJson(explicitDefaults.toJson());
        QCOMPARE(back.toJson(), explicitDefaults.toJson());
        QCOMPARE(back.lr, 0.1f);
        QCOMPARE(back.optimizer.momentum, 0.9f);
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
        for (const ConfigField& f : configSchema())
            QVERIFY2(!f.help.empty(), f.key.c_str());
    }

    void messagesSayWhatIsAllowed() {
        const auto nan = validateField("lr", "nan");
        QVERIFY(nan);
        QVERIFY2(nan->find("lr must be a finite number") != std::string::npos, nan->c_str());
        const auto seed = validateField("seed", "18446744073709551616");
        QVERIFY(seed);
        QVERIFY2(seed->find("'18446744073709551616'") != std::string::npos, seed->c_str());
        QVERIFY(!validateField("seed", "18446744073709551615"));
        const auto unknown = validateField("batch", "1");
        QVERIFY(unknown && unknown->find("batch_size") != std::string::npos);
    }

    void fullSeedRange() {
        RunConfig c;
        c.set("seed", "18446744073709551615");
        QCOMPARE(c.seed, std::numeric_limits<uint64_t>::max());
        QCOMPARE(RunConfig::fromJson(c.toJson()).seed, c.seed);
        QVERIFY_THROWS_EXCEPTION(ConfigError,
                                 c.applyJson(nlohmann::json::parse(R"({"seed": -1})")));
    }

    void threadsBoundedByTheMachine() {
        const auto hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        QVERIFY(!validateField("threads", std::to_string(hardware)));
        QVERIFY(validateField("threads", std::to_string(hardware + 1)));
    }

    void jsonValuesOfTheWrongTypeNameTheKey() {
        RunConfig c;
        try {
            c.applyJson(nlohmann::json::parse(R"({"tags": ["a", 1]})"));
            QFAIL("accepted a number as a tag");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("tags"));
        }
        QVERIFY_THROWS_EXCEPTION(ConfigError, c.applyJson(nlohmann::json::parse(R"({"tags": 5})")));
        QVERIFY_THROWS_EXCEPTION(ConfigError,
                                 c.applyJson(nlohmann::json::parse(R"({"lr_milestones": [0]})")));
    }

    // The data.* keys that dataset-info and bench-data take: one parser, RunConfig's limits.
    void dataKeys() {
        RunConfig c;
        c.set("data.root", "/x");
        c.set("data.augment", "true");
        c.set("data.val_fraction", "0.25");
        c.set("data.image_size", "64");
        c.set("dataset", "shapes");
        QCOMPARE(c.data.root, std::string("/x"));
        QVERIFY(c.data.augment);
        QCOMPARE(c.data.valFraction, 0.25);
        QCOMPARE(c.data.imageSize, 64);
        QCOMPARE(c.data.name, std::string("shapes"));
        QVERIFY(validateField("data.normalize", "maybe"));
        QVERIFY(validateField("data.val_fraction", "1.5"));
        QVERIFY(validateField("data.image_size", "x"));
        QVERIFY(validateField("data.synthetic_classes", "0"));
        for (const char* key : {"dataset", "data.root", "data.image_size", "data.csv_header"})
            QCOMPARE(findConfigField(key)->group, ConfigGroup::Data);
    }

    // ---- the schema a form is generated from ------------------------------------------------

    void schemaKeysAreUniqueAndGrouped() {
        std::set<std::string> keys;
        std::set<ConfigGroup> finished;
        ConfigGroup current = configSchema().front().group;
        for (const ConfigField& f : configSchema()) {
            QVERIFY2(keys.insert(f.key).second, f.key.c_str());
            if (f.group != current) { // each group is one run of fields: one form section
                finished.insert(current);
                current = f.group;
            }
            QVERIFY2(!finished.count(f.group), f.key.c_str());
            QVERIFY(findConfigField(f.key) == &f);
        }
        QCOMPARE(finished.size() + 1, std::size_t{6});
        QVERIFY(!findConfigField("no_such_key"));
    }

    void everyDefaultValidates() {
        const nlohmann::json defaults = RunConfig().toJson();
        for (const ConfigField& f : configSchema()) {
            QCOMPARE(f.defaultValue, defaults.at(f.key));
            const auto problem = validateField(f.key, asText(f.defaultValue));
            QVERIFY2(!problem, (f.key + ": " + problem.value_or("")).c_str());
        }
        RunConfig().validate();
    }

    void rangesAreEnforcedAtBothEnds() {
        int numeric = 0;
        for (const ConfigField& f : configSchema()) {
            if (f.type != "int" && f.type != "float")
                continue;
            ++numeric;
            QVERIFY2(!f.min.is_null() && !f.max.is_null(), f.key.c_str());
            const std::string key = f.key;
            QVERIFY2(!validateField(key, f.max.dump()), key.c_str());
            QVERIFY2(validateField(key, above(f.max)), key.c_str());
            QVERIFY2(validateField(key, below(f.min)), key.c_str());
            QCOMPARE(!validateField(key, f.min.dump()), !f.minOpen);
            QVERIFY2(validateField(key, "x"), key.c_str());
        }
        QVERIFY(numeric > 20);
    }

    void appliesToConditionalKeys_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("on");
        QTest::addColumn<QString>("off");
        QTest::newRow("momentum") << "momentum"
                                  << "optimizer"
                                  << "sgd"
                                  << "adamw";
        QTest::newRow("nesterov") << "nesterov"
                                  << "optimizer"
                                  << "sgd"
                                  << "adamw";
        QTest::newRow("beta1") << "beta1"
                               << "optimizer"
                               << "adamw"
                               << "sgd";
        QTest::newRow("eps") << "eps"
                             << "optimizer"
                             << "adamw"
                             << "sgd";
        QTest::newRow("amp.init_scale") << "amp.init_scale"
                                        << "precision"
                                        << "16-mixed"
                                        << "bf16-mixed";
        QTest::newRow("amp.growth_interval") << "amp.growth_interval"
                                             << "precision"
                                             << "16-mixed"
                                             << "32";
        QTest::newRow("warmup_steps") << "warmup_steps"
                                      << "lr_schedule"
                                      << "cosine"
                                      << "onecycle";
        QTest::newRow("lr_milestones") << "lr_milestones"
                                       << "lr_schedule"
                                       << "multistep"
                                       << "step";
        QTest::newRow("lr_step_size") << "lr_step_size"
                                      << "lr_schedule"
                                      << "step"
                                      << "cosine";
        QTest::newRow("min_lr") << "min_lr"
                                << "lr_schedule"
                                << "cosine"
                                << "constant";
        QTest::newRow("data.csv_label") << "data.csv_label"
                                        << "dataset"
                                        << "csv"
                                        << "mnist";
        QTest::newRow("data.image_size") << "data.image_size"
                                         << "dataset"
                                         << "shapes"
                                         << "cifar10";
        QTest::newRow("model.shortcut") << "model.shortcut"
                                        << "model"
                                        << "resnet20"
                                        << "mlp";
        QTest::newRow("model.hidden") << "model.hidden"
                                      << "model"
                                      << "mlp"
                                      << "resnet20";
        QTest::newRow("data.normalize") << "data.normalize"
                                        << "dataset"
                                        << "blobs"
                                        << "text";
        QTest::newRow("data.augment") << "data.augment"
                                      << "dataset"
                                      << "cifar10"
                                      << "blobs";
    }

    // A key under one that does not apply does not apply either: a text set shows neither
    // data.normalize nor data.norm_stats, though normalize is true (its default).
    void dependentKeysFollowTheirController() {
        const ConfigField* stats = findConfigField("data.norm_stats");
        QVERIFY(stats);
        QCOMPARE(stats->appliesWhenKey, std::string("data.normalize"));
        RunConfig c;
        c.set("dataset", "fashion-mnist");
        QVERIFY(stats->appliesTo(c));
        c.set("dataset", "text");
        QVERIFY(c.data.normalize);
        QVERIFY(!stats->appliesTo(c));
        for (const ConfigField& f : configSchema()) // nothing about pixels for token ids
            if (f.key.rfind("data.norm", 0) == 0 || f.key == "data.augment")
                QVERIFY2(!f.appliesTo(c), f.key.c_str());
        c.set("dataset", "shapes-detect"); // pixels over 255, as Ultralytics feeds them
        QVERIFY(!stats->appliesTo(c));
    }
    void appliesToConditionalKeys() {
        QFETCH(QString, key);
        QFETCH(QString, setting);
        QFETCH(QString, on);
        QFETCH(QString, off);
        const ConfigField* f = findConfigField(key.toStdString());
        QVERIFY(f);
        QCOMPARE(QString::fromStdString(f->appliesWhenKey), setting);
        RunConfig c;
        c.set(setting.toStdString(), on.toStdString());
        QVERIFY(f->appliesTo(c));
        c.set(setting.toStdString(), off.toStdString());
        QVERIFY(!f->appliesTo(c));
    }

    void unconditionalKeysAlwaysApply() {
        RunConfig c;
        c.set("optimizer", "adamw");
        c.set("precision", "bf16-mixed");
        for (const char* key : {"batch_size", "lr", "weight_decay", "precision", "seed"})
            QVERIFY2(findConfigField(key)->appliesTo(c), key);
    }

    void choicesComeFromTheRegistries() {
        QCOMPARE(findConfigField("dataset")->choices, datasetNames());
        std::vector<std::string> zoo;
        for (const ZooEntry& e : modelZoo())
            zoo.push_back(e.name);
        QCOMPARE(findConfigField("model")->choices, zoo);
        for (const std::string& name : zoo)
            QVERIFY2(!validateField("model", name), name.c_str());
        QVERIFY(!validateField("model", "my/spec.json"));
    }

private:
    // A value as a user would type it for --set.
    static std::string asText(const nlohmann::json& v) {
        if (v.is_string())
            return v.get<std::string>();
        if (v.is_array()) {
            std::string out;
            for (const auto& item : v)
                out += (out.empty() ? "" : ",") +
                       (item.is_string() ? item.get<std::string>() : item.dump());
            return out;
        }
        return v.dump();
    }
    // Just outside a bound: the next integer, or a small step for floats.
    static std::string above(const nlohmann::json& max) {
        if (max.is_number_unsigned() && max.get<uint64_t>() == std::numeric_limits<uint64_t>::max())
            return "18446744073709551616";
        if (max.is_number_integer())
            return std::to_string(max.get<int64_t>() + 1);
        return nlohmann::json(max.get<double>() * (1 + 1e-6) + 1e-6).dump();
    }
    static std::string below(const nlohmann::json& min) {
        if (min.is_number_integer())
            return std::to_string(min.get<int64_t>() - 1);
        const double m = min.get<double>();
        return nlohmann::json(m - 1e-6 * std::max(1.0, std::abs(m))).dump();
    }
};

QTEST_GUILESS_MAIN(TestRunConfig)
#include "tst_runconfig.moc"
