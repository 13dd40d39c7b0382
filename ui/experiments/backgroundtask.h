// BackgroundTask: one piece of work on its own QThread with a stop token, for the finders. The
// work posts what it finds to the UI thread itself (QMetaObject::invokeMethod); finished() is
// emitted on the UI thread once the thread has ended. Destroying the task stops the work and
// waits for it.
#pragma once

#include <QObject>

#include <functional>
#include <memory>
#include <stop_token>

class QThread;

namespace tb::ui {

class BackgroundTask : public QObject {
    Q_OBJECT

public:
    explicit BackgroundTask(QObject* parent = nullptr);
    ~BackgroundTask() override;

    bool running() const { return m_thread != nullptr; }
    // False while a previous piece of work runs.
    bool start(std::function<void(std::stop_token)> work);
    void stop();

signals:
    void finished();

private:
    QThread* m_thread = nullptr;
    std::unique_ptr<std::stop_source> m_stop;
};

} // namespace tb::ui
