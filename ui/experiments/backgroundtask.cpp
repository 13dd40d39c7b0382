#include "experiments/backgroundtask.h"

#include <QThread>

namespace tb::ui {

BackgroundTask::BackgroundTask(QObject* parent) : QObject(parent) {}

BackgroundTask::~BackgroundTask() {
    if (m_thread) {
        m_stop->request_stop();
        m_thread->wait();
        delete m_thread;
    }
}

bool BackgroundTask::start(std::function<void(std::stop_token)> work) {
    if (m_thread)
        return false;
    m_stop = std::make_unique<std::stop_source>();
    m_thread =
        QThread::create([work = std::move(work), token = m_stop->get_token()] { work(token); });
    m_thread->setObjectName(QStringLiteral("finder"));
    connect(m_thread, &QThread::finished, this, [this] {
        m_thread->deleteLater();
        m_thread = nullptr;
        emit finished();
    });
    m_thread->start();
    return true;
}

void BackgroundTask::stop() {
    if (m_stop)
        m_stop->request_stop();
}

} // namespace tb::ui
