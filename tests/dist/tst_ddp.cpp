// Whole data-parallel jobs of the CLI on this machine (mpirun -np 2, one thread per rank):
// 2 ranks x batch 32 train like 1 rank x batch 64 (losses and final weights within float32
// reduction noise) for SGD and AdamW, with and without accumulation, over shared memory and
// over TCP on loopback (two machines' transport); overlap and bucket size change nothing, bit
// for bit; a resumed job continues bit-exactly; a rank given another run is named at start;
// and a rank killed mid-run fails the run, named, within the timeout, the store intact.
#include "io/safetensors.h"
#include "store/runseries.h"
#include "store/runstore.h"
#include "support/buildtree.h"

#include <algorithm>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <set>
#include <thread>

using namespace tb;

namespace {

struct Result {
    int exitCode = -1;
    QJsonObject json;
    QString err;
};

Result run(const QString& program, const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.start(program, args);
    Result r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitCode();
    r.err = QString::fromUtf8(p.readAllStandardError());
    const QByteArray out = p.readAllStandardOutput().trimmed();
    r.json = QJsonDocument::fromJson(out.mid(out.lastIndexOf('\n') + 1)).object();
    return r;
}

QStringList mpirun(int ranks, const QStringList& mpiOptions = {}) {
    return QStringList{"--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np",
                       QString::number(ranks)} +
           mpiOptions + QStringList{test::cliPath()};
}

QStringList sets(const QStringList& keyValues) {
    QStringList out;
    for (const QString& kv : keyValues)
        out << "--set" << kv;
    return out;
}

// The parameters and buffers of a checkpoint (not the optimizer's state), as floats.
std::map<std::string, std::vector<float>> weightsOf(const QString& path) {
    std::map<std::string, std::vector<float>> out;
    for (const auto& [name, t] : readSafetensors(path.toStdString()).tensors)
        if (name.rfind("optimizer.", 0) != 0 && t.dtype() == DType::F32)
            out[name].assign(t.data<float>(), t.data<float>() + t.numel());
    return out;
}

// The largest difference between two checkpoints' weights, relative to max(1, |value|).
double weightDifference(const QString& a, const QString& b) {
    const auto wa = weightsOf(a), wb = weightsOf(b);
    if (wa.size() != wb.size() || wa.empty())
        return INFINITY;
    double worst = 0.0;
    for (const auto& [name, va] : wa) {
        const auto& vb = wb.at(name);
        if (va.size() != vb.size())
            return INFINITY;
        for (std::size_t i = 0; i < va.size(); ++i)
            worst = std::max(worst, std::abs(double(va[i]) - vb[i]) /
                                        std::max(1.0, std::abs(double(va[i]))));
    }
    return worst;
}

bool sameBits(const QString& a, const QString& b) {
    const auto wa = weightsOf(a), wb = weightsOf(b);
    if (wa.size() != wb.size())
        return false;
    for (const auto& [name, va] : wa)
        if (va.size() != wb.at(name).size() ||
            std::memcmp(va.data(), wb.at(name).data(), va.size() * sizeof(float)) != 0)
            return false;
    return true;
}

} // namespace

class TestDdp : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_job = 0;

    QStringList base(const QString& model, const QString& optimizer) {
        const bool images = model != "mlp";
        QStringList kv{"model=" + model,
                       "optimizer=" + optimizer,
                       "lr=" + QString(optimizer == "adamw" ? "0.001" : "0.05"),
                       "lr_schedule=constant",
                       "max_epochs=2",
                       "log_every_n_steps=1",
                       "num_workers=0",
                       "device=cpu",
                       "threads=1",
                       "checkpoint_dir=" + m_dir.filePath(QString("job%1").arg(++m_job))};
        kv << (images ? QStringList{"dataset=shapes", "data.image_size=28",
                                    "data.synthetic_samples=256"}
                      : QStringList{"dataset=spirals", "data.synthetic_samples=512"});
        return QStringList{"train", "--no-db", "--json", "--quiet"} + sets(kv);
    }

    // The step rows of the run a job writes to `db`: 0 until it has made the file and the run.
    static int64_t recordedSteps(const QString& db) {
        try {
            const auto store = openRunStoreForQueries(db.toStdString());
            const auto runs = store->listRuns({});
            return runs.empty() ? 0 : static_cast<int64_t>(store->stepMetrics(runs[0].id).size());
        } catch (const std::exception&) {
            return 0;
        }
    }

