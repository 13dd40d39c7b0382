// RunsStore: a worker object on a QThread; every request is a queued call into it.
#include "runs/runsstore.h"

#include "store/runstore.h"
#include "store/storeerror.h"

#include <QThread>
#include <QTimer>

#include <filesystem>
#include <map>

namespace tb::ui {

namespace {
constexpr int kPollMs = 250;
}

class RunsStoreWorker : public QObject {
public:
    RunsStoreWorker(std::string path, RunsStore* out) : m_path(std::move(path)), m_out(out) {}

    void start() {
        m_timer = new QTimer(this);
        m_timer->setInterval(kPollMs);
        connect(m_timer, &QTimer::timeout, this, [this] { poll(); });
        m_timer->start();
        poll();
    }

    // Every run read first, then all sent: the window redraws once for the lot.
    void load(const QStringList& ids) {
        if (!open())
            return;
        std::vector<std::pair<QString, std::shared_ptr<RunSeries>>> loaded;
        for (const QString& id : ids) {
            try {
                const std::string runId = id.toStdString();
                if (!m_store->contains(runId)) {
                    emit m_out->runDeleted(id);
                    continue;
                }
                loaded.emplace_back(id, std::make_shared<RunSeries>(
                                            RunSeries::load(*m_store, m_store->getRun(runId))));
            } catch (const std::exception& e) {
                fail(e);
            }
        }
        for (auto& [id, series] : loaded)
            emit m_out->runLoaded(id, std::move(series));
    }

    void list() {
        m_version.reset(); // the next poll lists whatever the version
        m_reported = false;
        if (m_store)
            announceAccess();
        poll();
    }

    void follow(const QString& id) {
        if (open() && !m_tails.count(id))
            m_tails.emplace(id, std::make_unique<RunTail>(*m_store, id.toStdString()));
        pollTails();
    }
    void unfollow(const QString& id) { m_tails.erase(id); }

    // An edit through a connection of its own that may write; the next poll lists the change.
    template <typename F> void edit(F f) {
        try {
            RunStore writer(m_path);
            f(writer);
        } catch (const std::exception& e) {
            fail(e);
        }
        poll();
    }

private:
    bool open() {
        if (m_store)
            return true;
        try {
            if (!std::filesystem::exists(m_path))
                return false; // no run yet: the first one creates it
            m_store = openRunStoreForQueries(m_path);
            announceAccess();
            return true;
        } catch (const std::exception& e) {
            if (!m_reported) // say it once, not every 250 ms
                fail(e);
            m_reported = true;
            return false;
        }
    }

    void announceAccess() {
        const bool readOnly = m_store->newerSchema();
        emit m_out->accessChanged(
            readOnly, readOnly ? tr("%1 was written by a newer TrainBench: its runs are shown as "
                                    "they are, and cannot be renamed, tagged or deleted here.")
                                     .arg(QString::fromStdString(m_path))
                               : QString());
    }

    void poll() {
        if (!open())
            return;
        try {
            const int64_t version = m_store->dataVersion();
            if (!m_version || *m_version != version) {
                m_version = version;
                emit m_out->runsListed(m_store->listRuns());
            }
            pollTails();
        } catch (const std::exception& e) {
            fail(e);
        }
    }

    void pollTails() {
        for (auto it = m_tails.begin(); it != m_tails.end();) {
            const RunTailUpdate u = it->second->poll();
            if (u.deleted)
                emit m_out->runDeleted(it->first);
            else if (!u.empty())
                emit m_out->runRowsArrived(it->first, u);
            it = it->second->finished() ? m_tails.erase(it) : std::next(it);
        }
    }

    void fail(const std::exception& e) {
        const auto* store = dynamic_cast<const StoreError*>(&e);
        emit m_out->failed(QString::fromStdString(store ? store->problem() : e.what()));
    }

    static QString tr(const char* text) { return QObject::tr(text); }

    std::string m_path;
    RunsStore* m_out;
    std::unique_ptr<RunStore> m_store;
    std::optional<int64_t> m_version;
    std::map<QString, std::unique_ptr<RunTail>> m_tails;
    QTimer* m_timer = nullptr;
    bool m_reported = false;
};

RunsStore::RunsStore(QString databasePath, QObject* parent)
    : QObject(parent), m_path(std::move(databasePath)), m_thread(new QThread(this)),
      m_worker(new RunsStoreWorker(m_path.toStdString(), this)) {
    qRegisterMetaType<std::vector<RunRecord>>();
    qRegisterMetaType<std::shared_ptr<RunSeries>>();
    qRegisterMetaType<RunTailUpdate>();
    m_thread->setObjectName(QStringLiteral("run store"));
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread->start();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker] { w->start(); }, Qt::QueuedConnection);
}

RunsStore::~RunsStore() {
    m_thread->quit();
    m_thread->wait();
}

void RunsStore::list() {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker] { w->list(); }, Qt::QueuedConnection);
}

void RunsStore::load(const QString& id) {
    load(QStringList{id});
}

void RunsStore::load(const QStringList& ids) {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, ids] { w->load(ids); }, Qt::QueuedConnection);
}

void RunsStore::follow(const QString& id) {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, id] { w->follow(id); }, Qt::QueuedConnection);
}

void RunsStore::unfollow(const QString& id) {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, id] { w->unfollow(id); }, Qt::QueuedConnection);
}

namespace {
std::string s(const QString& q) {
    return q.toStdString();
}
} // namespace

void RunsStore::rename(const QString& id, const QString& name) {
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, id, name] { w->edit([&](RunStore& st) { st.rename(s(id), s(name)); }); },
        Qt::QueuedConnection);
}

void RunsStore::setNotes(const QString& id, const QString& notes) {
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, id, notes] { w->edit([&](RunStore& st) { st.setNotes(s(id), s(notes)); }); },
        Qt::QueuedConnection);
}

void RunsStore::addTag(const QString& id, const QString& tag) {
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, id, tag] { w->edit([&](RunStore& st) { st.addTag(s(id), s(tag)); }); },
        Qt::QueuedConnection);
}

void RunsStore::removeTag(const QString& id, const QString& tag) {
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, id, tag] { w->edit([&](RunStore& st) { st.removeTag(s(id), s(tag)); }); },
        Qt::QueuedConnection);
}

void RunsStore::setColor(const QString& id, const QString& color) {
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, id, color] { w->edit([&](RunStore& st) { st.setColor(s(id), s(color)); }); },
        Qt::QueuedConnection);
}

void RunsStore::remove(const QStringList& ids, bool checkpoints) {
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, ids, checkpoints] {
            w->edit([&](RunStore& st) {
                for (const QString& id : ids) {
                    const RunRecord r = st.getRun(s(id));
                    st.deleteRun(r.id);
                    if (checkpoints && !r.checkpoint.empty()) {
                        // Checkpoints live in a folder named after the run: remove that only.
                        const std::filesystem::path folder =
                            std::filesystem::path(r.checkpoint).parent_path();
                        std::error_code ec;
                        if (folder.filename() == r.id)
                            std::filesystem::remove_all(folder, ec);
                    }
                }
            });
        },
        Qt::QueuedConnection);
}

} // namespace tb::ui
