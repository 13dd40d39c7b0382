#include "session/profilesession.h"

#include "core/errors.h"

#include <filesystem>
#include <random>

namespace tb {

namespace {

namespace fs = std::filesystem;

// Keeps the profile and the times of the steps after it.
class ProfileCollector final : public EventSink {
public:
    ProfileCollector(ProfileRunResult& result, int64_t lastProfiledStep)
        : m_result(result), m_lastProfiled(lastProfiledStep) {}
    void onEvent(const Event& event) override {
        if (const auto* p = std::get_if<ProfileEvent>(&event)) {
            m_result.report = p->report;
        } else if (const auto* step = std::get_if<StepEvent>(&event);
                   step && step->step > m_lastProfiled) {
            m_unprofiledMs += step->stepMs;
            ++m_result.unprofiledSteps;
            m_result.unprofiledStepMs = m_unprofiledMs / m_result.unprofiledSteps;
        }
    }

private:
    ProfileRunResult& m_result;
    int64_t m_lastProfiled;
    double m_unprofiledMs = 0.0;
};

// A folder of its own for the checkpoint the measurement saves at its end, removed after it:
// a stored run's own folder is never written by a profile of it.
class ScratchFolder {
public:
    ScratchFolder() {
        std::random_device random;
        path = (fs::temp_directory_path() / ("trainbench-profile-" + std::to_string(random())))
                   .string();
    }
    ~ScratchFolder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string path;
};

} // namespace

double ProfileRunResult::costFraction() const {
    if (!report || unprofiledStepMs <= 0.0)
        return 0.0;
    return report->stepMs / unprofiledStepMs - 1.0;
}

ProfileRunResult runProfile(RunConfig config, const ProfileRunOptions& options,
                            const std::vector<EventSink*>& sinks, std::stop_token stop) {
    if (options.steps < 1)
        throw ConfigError("steps", "profile at least one step");
    if (options.warmup < 0)
        throw ConfigError("warmup", "warm-up steps cannot be negative");
    config.maxSteps = options.warmup + (options.timeUnprofiled ? 2 : 1) * int64_t{options.steps};
    config.maxEpochs = 0;
    config.logEveryNSteps = 1; // a StepEvent per step: the unprofiled steps are timed one by one
    RunSessionOptions session = options.session;
    std::optional<ScratchFolder> scratch;
    if (!options.weightsFrom.empty()) {
        session.databasePath.clear();
        session.trainer.weightsFrom = options.weightsFrom;
        session.trainer.resumeFrom.clear();
        scratch.emplace();
        config.checkpointDir = scratch->path;
    }
    config.validate();
    ProfileRunResult result;
    ProfileCollector collector(result, options.warmup + options.steps);
    std::vector<EventSink*> all{&collector};
    all.insert(all.end(), sinks.begin(), sinks.end());
    RunSession run(config, session, all);
    run.requestProfile(options.steps, options.warmup);
    result.finished = run.run(stop);
    return result;
}

} // namespace tb
