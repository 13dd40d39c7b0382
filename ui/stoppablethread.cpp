// StoppableThread: QThread::create around the work, the end handed back queued.
#include "stoppablethread.h"

#include <QThread>

namespace tb::ui {

StoppableThread::StoppableThread(QObject* parent) : QObject(parent) {}

StoppableThread::~StoppableThread() {
    finish();
}

bool StoppableThread::start(const QString& name, std::function<void(std::stop_token)> work,
                            std::function<void()> done) {
    if (m_thread)
        return false;
    m_stop = std::make_unique<std::stop_source>();
    m_thread = QThread::create(
        [this, work = std::move(work), done = std::move(done), token = m_stop->get_token()] {
            work(token);
            QThread* const ended = QThread::currentThread();
            QMetaObject::invokeMethod(
                this,
                [this, done, ended] {
                    if (m_thread != ended) // finish() has waited for it already
                        return;
                    m_thread->wait();
                    m_thread->deleteLater();
                    m_thread = nullptr;
                    done();
                },
                Qt::QueuedConnection);
        });
    m_thread->setObjectName(name);
    m_thread->start();
    return true;
}

void StoppableThread::requestStop() {
    if (m_stop)
        m_stop->request_stop();
}

void StoppableThread::finish() {
    if (!m_thread)
        return;
    m_stop->request_stop();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

} // namespace tb::ui
