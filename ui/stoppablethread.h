// StoppableThread: one piece of work at a time on a QThread of its own, stopped through a
// std::stop_token (how the engine's runners stop). The experiment and sweep controllers' worker.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <stop_token>

class QThread;

namespace tb::ui {

class StoppableThread : public QObject {
    Q_OBJECT
public:
    explicit StoppableThread(QObject* parent = nullptr);
    ~StoppableThread() override; // stops the work and waits for it

    bool running() const { return m_thread != nullptr; }
    // Runs `work` on a new thread named `name`; when it returns, `done` runs on this object's
    // thread (queued), after the thread is gone, so running() is false there. False while
    // other work runs.
    bool start(const QString& name, std::function<void(std::stop_token)> work,
               std::function<void()> done);
    // Asks the work to stop; it decides when (the runners: after the current step).
    void requestStop();
    // Stops the work and waits for it, now (an exit that does not wait for the event loop;
    // `done` then never runs). Safe to call again.
    void finish();

private:
    QThread* m_thread = nullptr;
    std::unique_ptr<std::stop_source> m_stop;
};

} // namespace tb::ui
