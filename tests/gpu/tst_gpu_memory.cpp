// GPU memory and streams: out-of-memory becomes OutOfMemoryError and the process carries on, the
// caching allocator reuses blocks, pinned copies round-trip, events time work. Skips without GPU.
#include "gpucompare.h"
#include "support/testdata.h"

#include "backend/backend.h"
#include "core/errors.h"

#include <QtTest>

using namespace tb;
using namespace tb::test;

class TestGpuMemory : public QObject {
    Q_OBJECT

    std::unique_ptr<Backend> m_gpu;

private slots:
    void initTestCase() { TB_REQUIRE_GPU(m_gpu); }

    void outOfMemoryIsTypedAndSurvivable() {
        const MemoryStats before = m_gpu->memoryStats();
        const int64_t huge = int64_t{1} << 45; // 128 TiB of f32: more than any GPU has
        bool thrown = false;
        try {
            Tensor t = m_gpu->empty(Shape{huge}, DType::F32);
        } catch (const OutOfMemoryError& e) {
            thrown = true;
            std::printf("  %s\n", e.what());
            QCOMPARE(e.requested(), static_cast<uint64_t>(huge) * 4);
            QVERIFY(e.totalBytes() > 0);
            QVERIFY(e.freeBytes() <= e.totalBytes());
            QVERIFY(e.advice().find("accumulate_grad_batches") != std::string::npos);
            QVERIFY(e.advice().find("16-mixed") != std::string::npos);
            QVERIFY(std::string(e.what()).find("cuda:0") != std::string::npos);
        }
        QVERIFY(thrown);
        // The device still works after the failure.
        Tensor t = m_gpu->empty(Shape{1 << 20}, DType::F32);
        m_gpu->fill(t, 3.0f);
        const Tensor h = download(*m_gpu, t);
        QCOMPARE(h.data<float>()[12345], 3.0f);
        QVERIFY(m_gpu->memoryStats().deviceTotal == before.deviceTotal);
    }

    void cachingAllocatorReusesBlocks() {
        for (int i = 0; i < 3; ++i) { // warm up the size classes
            Tensor a = m_gpu->empty({1000, 1000}, DType::F32);
            Tensor b = m_gpu->empty({333}, DType::F16);
        }
        const uint64_t reserved = m_gpu->memoryStats().reserved;
        const uint64_t inUse = m_gpu->memoryStats().inUse;
        for (int i = 0; i < 100; ++i) {
            Tensor a = m_gpu->empty({1000, 1000}, DType::F32);
            Tensor b = m_gpu->empty({333}, DType::F16);
            QVERIFY(m_gpu->memoryStats().inUse >= inUse + 4000000);
        }
        QCOMPARE(m_gpu->memoryStats().reserved, reserved); // no new cudaMalloc in steady state
        QCOMPARE(m_gpu->memoryStats().inUse, inUse);
        QVERIFY(m_gpu->memoryStats().peakInUse >= inUse + 4000000);
        m_gpu->releaseCachedMemory();
        QVERIFY(m_gpu->memoryStats().reserved < reserved);
        m_gpu->resetPeakMemory();
        QCOMPARE(m_gpu->memoryStats().peakInUse, m_gpu->memoryStats().inUse);
    }

    void pinnedCopiesRoundTrip() {
        QVERIFY(m_gpu->supportsPinnedMemory());
        const Tensor ref = randomTensor({64, 3, 32, 32}, 7);
        for (int round = 0; round < 3; ++round) {
            Tensor pinned = m_gpu->emptyHost(ref.shape(), DType::F32, true);
            QVERIFY(pinned.pinned());
            std::memcpy(pinned.raw(), ref.raw(), ref.bytes());
            Tensor d = m_gpu->empty(ref.shape(), DType::F32);
            auto start = m_gpu->recordEvent();
            m_gpu->copy(pinned, d); // async on the copy stream; compute waits for it
            Tensor doubled = m_gpu->empty(ref.shape(), DType::F32);
            m_gpu->add(d, d, doubled);
            auto end = m_gpu->recordEvent();
            Tensor back = m_gpu->emptyHost(ref.shape(), DType::F32, true);
            m_gpu->copy(doubled, back); // returns when the data is on the host
            for (int64_t i = 0; i < ref.numel(); i += 97)
                QCOMPARE(back.data<float>()[i], 2.0f * ref.data<float>()[i]);
            end->wait();
            QVERIFY(end->completed());
            QVERIFY(end->elapsedMs(*start) >= 0.0f);
        }
    }

    void tensorsMayOutliveTheirBackend() {
        std::string reason;
        std::unique_ptr<Backend> second = createGpuOrReason(reason);
        QVERIFY2(second, reason.c_str());
        Tensor t = second->empty({4096}, DType::F32);
        Tensor pinned = second->emptyHost({4096}, DType::F32, true);
        second->fill(t, 1.0f);
        second.reset(); // the allocator and pools live on in the tensors' release functions
        t = Tensor();
        pinned = Tensor();
    }

    void misuseThrowsTypedErrors() {
        Tensor a = m_gpu->empty({10}, DType::F32);
        Tensor b = m_gpu->empty({10}, DType::F16);
        QVERIFY_THROWS_EXCEPTION(Error, m_gpu->copy(a, b));
        Tensor host = Tensor::host({10}, DType::F32);
        QVERIFY_THROWS_EXCEPTION(Error, m_gpu->add(host, a, a));
    }
};

QTEST_GUILESS_MAIN(TestGpuMemory)
#include "tst_gpu_memory.moc"
