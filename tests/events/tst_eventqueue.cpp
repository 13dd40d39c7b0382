// EventQueue: events pushed from several threads while another drains arrive exactly once, in
// each producer's order, each with the source it was tagged with.
#include "events/eventqueue.h"

#include <QtTest>

#include <thread>

using namespace tb;

class TestEventQueue : public QObject {
    Q_OBJECT
private slots:
    void drainEmptiesTheQueue() {
        EventQueue q;
        QVERIFY(q.drain().empty());
        q.onEvent(LogEvent{LogLevel::Info, "a", 0.0});
        q.onEvent(StepEvent{});
        QCOMPARE(q.size(), std::size_t{2});
        const std::vector<TaggedEvent> got = q.drain();
        QCOMPARE(got.size(), std::size_t{2});
        QVERIFY(std::holds_alternative<LogEvent>(got[0].event));
        QVERIFY(std::holds_alternative<StepEvent>(got[1].event));
        QVERIFY(got[0].source.runId.empty()); // queued untagged: about no run
        QCOMPARE(q.size(), std::size_t{0});
    }

    // Two runs (or two ranks of one) writing through their own tagging sinks stay apart.
    void taggingSinksKeepTheirSource() {
        EventQueue q;
        TaggingSink a(q, {"run-a", 0}), b(q, {"run-b", 1});
        a.onEvent(StepEvent{});
        b.onEvent(EpochEvent{});
        q.onEvent(SystemSampleEvent{});
        const std::vector<TaggedEvent> got = q.drain();
        QCOMPARE(got.size(), std::size_t{3});
        QVERIFY((got[0].source == EventSource{"run-a", 0}));
        QVERIFY((got[1].source == EventSource{"run-b", 1}));
        QVERIFY(std::holds_alternative<EpochEvent>(got[1].event));
        QVERIFY((got[2].source == EventSource{}));
    }

    void concurrentProducersLoseNothing() {
        constexpr int kProducers = 3, kEach = 20000;
        EventQueue q;
        std::vector<std::jthread> producers;
        for (int p = 0; p < kProducers; ++p)
            producers.emplace_back([&q, p] {
                for (int i = 1; i <= kEach; ++i) {
                    StepEvent s;
                    s.epoch = p;
                    s.step = i;
                    q.onEvent(s);
                }
            });
        std::vector<int64_t> last(kProducers, 0);
        int received = 0;
        while (received < kProducers * kEach) {
            for (const TaggedEvent& e : q.drain()) {
                const auto& s = std::get<StepEvent>(e.event);
                QCOMPARE(s.step, last[static_cast<std::size_t>(s.epoch)] + 1);
                last[static_cast<std::size_t>(s.epoch)] = s.step;
                ++received;
            }
            std::this_thread::yield();
        }
        producers.clear();
        QVERIFY(q.drain().empty());
        QCOMPARE(received, kProducers * kEach);
    }
};

QTEST_GUILESS_MAIN(TestEventQueue)
#include "tst_eventqueue.moc"
