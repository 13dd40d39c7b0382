// RunStore: writing a run's events (the RunRecorder's writer thread calls these in batches).
#include "store/processidentity.h"
#include "store/runstore.h"
#include "store/sqlitedb.h"
#include "store/storeerror.h"
#include "store/validationreportjson.h"

#include <optional>

namespace tb {

namespace {

// The string at a dotted path of config ("data.dataset"), or at its "name" when it is an
// object ({"model": {"name": "resnet20"}}); empty when absent.
std::string configString(const nlohmann::json& config, std::initializer_list<const char*> paths) {
    for (const char* path : paths) {
        const nlohmann::json* node = &config;
        std::string_view rest = path;
        while (node && !rest.empty()) {
            const auto dot = rest.find('.');
            const std::string key(rest.substr(0, dot));
            rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
            node = node->is_object() && node->contains(key) ? &(*node)[key] : nullptr;
        }
        if (node && node->is_object() && node->contains("name"))
            node = &(*node)["name"];
        if (node && node->is_string())
            return node->get<std::string>();
    }
    return {};
}

std::string dumpJson(const nlohmann::json& j, const nlohmann::json& fallback) {
    // Invalid UTF-8 in a user's string must not fail the run: replace it.
    return (j.is_null() ? fallback : j)
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<double> positive(double v) {
    return v > 0.0 ? std::optional(v) : std::nullopt;
}

} // namespace

void RunStore::beginTransaction() {
    m_tx.reset();
    m_tx = std::make_unique<SqliteTransaction>(*m_db, "writing a run");
}

void RunStore::commit() {
    if (m_tx)
        m_tx->commit();
    m_tx.reset();
}

void RunStore::rollback() {
    m_tx.reset();
}

void RunStore::beginRun(const RunStartedEvent& e, double unixTime) {
    // Only a resume continues a recorded run: a new run under a taken id would merge two runs.
    if (!e.resumed && contains(e.runId))
        throw StoreError(StoreError::Kind::DuplicateId, path(),
                         path() + ": a run with id '" + e.runId +
                             "' is already recorded; a new run may not reuse it (resume it with "
                             "`train --resume " +
                             e.runId + "`, or start the run under another id).");
    const ProcessIdentity me = currentProcess();
    const nlohmann::json empty = nlohmann::json::object();
    m_db->cached(
            "INSERT INTO runs (id, name, status, started_at, config, environment, model_summary, "
            "dataset, model, device, steps_per_epoch, total_steps, resumed_from_step, writer_pid, "
            "writer_host, writer_start_ticks) "
            "VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
            "ON CONFLICT (id) DO UPDATE SET status = 'running', ended_at = NULL, error = '', "
            "name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE name END, "
            "config = excluded.config, environment = excluded.environment, "
            "model_summary = excluded.model_summary, dataset = excluded.dataset, "
            "model = excluded.model, device = excluded.device, "
            "steps_per_epoch = excluded.steps_per_epoch, total_steps = excluded.total_steps, "
            "resumed_from_step = excluded.resumed_from_step, writer_pid = excluded.writer_pid, "
            "writer_host = excluded.writer_host, "
            "writer_start_ticks = excluded.writer_start_ticks")
        .bindAll(e.runId, e.name, unixTime, dumpJson(e.config, empty),
                 dumpJson(e.environment, empty), dumpJson(e.modelSummary, empty),
                 configString(e.config, {"dataset", "data.dataset", "data"}),
                 configString(e.config, {"model", "model.name"}), e.device, e.stepsPerEpoch,
                 e.totalSteps, e.resumedFromStep, me.pid, me.host, me.startTicks)
        .run("starting run " + e.runId);
    // The config's `tags` (--set tags=a,b; an experiment's arms) tag the run as `runs tag` does.
    if (const auto tags = e.config.find("tags"); tags != e.config.end() && tags->is_array())
        for (const auto& tag : *tags)
            if (tag.is_string() && !tag.get<std::string>().empty())
                m_db->cached("INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?1, ?2)")
                    .bindAll(e.runId, tag.get<std::string>())
                    .run("tagging run " + e.runId);
    if (!e.resumed)
        return;
    // Resuming under the same id: what came after the checkpoint is replayed, so drop it.
    m_db->cached("DELETE FROM step_metrics WHERE run_id = ?1 AND step > ?2")
        .bindAll(e.runId, e.resumedFromStep)
        .run("starting run " + e.runId);
    m_db->cached("DELETE FROM epoch_metrics WHERE run_id = ?1 AND step > ?2")
        .bindAll(e.runId, e.resumedFromStep)
        .run("starting run " + e.runId);
}

void RunStore::addStep(const std::string& runId, const StepEvent& s) {
    m_db->cached("INSERT OR REPLACE INTO step_metrics (run_id, step, epoch, samples_seen, time, "
                 "loss, lr, step_ms, data_wait_ms, h2d_ms, forward_ms, backward_ms, "
                 "optimizer_ms, samples_per_s, loss_scale, skipped, allreduce_ms, grad_norm, "
                 "clipped, loss_terms) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
                 "CASE WHEN ?17 THEN ?18 END, CASE WHEN ?19 > 0 THEN ?19 END, ?20, "
                 "NULLIF(?21, ''))")
        .bindAll(runId, s.step, s.epoch, s.samplesSeen, s.unixTime, s.loss, s.lr, s.stepMs,
                 s.dataWaitMs, s.h2dMs, s.forwardMs, s.backwardMs, s.optimizerMs, s.samplesPerSec,
                 s.lossScale, int64_t{s.skipped}, int64_t{!s.ranks.empty()}, s.allReduceMs,
                 s.gradNorm, int64_t{s.clippedSteps}, lossTermsToText(s.lossTerms))
        .run("writing step metrics of run " + runId);
    for (std::size_t r = 0; r < s.ranks.size(); ++r) {
        const RankStepTimes& t = s.ranks[r];
        m_db->cached("INSERT OR REPLACE INTO rank_metrics (run_id, step, rank, step_ms, "
                     "data_wait_ms, compute_ms, allreduce_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .bindAll(runId, s.step, static_cast<int64_t>(r), t.stepMs, t.dataWaitMs, t.computeMs,
                     t.allReduceMs)
            .run("writing the ranks' step metrics of run " + runId);
    }
}

void RunStore::addEpoch(const std::string& runId, const EpochEvent& e) {
    m_db->cached("INSERT OR REPLACE INTO epoch_metrics (run_id, epoch, step, train_loss, "
                 "train_acc, val_loss, val_acc, seconds, samples_per_s, checkpoint, validation, "
                 "sample) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, NULLIF(?11, ''), "
                 "NULLIF(?12, ''))")
        .bindAll(runId, e.epoch, e.step, e.trainLoss, e.trainAcc, e.valLoss, e.valAcc, e.seconds,
                 e.samplesPerSec, e.checkpoint, validationReportToText(e.validation), e.sample)
        .run("writing epoch metrics of run " + runId);
    // UPDATE reads old values on the right: the best epoch is decided against the old best, by
    // the epoch's score (a segmentation's mIoU, ?8; else its accuracy), as the trainer picks its
    // best checkpoint.
    static const std::string better =
        "coalesce(?8, ?3) IS NOT NULL AND (coalesce(best_miou, "
        "best_val_acc) IS NULL OR coalesce(?8, ?3) > coalesce(best_miou, "
        "best_val_acc))";
    m_db->cached("UPDATE runs SET "
                 "best_epoch = CASE WHEN " +
                 better +
                 " THEN ?2 ELSE best_epoch END, "
                 "best_val_acc = CASE WHEN " +
                 better +
                 " THEN ?3 ELSE best_val_acc END, "
                 "best_miou = CASE WHEN " +
                 better +
                 " THEN ?8 ELSE best_miou END, "
                 "final_train_loss = ?4, final_val_loss = ?5, final_val_acc = ?3, "
                 "epochs = max(epochs, ?2), steps = max(steps, ?6), "
                 "checkpoint = CASE WHEN ?7 <> '' THEN ?7 ELSE checkpoint END "
                 "WHERE id = ?1")
        .bindAll(runId, e.epoch, e.valAcc, e.trainLoss, e.valLoss, e.step, e.checkpoint,
                 e.validation.segmentation ? std::optional(e.validation.segmentation->meanIoU)
                                           : std::nullopt)
        .run("writing epoch metrics of run " + runId);
}

void RunStore::addSystemSample(const std::string& runId, const SystemSample& s) {
    const HostSample& h = s.host;
    std::optional<std::string> perCore;
    if (!h.perCorePercent.empty())
        perCore = nlohmann::json(h.perCorePercent).dump();
    m_db->cached("INSERT INTO system_samples (run_id, time, cpu_percent, cpu_per_core, "
                 "ram_used_bytes, ram_total_bytes, process_rss_bytes, process_peak_rss_bytes) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
        .bindAll(runId, s.unixTime, h.cpuPercent, perCore, h.ramUsedBytes, h.ramTotalBytes,
                 h.processRssBytes, h.processPeakRssBytes)
        .run("writing system samples of run " + runId);
    const int64_t sampleId = m_db->lastInsertRowId();
    for (const GpuSample& g : s.gpus) {
        m_db->cached("INSERT OR REPLACE INTO gpu_samples (sample_id, gpu_index, name, "
                     "util_percent, mem_util_percent, mem_used_bytes, mem_total_bytes, "
                     "temperature_c, power_w, power_limit_w, sm_clock_mhz, mem_clock_mhz, "
                     "pcie_tx_mbps, pcie_rx_mbps, throttle_reasons) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)")
            .bindAll(sampleId, g.index, g.name, g.utilPercent, g.memUtilPercent, g.memUsedBytes,
                     g.memTotalBytes, g.temperatureC, g.powerW, g.powerLimitW, g.smClockMHz,
                     g.memClockMHz, g.pcieTxMBps, g.pcieRxMBps, g.throttleReasons)
            .run("writing GPU samples of run " + runId);
    }
}

void RunStore::addLog(const std::string& runId, const LogEvent& log) {
    m_db->cached("INSERT INTO events (run_id, kind, level, message, time) "
                 "VALUES (?1, 'log', ?2, ?3, ?4)")
        .bindAll(runId, toString(log.level), log.message, log.unixTime)
        .run("writing the log of run " + runId);
}

void RunStore::addAdvice(const std::string& runId, const AdviceEvent& a) {
    m_db->cached("INSERT INTO events (run_id, kind, rule, message, step, time) "
                 "VALUES (?1, 'advice', ?2, ?3, ?4, ?5)")
        .bindAll(runId, a.rule, a.message, a.step, a.unixTime)
        .run("writing the log of run " + runId);
}

void RunStore::addProfile(const std::string& runId, const ProfileReport& p) {
    m_db->cached("INSERT INTO profiles (run_id, first_step, report) VALUES (?1, ?2, ?3)")
        .bindAll(runId, p.firstStep, toJson(p).dump())
        .run("writing a profile of run " + runId);
}

void RunStore::updateProgress(const std::string& runId, int64_t steps, double unixTime) {
    m_db->cached("UPDATE runs SET steps = max(steps, ?2), duration_s = ?3 - started_at "
                 "WHERE id = ?1 AND status = 'running'")
        .bindAll(runId, steps, unixTime)
        .run("writing the progress of run " + runId);
}

void RunStore::finishRun(const std::string& runId, const RunFinishedEvent& e, double unixTime) {
    const RunSummary& s = e.summary;
    // A summary without epochs (failed early, no validation) keeps the per-epoch values.
    m_db->cached("UPDATE runs SET status = ?2, ended_at = ?3, error = ?4, "
                 "checkpoint = CASE WHEN ?5 <> '' THEN ?5 ELSE checkpoint END, "
                 "best_val_acc = CASE WHEN ?6 > 0 THEN ?7 ELSE best_val_acc END, "
                 "best_epoch = CASE WHEN ?6 > 0 THEN ?8 ELSE best_epoch END, "
                 "final_train_loss = CASE WHEN ?6 > 0 THEN ?9 ELSE final_train_loss END, "
                 "final_val_loss = CASE WHEN ?6 > 0 THEN ?10 ELSE final_val_loss END, "
                 "final_val_acc = CASE WHEN ?6 > 0 THEN ?11 ELSE final_val_acc END, "
                 "mean_samples_per_s = coalesce(?12, (SELECT avg(samples_per_s) FROM "
                 "step_metrics WHERE run_id = ?1)), "
                 "peak_memory_bytes = coalesce(?13, peak_memory_bytes), "
                 "duration_s = coalesce(?14, ?3 - started_at), "
                 "steps = max(steps, ?15), epochs = max(epochs, ?6) "
                 "WHERE id = ?1")
        .bindAll(runId, toString(e.status), unixTime, e.error, e.checkpoint, s.epochs, s.bestValAcc,
                 s.bestEpoch, s.finalTrainLoss, s.finalValLoss, s.finalValAcc,
                 positive(s.meanSamplesPerSec),
                 s.peakMemoryBytes > 0 ? std::optional<uint64_t>(s.peakMemoryBytes) : std::nullopt,
                 positive(s.durationSec), s.steps)
        .run("finishing run " + runId);
    requireRun(runId, m_db->changes());
}

} // namespace tb