private slots:
    void initTestCase() {
        const Result probe = run(TB_MPIRUN, {"--version"});
        if (probe.exitCode != 0)
            QSKIP("mpirun is not installed (openmpi-bin)");
    }

    void twoRanksTrainLikeOneWithTheirBatch_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<int>("accumulate");
        QTest::addColumn<QStringList>("mpiOptions");
        const QStringList shm, tcp{"--mca", "btl", "tcp,self"};
        QTest::newRow("mlp sgd") << "mlp"
                                 << "sgd" << 1 << shm;
        QTest::newRow("mlp adamw") << "mlp"
                                   << "adamw" << 1 << shm;
        QTest::newRow("mlp sgd, accumulation 2") << "mlp"
                                                 << "sgd" << 2 << shm;
        QTest::newRow("lenet5 sgd") << "lenet5"
                                    << "sgd" << 1 << shm;
        QTest::newRow("lenet5 adamw, accumulation 2") << "lenet5"
                                                      << "adamw" << 2 << shm;
        QTest::newRow("lenet5 sgd over TCP") << "lenet5"
                                             << "sgd" << 1 << tcp;
    }
    void twoRanksTrainLikeOneWithTheirBatch() {
        QFETCH(QString, model);
        QFETCH(QString, optimizer);
        QFETCH(int, accumulate);
        QFETCH(QStringList, mpiOptions);
        const QStringList acc = sets({"accumulate_grad_batches=" + QString::number(accumulate)});
        const Result one =
            run(test::cliPath(), base(model, optimizer) + acc + sets({"batch_size=64"}));
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const Result two = run(TB_MPIRUN, mpirun(2, mpiOptions) + base(model, optimizer) + acc +
                                              sets({"batch_size=32", "distributed=mpi"}));
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        QCOMPARE(two.json["steps"].toInt(), one.json["steps"].toInt());
        const QJsonArray e1 = one.json["per_epoch"].toArray(), e2 = two.json["per_epoch"].toArray();
        QCOMPARE(e2.size(), e1.size());
        for (qsizetype i = 0; i < e1.size(); ++i)
            for (const char* key : {"train_loss", "val_loss"}) {
                const double a = e1[i].toObject()[key].toDouble(),
                             b = e2[i].toObject()[key].toDouble();
                QVERIFY2(
                    std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(a)),
                    qPrintable(
                        QString("%1 of epoch %2: %3 vs %4").arg(key).arg(i + 1).arg(a).arg(b)));
            }
        const double diff =
            weightDifference(one.json["checkpoint"].toString(), two.json["checkpoint"].toString());
        QVERIFY2(diff < 1e-5, qPrintable(QString("final weights differ by %1").arg(diff)));
    }

    // The same job with the all-reduce in one bucket after backward, or in many overlapped:
    // the sums are the same additions, so the weights are the same bits.
    void overlapAndBucketsChangeNoBit() {
        QStringList checkpoints;
        for (const QStringList& ddp : {QStringList{"ddp.overlap=false", "ddp.bucket_mb=0"},
                                       QStringList{"ddp.overlap=true", "ddp.bucket_mb=1"}}) {
            const Result r =
                run(TB_MPIRUN, mpirun(2) + base("lenet5", "sgd") +
                                   sets(QStringList{"batch_size=32", "distributed=mpi"} + ddp));
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            checkpoints << r.json["checkpoint"].toString();
        }
        QVERIFY(sameBits(checkpoints[0], checkpoints[1]));
    }

    // Two epochs straight, or one and a resume for the second: the same weights, bit for bit.
    void aResumedJobContinuesBitExactly() {
        const QStringList job = base("mlp", "sgd") + sets({"batch_size=32", "distributed=mpi"});
        const Result straight = run(TB_MPIRUN, mpirun(2) + job);
        QVERIFY2(straight.exitCode == 0, qPrintable(straight.err));
        const Result first = run(TB_MPIRUN, mpirun(2) + job + sets({"max_steps=8"}));
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        const Result resumed =
            run(TB_MPIRUN, mpirun(2) +
                               QStringList{"train", "--no-db", "--json", "--quiet", "--resume",
                                           first.json["checkpoint"].toString()} +
                               sets({"max_steps=-1"}));
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(resumed.json["steps"].toInt(), straight.json["steps"].toInt());
        QVERIFY(sameBits(straight.json["checkpoint"].toString(),
                         resumed.json["checkpoint"].toString()));
    }

    // fmnist-cnn has batch norm: with sync_batchnorm two ranks' statistics together are the
    // one rank's of the same 64 samples, so the job trains as that rank does.
    void syncBatchNormTrainsLikeOneRank() {
        const Result one =
            run(test::cliPath(), base("fmnist-cnn", "sgd") + sets({"batch_size=64"}));
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const Result two =
            run(TB_MPIRUN, mpirun(2) + base("fmnist-cnn", "sgd") +
                               sets({"batch_size=32", "distributed=mpi", "sync_batchnorm=true"}));
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        const double diff =
            weightDifference(one.json["checkpoint"].toString(), two.json["checkpoint"].toString());
        QVERIFY2(diff < 1e-4,
                 qPrintable(QString("final weights and statistics differ by %1").arg(diff)));
    }

    // A job stopped after 3 steps goes on with another rank count and the same effective
    // batch (2 x 32 <-> 1 x 64): the rest of the epoch is the same samples, so it ends where
    // the straight single-rank run does.
    void resumesOnAnotherRankCount_data() {
        QTest::addColumn<int>("ranksBefore");
        QTest::addColumn<int>("ranksAfter");
        QTest::newRow("2 ranks, then 1") << 2 << 1;
        QTest::newRow("1 rank, then 2") << 1 << 2;
    }
    void resumesOnAnotherRankCount() {
        QFETCH(int, ranksBefore);
        QFETCH(int, ranksAfter);
        const auto shape = [](int ranks) {
            return sets({"batch_size=" + QString::number(64 / ranks), "distributed=mpi"});
        };
        const Result straight =
            run(test::cliPath(), base("lenet5", "sgd") + sets({"batch_size=64"}));
        QVERIFY2(straight.exitCode == 0, qPrintable(straight.err));
        const Result first = run(TB_MPIRUN, mpirun(ranksBefore) + base("lenet5", "sgd") +
                                                shape(ranksBefore) + sets({"max_steps=3"}));
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        QStringList resume{"train", "--no-db", "--json", "--resume",
                           first.json["checkpoint"].toString()};
        const Result resumed = run(TB_MPIRUN, mpirun(ranksAfter) + resume + shape(ranksAfter) +
                                                  sets({"max_steps=-1"}));
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY2(resumed.err.contains("epoch 1 goes on 192 samples into its order"),
                 qPrintable(resumed.err));
        QCOMPARE(resumed.json["steps"].toInt(), straight.json["steps"].toInt());
        const double diff = weightDifference(straight.json["checkpoint"].toString(),
                                             resumed.json["checkpoint"].toString());
        QVERIFY2(diff < 1e-5, qPrintable(QString("final weights differ by %1").arg(diff)));
    }

    // Rank 0 alone writes the store: one run, its steps with every rank's times and the
    // all-reduce the overlap did not hide, readable as series ("rank1/step_ms").
    void rankZeroRecordsEveryRank() {
        const QString db = m_dir.filePath("ranks.db");
        QStringList job = base("lenet5", "sgd") + sets({"batch_size=32", "distributed=mpi"});
        job.replace(job.indexOf("--no-db"), "--db");
        job.insert(job.indexOf("--db") + 1, db);
        const Result r = run(TB_MPIRUN, mpirun(2) + job);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto store = openRunStoreForQueries(db.toStdString());
        const auto runs = store->listRuns({});
        QCOMPARE(runs.size(), std::size_t{1});
        const std::vector<StepEvent> steps = store->stepMetrics(runs[0].id);
        QVERIFY(!steps.empty());
        for (const StepEvent& s : steps) {
            QCOMPARE(s.ranks.size(), std::size_t{2});
            QVERIFY(s.ranks[1].stepMs > 0.0 && s.ranks[1].computeMs > 0.0);
            QVERIFY(s.allReduceMs >= 0.0);
        }
        const RunSeries series = RunSeries::load(*store, runs[0]);
        for (const char* name : {"allreduce_ms", "rank0/step_ms", "rank1/allreduce_ms"})
            QVERIFY2(std::count(series.names().begin(), series.names().end(), name) == 1, name);
        QCOMPARE(series.points("rank1/step_ms", SeriesX::Step).x.size(), steps.size());
    }

    // A detector's job: each rank computes YOLOv8's loss on its own images on the host, the
    // gradients are all-reduced, and rank 0 records the job's loss terms (the ranks' means,
    // adding up to the loss) and validates with COCO's figures.
    void aDetectorTrainsDataParallel() {
        const QString db = m_dir.filePath("detect.db");
        const QStringList job =
            QStringList{"train", "--db", db, "--json", "--quiet"} +
            sets({"dataset=shapes-detect", "data.imgsz=64", "data.synthetic_samples=40",
                  "batch_size=8", "max_epochs=1", "log_every_n_steps=1", "num_workers=0",
                  "device=cpu", "threads=1", "distributed=mpi",
                  "checkpoint_dir=" + m_dir.filePath(QString("job%1").arg(++m_job))});
        const Result r = run(TB_MPIRUN, mpirun(2) + job);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto store = openRunStoreForQueries(db.toStdString());
        const auto runs = store->listRuns({});
        QCOMPARE(runs.size(), std::size_t{1});
        const std::vector<StepEvent> steps = store->stepMetrics(runs[0].id);
        QCOMPARE(steps.size(), std::size_t{3}); // 36 images, 2 ranks x 8 a step: 2 full + 1
        for (const StepEvent& s : steps) {
            QCOMPARE(s.ranks.size(), std::size_t{2});
            QCOMPARE(s.lossTerms.size(), std::size_t{3});
            const double sum = s.lossTerms[0].value + s.lossTerms[1].value + s.lossTerms[2].value;
            QVERIFY2(std::abs(sum - s.loss) <= 1e-5 * s.loss,
                     qPrintable(QString("%1 vs %2").arg(sum).arg(s.loss)));
        }
        const std::vector<EpochEvent> epochs = store->epochMetrics(runs[0].id);
        QCOMPARE(epochs.size(), std::size_t{1});
        QVERIFY(epochs[0].validation.detection.has_value());
        QCOMPARE(epochs[0].validation.detection->images, int64_t{4});
        const RunSeries series = RunSeries::load(*store, runs[0]);
        for (const char* name : {"train/box_loss", "train/dfl_loss", "val/map50_95"})
            QVERIFY2(std::count(series.names().begin(), series.names().end(), name) == 1, name);
    }

    // MPMD: rank 1 is given another learning rate. The job fails at start, naming it.
    void aRankGivenAnotherRunIsNamed() {
        const QStringList rank0 = base("mlp", "sgd") + sets({"distributed=mpi"});
        QStringList rank1 = rank0;
        rank1 << "--set"
              << "lr=0.2";
        const QStringList mpi{"--allow-run-as-root", "--oversubscribe", "-np", "1",
                              test::cliPath()};
        const Result r =
            run(TB_MPIRUN, mpi + rank0 + QStringList{":", "-np", "1", test::cliPath()} + rank1);
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("rank 1 was given another run than rank 0"), qPrintable(r.err));
    }

    // `profile --nproc 2`: both ranks profile the same steps; the trace has a process per rank,
    // each with every layer's passes, the all-reduce and the optimizer of every profiled step.
    void aProfiledJobTracesEveryRank() {
        qputenv("XDG_DATA_HOME", m_dir.filePath("data").toUtf8()); // the roofline's cache
        const QString trace = m_dir.filePath("job-trace.json");
        const Result r =
            run(test::cliPath(),
                QStringList{"profile", "--nproc", "2", "--steps", "3", "--warmup", "1", "--no-db",
                            "--json", "--trace", trace} +
                    sets({"dataset=spirals", "data.synthetic_samples=2048", "model=mlp",
                          "batch_size=32", "num_workers=0", "device=cpu", "threads=1"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.json["steps"].toInt(), 3);
        QFile file(trace);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray events =
            QJsonDocument::fromJson(file.readAll()).object()["traceEvents"].toArray();
        std::map<int, std::map<QString, int>> perRank; // rank -> span name -> complete events
        std::set<int> named;
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            if (e["ph"] == "X")
                ++perRank[e["pid"].toInt()][e["name"].toString()];
            else if (e["name"] == "process_name")
                named.insert(e["pid"].toInt());
        }
        QCOMPARE(named, (std::set<int>{0, 1}));
        QCOMPARE(perRank.size(), std::size_t{2});
        QCOMPARE(perRank[1], perRank[0]); // the same spans on both ranks
        for (const char* span : {"all-reduce", "optimizer", "broadcast-buffers"})
            QVERIFY2(perRank[1][span] == 3, span);
    }

    // SIGTERM to `train --nproc 2`: the launcher asks the ranks to stop, they agree on a step
    // and stop after it, rank 0 saves, and the job exits 143 as one process would, its run
    // stopped with a checkpoint to resume.
    void aSignalledJobStopsWithACheckpoint() {
        const QString db = m_dir.filePath("stopped.db");
        QProcess job;
        job.start(test::cliPath(),
                  QStringList{"train", "--nproc", "2", "--db", db, "--quiet"} +
                      sets({"dataset=spirals", "data.synthetic_samples=60000", "model=mlp",
                            "max_epochs=100", "batch_size=32", "num_workers=0", "device=cpu",
                            "threads=1", "checkpoint_dir=" + m_dir.filePath("stopped")}));
        QVERIFY(job.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(recordedSteps(db) > 5, 60000);
        job.terminate();
        QVERIFY(job.waitForFinished(60000));
        QCOMPARE(job.exitCode(), 143);
        QVERIFY2(job.readAllStandardError().contains("stopped by SIGUSR1, the job's stop request"),
                 "rank 0 says why it stopped");
        const auto store = openRunStoreForQueries(db.toStdString());
        const RunRecord run = store->listRuns({}).at(0);
        QVERIFY(run.status == RunStatus::Stopped);
        QVERIFY(!run.checkpoint.empty() && QFile::exists(QString::fromStdString(run.checkpoint)));
        QVERIFY(store->checkIntegrity().empty());
    }

    // Rank 1 killed mid-run: rank 0 notices within the timeout, records the run as failed
    // naming rank 1, and the job ends; the store is intact with every step written before.
    void aKilledRankFailsTheRunNamed() {
        const QString db = m_dir.filePath("killed.db");
        QProcess job;
        job.start(test::cliPath(),
                  QStringList{"train", "--nproc", "2", "--db", db, "--quiet"} +
                      sets({"dataset=spirals", "data.synthetic_samples=60000", "model=mlp",
                            "max_epochs=100", "batch_size=32", "num_workers=0", "device=cpu",
                            "ddp.timeout_s=3", "checkpoint_dir=" + m_dir.filePath("killed")}));
        QVERIFY(job.waitForStarted());
        // Steps recorded: the job trains (a job that ended first says why). Then the second
        // rank goes.
        int64_t before = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            (before = recordedSteps(db)) > 5 || job.state() == QProcess::NotRunning, 60000);
        QVERIFY2(job.state() == QProcess::Running, job.readAllStandardError().constData());
        QProcess pgrep;
        pgrep.start("pgrep", {"-f", "-n", QString("%1 train --db %2").arg(test::cliPath(), db)});
        QVERIFY(pgrep.waitForFinished());
        const qint64 victim = pgrep.readAllStandardOutput().trimmed().toLongLong();
        QVERIFY(victim > 0);
        const auto killedAt = std::chrono::steady_clock::now();
        ::kill(static_cast<pid_t>(victim), SIGKILL);
        QVERIFY(job.waitForFinished(60000));
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - killedAt).count();
        QVERIFY2(seconds < 3 + 2 + 10, qPrintable(QString::number(seconds))); // timeout + probe
        QCOMPARE(job.exitCode(), 1);

        const std::unique_ptr<RunStore> store = openRunStoreForQueries(db.toStdString());
        const auto runs = store->listRuns({});
        QCOMPARE(runs.size(), std::size_t{1});
        QVERIFY(runs[0].status == RunStatus::Failed);
        QVERIFY2(QString::fromStdString(runs[0].error).startsWith("rank 1 died or hangs"),
                 runs[0].error.c_str());
        QVERIFY(static_cast<int64_t>(store->stepMetrics(runs[0].id).size()) >= before);
        QVERIFY(store->checkIntegrity().empty());
    }
};

QTEST_GUILESS_MAIN(TestDdp)
#include "tst_ddp.moc"
