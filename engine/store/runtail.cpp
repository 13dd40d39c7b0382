// RunTail: a data_version check, then rows after the last step, epoch, sample and log it has.
#include "store/runtail.h"

#include "store/storeerror.h"

namespace tb {

RunTail::RunTail(RunStore& store, std::string runId) : m_store(store), m_runId(std::move(runId)) {}

RunTailUpdate RunTail::poll() {
    RunTailUpdate u;
    if (m_finished)
        return u;
    const int64_t version = m_store.dataVersion();
    if (m_version && *m_version == version)
        return u; // nobody committed since: not a row to read
    m_version = version;
    if (!m_store.contains(m_runId)) {
        u.deleted = true;
        m_finished = true;
        return u;
    }
    u.steps = m_store.stepMetrics(m_runId, m_lastStep);
    u.epochs = m_store.epochMetrics(m_runId, m_lastEpoch);
    u.samples = m_store.systemSamples(m_runId, m_lastSampleTime);
    u.logs = m_store.events(m_runId, m_lastLogId);
    if (!u.steps.empty())
        m_lastStep = u.steps.back().step;
    if (!u.epochs.empty())
        m_lastEpoch = u.epochs.back().epoch;
    if (!u.samples.empty())
        m_lastSampleTime = u.samples.back().unixTime;
    if (!u.logs.empty())
        m_lastLogId = u.logs.back().id;
    u.record = m_store.getRun(m_runId);
    m_finished = u.record->status != RunStatus::Running;
    return u;
}

} // namespace tb
