// Double-buffered input batches: which slot each batch is copied into and which event its copy
// waits for, watched on a backend that stands in for a GPU (host memory, numbered events). The
// GPU check measures the overlap itself; this pins down the order that makes it safe.
#include "support/hostonlybackend.h"
#include "train/devicebatchslots.h"

#include <QtTest>

#include <vector>

using namespace tb;

namespace {

class NumberedEvent final : public StreamEvent {
public:
    explicit NumberedEvent(int number) : id(number) {}
    bool completed() override { return true; }
    void wait() override {}
    float elapsedMs(const StreamEvent&) override { return 0.0f; }
    const int id;
};

// A "device" whose memory is host memory: records every copy to it and the event it waited for.
class WatchedDevice final : public test::HostOnlyBackend {
public:
    struct Copy {
        const void* dst;
        int waitedFor; // the event's number; 0: all compute issued so far
    };
    Device device() const override { return Device::cuda(0); }
    std::unique_ptr<StreamEvent> recordEvent() override {
        return std::make_unique<NumberedEvent>(++m_events);
    }
    void copyToDevice(const Tensor& src, Tensor& dst, StreamEvent* reusable) override {
        copies.push_back({dst.raw(), reusable ? static_cast<NumberedEvent*>(reusable)->id : 0});
        copy(src, dst);
    }
    int events() const { return m_events; }
    std::vector<Copy> copies;

private:
    int m_events = 0;
};

// A host batch of n inputs (4 floats each, all `value`) and n labels.
std::pair<Tensor, Tensor> batch(int64_t n, float value) {
    Tensor x = Tensor::host({n, 4}, DType::F32), y = Tensor::host({n}, DType::I32);
    for (int64_t i = 0; i < x.numel(); ++i)
        x.data<float>()[i] = value;
    for (int64_t i = 0; i < n; ++i)
        y.data<int32_t>()[i] = static_cast<int32_t>(value);
    return {x, y};
}

} // namespace

class TestDeviceBatchSlots : public QObject {
    Q_OBJECT
private slots:
    // The trainer's order: stage, compute (forward, backward), consumed, stage the next.
    void batchesAlternateAndWaitForTheBatchBeforeLast() {
        WatchedDevice device;
        DeviceBatchSlots batches(device);
        std::vector<const void*> slotOf;
        for (int b = 0; b < 5; ++b) {
            const auto [hx, hy] = batch(8, static_cast<float>(b));
            const auto [x, y] = batches.stage(hx, hy);
            QCOMPARE(x.data<float>()[31], static_cast<float>(b)); // the batch's values arrived
            QCOMPARE(y.data<int32_t>()[7], b);
            QVERIFY(x.raw() != hx.raw());
            slotOf.push_back(x.raw());
            batches.consumed(); // event number b + 1
        }
        QCOMPARE(device.events(), 5);
        QVERIFY(slotOf[0] != slotOf[1]);
        for (int b = 2; b < 5; ++b)
            QCOMPARE(slotOf[b], slotOf[b - 2]); // two buffers, in turn
        // Inputs and labels of batch b: new memory for the first two (wait for all compute),
        // then the event recorded once batch b - 2 was consumed, never anything later.
        QCOMPARE(device.copies.size(), std::size_t{10});
        for (int b = 0; b < 5; ++b)
            for (int t = 0; t < 2; ++t)
                QCOMPARE(device.copies[2 * b + t].waitedFor, b < 2 ? 0 : b - 1);
    }

    void aShortBatchReusesItsSlotAndALargerOneWaitsForAll() {
        WatchedDevice device;
        DeviceBatchSlots batches(device);
        for (int b = 0; b < 2; ++b) {
            const auto [hx, hy] = batch(8, 1.0f);
            (void)batches.stage(hx, hy);
            batches.consumed();
        }
        const auto [sx, sy] = batch(3, 2.0f); // an epoch's short last batch
        const auto [x, y] = batches.stage(sx, sy);
        QCOMPARE(x.shape(), (Shape{3, 4}));
        QCOMPARE(y.numel(), int64_t{3});
        QCOMPARE(device.copies.back().waitedFor, 1);
        batches.consumed();
        const auto [bx, by] = batch(16, 3.0f); // larger than slot 1's buffers: new memory
        (void)batches.stage(bx, by);
        QCOMPARE(device.copies.back().waitedFor, 0);
        QCOMPARE(device.copies[device.copies.size() - 2].waitedFor, 0);
    }

    // A batch staged but never marked consumed (a step that threw) frees its slot only once
    // all compute is done: the next copy into it waits for everything.
    void anUnconsumedSlotWaitsForAllCompute() {
        WatchedDevice device;
        DeviceBatchSlots batches(device);
        const auto [hx, hy] = batch(4, 1.0f);
        (void)batches.stage(hx, hy);
        batches.consumed();
        (void)batches.stage(hx, hy);
        (void)batches.stage(hx, hy); // slot 0 again, consumed once: its event
        QCOMPARE(device.copies.back().waitedFor, 1);
        (void)batches.stage(hx, hy); // slot 1, never consumed
        QCOMPARE(device.copies.back().waitedFor, 0);
    }

    // Where the backend computes in host memory the batch is used where it is.
    void onTheHostNothingIsCopied() {
        test::HostOnlyBackend host;
        DeviceBatchSlots batches(host);
        const auto [hx, hy] = batch(4, 1.0f);
        const auto [x, y] = batches.stage(hx, hy);
        QCOMPARE(x.raw(), hx.raw());
        QCOMPARE(y.raw(), hy.raw());
        batches.consumed(); // records no event (HostOnlyBackend would trap)
    }
};

QTEST_GUILESS_MAIN(TestDeviceBatchSlots)
#include "tst_devicebatchslots.moc"
