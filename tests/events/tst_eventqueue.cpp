// EventQueue: events pushed from several threads while another drains arrive exactly once, in
// each producer's order.
#include "train/eventqueue.h"

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
        const std::vector<Event> got = q.drain();
        QCOMPARE(got.size(), std::size_t{2});
        QVERIFY(std::holds_alternative<LogEvent>(got[0]));
        QVERIFY(std::holds_alternative<StepEvent>(got[1]));
        QCOMPARE(q.size(), std::size_t{0});
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
            for (const Event& e : q.drain()) {
                const auto& s = std::get<StepEvent>(e);
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
