// CheckpointLoader: what Try it and Generate share. Loads a model from a checkpoint on a worker
// thread (QtConcurrent) for a panel that follows a run's newest checkpoint: a path asked for
// while another loads is loaded once that one has finished, and only the newest path's outcome
// reaches the panel. Destroying the loader waits for the worker (which writes into what the
// future owns) and drops an outcome not yet delivered.
#pragma once

#include <QFutureWatcher>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <functional>
#include <memory>

namespace tb::ui {

template <typename Model> class CheckpointLoader {
public:
    struct Outcome {
        std::shared_ptr<Model> model; // null when it failed
        QString path;
        QString error;
    };
    // load runs on the worker and throws what it cannot load; done runs on the UI thread.
    CheckpointLoader(std::function<std::shared_ptr<Model>(const QString&)> load,
                     std::function<void(const Outcome&)> done)
        : m_load(std::move(load)) {
        QObject::connect(&m_watcher, &QFutureWatcher<Outcome>::finished, [this, done] {
            const Outcome outcome = m_watcher.result();
            if (outcome.path != m_path) { // another checkpoint was asked for meanwhile
                start(m_path);
                return;
            }
            done(outcome);
        });
    }
    ~CheckpointLoader() { m_watcher.waitForFinished(); }
    CheckpointLoader(const CheckpointLoader&) = delete;
    CheckpointLoader& operator=(const CheckpointLoader&) = delete;

    // False for an empty path or the one asked for already.
    bool request(const QString& path) {
        if (path.isEmpty() || path == m_path)
            return false;
        m_path = path;
        if (!m_watcher.isRunning())
            start(path);
        return true;
    }
    const QString& path() const { return m_path; }
    bool running() const { return m_watcher.isRunning(); }

private:
    void start(const QString& path) {
        m_watcher.setFuture(QtConcurrent::run([load = m_load, path] {
            Outcome out{nullptr, path, {}};
            try {
                out.model = load(path);
            } catch (const std::exception& e) {
                out.error = QString::fromUtf8(e.what());
            }
            return out;
        }));
    }

    std::function<std::shared_ptr<Model>(const QString&)> m_load;
    QString m_path;
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace tb::ui
