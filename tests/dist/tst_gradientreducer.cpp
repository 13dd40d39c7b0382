// The bucketed, overlapped all-reduce (run under mpirun -np 2): whatever the bucket size, and
// whether buckets start during backward or after it, every rank ends with the same gradients,
// bit for bit the mean of the ranks' own (the sum of two floats does not depend on grouping).
#include "backend/backend.h"
#include "backend/devices.h"
#include "dist/dataparallel.h"
#include "dist/gradientreducer.h"
#include "dist/mpicommunicator.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <cstring>

using namespace tb;

namespace {
// One backward pass of an MLP on data that differs by rank; the gradients as plain floats.
struct RankPass {
    std::unique_ptr<Backend> backend = createBackend(Device::cpu(), 1);
    Graph graph{modelSpec("mlp", Shape{8}, 3, nlohmann::json::object()), *backend, DType::F32, 1};

    void backward(int rank) {
        Tensor x = Tensor::host({16, 8}, DType::F32);
        Tensor y = Tensor::host({16}, DType::I32);
        for (int64_t i = 0; i < x.numel(); ++i)
            x.data<float>()[i] = 0.01f * static_cast<float>((i * 37 + rank * 11) % 101) - 0.5f;
        for (int64_t i = 0; i < 16; ++i)
            y.data<int32_t>()[i] = static_cast<int32_t>((i + rank) % 3);
        Tensor sums = backend->empty({2}, DType::F32);
        backend->fill(sums, 0.0f);
        graph.zeroGrad();
        const Tensor& logits = graph.forward(x, true);
        Tensor& dlogits = graph.logitsGrad();
        backend->softmaxCrossEntropy(logits, y, 0.0f, sums, &dlogits, nullptr, 1.0f);
        graph.backward(dlogits);
    }
    std::vector<float> gradients() {
        std::vector<float> all;
        for (Param* p : graph.params()) {
            Tensor h = Tensor::host(p->grad.shape(), DType::F32);
            backend->copy(p->grad, h);
            all.insert(all.end(), h.data<float>(), h.data<float>() + h.numel());
        }
        return all;
    }
};
} // namespace

class TestGradientReducer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!MpiCommunicator::launchedByMpi() || MpiCommunicator::world().size() != 2)
            QSKIP("runs under mpirun -np 2 (ctest starts it so)");
    }

    void everyBucketingGivesTheMeanBitForBit_data() {
        QTest::addColumn<int>("bucketBytes");
        QTest::addColumn<bool>("overlap");
        QTest::newRow("one bucket, after backward") << 0 << false;
        QTest::newRow("one bucket, overlapped") << 0 << true;
        QTest::newRow("256-byte buckets, overlapped") << 256 << true;
        QTest::newRow("256-byte buckets, after backward") << 256 << false;
        QTest::newRow("25 MB buckets, overlapped") << (25 << 20) << true;
    }
    void everyBucketingGivesTheMeanBitForBit() {
        QFETCH(int, bucketBytes);
        QFETCH(bool, overlap);
        Communicator& comm = MpiCommunicator::world();
        RankPass pass;
        pass.backward(comm.rank());
        // The reference: both ranks' own gradients, summed in one plain all-reduce, halved.
        std::vector<float> expected = pass.gradients();
        comm.allReduceSum(expected.data(), expected.size());
        for (float& v : expected)
            v *= 0.5f;

        GradientReducer reducer(*pass.backend, pass.graph.params(), comm, nullptr,
                                static_cast<std::size_t>(bucketBytes));
        if (bucketBytes == 256)
            QVERIFY2(reducer.bucketCount() > 2, "small buckets split the gradients");
        // The last layer's parameters come first: backward finishes them first.
        const auto layout = reducer.bucketLayout();
        QCOMPARE(layout.front().front(), pass.graph.params().size() - 1);
        if (overlap)
            pass.graph.setBackwardHook(
                [&](Layer& layer) { reducer.gradientsReady(layer.params()); });
        reducer.beginStep();
        pass.backward(comm.rank());
        pass.graph.setBackwardHook({});
        const ExposedTime exposed = reducer.finish();
        QVERIFY(exposed.hostMs >= 0.0 && !exposed.waitStart);
        const std::vector<float> reduced = pass.gradients();
        QCOMPARE(reduced.size(), expected.size());
        QVERIFY(std::memcmp(reduced.data(), expected.data(), reduced.size() * sizeof(float)) == 0);
    }

    // Each rank's probe opens its CUDA context on the GPU the rank trains on (its local rank),
    // chosen before anything calls CUDA, not on GPU 0 for every rank; a CPU rank opens none.
    void eachRankProbesOnlyItsOwnGpu() {
        Communicator& comm = MpiCommunicator::world();
        const auto gpuOf = [&](const std::string& device) {
            RunConfig c;
            c.set("device", device);
            return DataParallel(comm, c).gpuOfThisRank();
        };
        QCOMPARE(gpuOf("auto"), comm.localRank());
        QCOMPARE(gpuOf("cuda"), comm.localRank());
        QCOMPARE(gpuOf("cuda:1"), 1);
        QCOMPARE(gpuOf("cpu"), -1);

        // One run on both ranks: rank 0's folder (rank 0 alone saves), the same config on both.
        QTemporaryDir dir;
        char folder[512] = {};
        std::snprintf(folder, sizeof folder, "%s", dir.path().toUtf8().constData());
        comm.broadcastBytes(folder, sizeof folder, 0);
        RunConfig c = test::shapesRunConfig(folder, "mlp");
        c.set("distributed", "mpi");
        c.set("device", "auto");
        c.set("max_steps", "1");
        c.set("threads", "1");
        test::RunLog log;
        TrainerOptions options;
        Trainer trainer(c, log, options);
        const RunFinishedEvent finished = trainer.run({});
        QVERIFY2(finished.status == RunStatus::Completed, finished.error.c_str());
        QCOMPARE(cudaProbeDevice(), comm.localRank());
    }

    void collectivesOfDifferentKinds() {
        Communicator& comm = MpiCommunicator::world();
        const std::vector<uint64_t> ids = comm.allGather(100 + comm.rank());
        QCOMPARE(ids, (std::vector<uint64_t>{100, 101}));
        std::vector<double> figures{1.0 + comm.rank(), 10.0};
        comm.allReduceSum(figures.data(), figures.size());
        QCOMPARE(figures, (std::vector<double>{3.0, 20.0}));
        const std::vector<double> gathered = comm.gather({double(comm.rank()), 7.0}, 0);
        if (comm.rank() == 0)
            QCOMPARE(gathered, (std::vector<double>{0.0, 7.0, 1.0, 7.0}));
        else
            QVERIFY(gathered.empty());
        float value = comm.rank() == 0 ? 42.0f : -1.0f;
        comm.broadcast(&value, 1, 0);
        QCOMPARE(value, 42.0f);
    }
};

QTEST_GUILESS_MAIN(TestGradientReducer)
#include "tst_gradientreducer.moc"
