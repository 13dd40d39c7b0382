// RunSession: the trainer between the caller's sinks and the recorder, and the recorder's end.
#include "session/runsession.h"

#include "core/runid.h"
#include "telemetry/telemetrysampler.h"

#include <chrono>

namespace tb {

RunSession::RunSession(RunConfig config, RunSessionOptions options, std::vector<EventSink*> sinks)
    : m_options(std::move(options)) {
    m_runId = m_options.trainer.runId.empty() ? makeRunId() : m_options.trainer.runId;
    m_options.trainer.runId = m_runId;
    if (TelemetrySampler* telemetry = m_options.telemetry;
        telemetry && !m_options.trainer.latestSample)
        m_options.trainer.latestSample = [telemetry] { return telemetry->latest(); };
    if (!m_options.databasePath.empty())
        m_recorder = std::make_unique<RunRecorder>(m_options.databasePath, m_options.recorder);
    for (EventSink* sink : sinks)
        m_fanout.add(sink);
    if (m_recorder)
        m_fanout.add(m_recorder.get());
    m_trainer = std::make_unique<Trainer>(std::move(config), m_fanout, m_options.trainer);
}

RunSession::~RunSession() {
    if (m_recorder && m_options.telemetry)
        m_options.telemetry->removeSink(m_recorder.get());
}

RunFinishedEvent RunSession::run(std::stop_token stop) {
    if (m_recorder && m_options.telemetry)
        m_options.telemetry->addSink(m_recorder.get());
    RunFinishedEvent finished = m_trainer->run(std::move(stop));
    finishRecording();
    return finished;
}

void RunSession::finishRecording() {
    if (!m_recorder)
        return;
    if (m_options.telemetry)
        m_options.telemetry->removeSink(m_recorder.get());
    // A locked or full store may take a while: say what the wait is for before it starts.
    const bool waited = !m_recorder->flush(std::chrono::seconds(1)) && !m_recorder->failed();
    if (waited) {
        const std::string why = m_recorder->lastProblem();
        notify(RecordingNotice::Kind::Waiting,
               "waiting for the run database " + m_recorder->path() +
                   " to record the rest of this run" + (why.empty() ? "" : ": " + why));
    }
    m_recordedEverything = m_recorder->close();
    if (!m_recordedEverything)
        notify(RecordingNotice::Kind::Lost,
               std::to_string(m_recorder->lostEvents()) + " events of run " + m_runId +
                   " could not be recorded: " + m_recorder->lastError());
    else if (waited)
        notify(RecordingNotice::Kind::Recorded,
               "run " + m_runId + " is recorded in full in " + m_recorder->path());
}

void RunSession::notify(RecordingNotice::Kind kind, const std::string& message) {
    if (m_options.onRecording)
        m_options.onRecording({kind, message});
}

void RunSession::stopWaitingForStore() {
    if (m_recorder)
        m_recorder->giveUp();
}

uint64_t RunSession::lostEvents() const {
    return m_recorder ? m_recorder->lostEvents() : 0;
}

std::string RunSession::recordingError() const {
    return m_recorder ? m_recorder->lastError() : std::string();
}

} // namespace tb
