// flush_denormals: every thread that computes a run's arithmetic flushes denormal floats to zero
// (or keeps them, when asked): the calling thread and each OpenMP pool thread, which do not
// inherit the setting from the thread that starts them, and the trainer sets it on its pool.
// Checked by reading each thread's MXCSR inside a parallel region and by the arithmetic itself.
#include "backend/cpu/cpubackend.h"
#include "core/floatenv.h"
#include "support/runconfigs.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <thread>

using namespace tb;

namespace {

class NullSink final : public EventSink {
public:
    void onEvent(const Event&) override {}
};

// How many threads of the calling thread's OpenMP team (its default size) flush denormals,
// and how large the team was.
std::pair<int, int> poolThreadsFlushing() {
    int flushing = 0, team = 0;
#pragma omp parallel reduction(+ : flushing, team)
    {
        flushing += flushDenormalsEnabled() ? 1 : 0;
        team += 1;
    }
    return {flushing, team};
}

// 1e-39 is denormal in f32 (the smallest normal is 1.18e-38).
constexpr float kDenormal = 1e-39f;

} // namespace

class TestCpuDenormals : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!denormalControlAvailable())
            QSKIP("this CPU has no flush-to-zero control (x86 MXCSR) to test");
        QVERIFY(std::fpclassify(kDenormal) == FP_SUBNORMAL);
    }

    void everyPoolThreadFlushes() {
        CpuBackend backend(2);
        const int team = backend.threads(); // 2, or fewer under OMP_THREAD_LIMIT
        backend.setFlushDenormals(true);
        QCOMPARE(poolThreadsFlushing(), std::make_pair(team, team));
        QVERIFY(flushDenormalsEnabled()); // the calling thread is one of the team
        backend.setFlushDenormals(false);
        QCOMPARE(poolThreadsFlushing(), std::make_pair(0, team));
        QVERIFY(!flushDenormalsEnabled());
    }

    // An SGD step large enough to run on every pool thread: a denormal weight reads as zero
    // (DAZ), and an update whose result would be denormal gives zero (FTZ); with the setting
    // off both are computed exactly.
    void denormalArithmeticIsFlushed_data() {
        QTest::addColumn<bool>("flush");
        QTest::newRow("flushed") << true;
        QTest::newRow("kept") << false;
    }
    void denormalArithmeticIsFlushed() {
        QFETCH(bool, flush);
        CpuBackend backend(2);
        backend.setFlushDenormals(flush);
        constexpr int64_t n = 1 << 20; // far above the pool's grain: every thread takes a part
        Tensor param = backend.empty({n}, DType::F32), grad = backend.empty({n}, DType::F32);
        float* p = param.data<float>();
        float* g = grad.data<float>();
        for (int64_t i = 0; i < n; ++i) {
            const bool denormalInput = i % 2 == 0;
            p[i] = denormalInput ? kDenormal : 3e-38f;
            g[i] = denormalInput ? 0.0f : 2.9e-37f; // 3e-38 - 0.1 * 2.9e-37 = 1e-39
        }
        SgdParams sgd;
        sgd.lr = 0.1f;
        backend.sgdStep(param, grad, nullptr, sgd, nullptr, nullptr);
        int64_t zeros = 0, denormals = 0;
        for (int64_t i = 0; i < n; ++i) {
            zeros += p[i] == 0.0f;
            denormals += std::fpclassify(p[i]) == FP_SUBNORMAL;
        }
        QCOMPARE(zeros, flush ? n : int64_t{0});
        QCOMPARE(denormals, flush ? int64_t{0} : n);
        backend.setFlushDenormals(false);
    }

    // A run sets the mode on the thread it trains on and on that thread's compute pool, and a
    // later run on the same thread with flush_denormals=false clears it again (the window
    // trains every run on one worker thread).
    void aRunSetsItOnItsThreads() {
        QTemporaryDir dir;
        std::pair<int, int> after[2];
        std::thread worker([&] {
            for (int i = 0; i < 2; ++i) {
                RunConfig c = test::shapesRunConfig(dir.path().toStdString());
                c.set("max_epochs", "0");
                c.set("max_steps", "2");
                c.set("flush_denormals", i == 0 ? "true" : "false");
                NullSink sink;
                Trainer trainer(c, sink);
                if (trainer.run().status != RunStatus::Completed)
                    return;
                after[i] = poolThreadsFlushing();
            }
        });
        worker.join();
        const int team = std::min(2, omp_get_thread_limit()); // the config's threads=2
        QCOMPARE(after[0], std::make_pair(team, team));
        QCOMPARE(after[1], std::make_pair(0, team));
    }
};

QTEST_GUILESS_MAIN(TestCpuDenormals)
#include "tst_cpu_denormals.moc"
