// RunStore: reading a run's metric series, system samples and log for charts and export.
#include "core/errors.h"
#include "io/jsontext.h"
#include "store/runstore.h"
#include "store/sqlitedb.h"
#include "store/validationreportjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <unordered_map>

namespace tb {

std::vector<StepEvent> RunStore::stepMetrics(const std::string& runId, int64_t afterStep,
                                             int64_t lastStep) {
    SqliteStatement& q = m_db->cached(
        "SELECT step, epoch, samples_seen, time, loss, lr, step_ms, data_wait_ms, h2d_ms, "
        "forward_ms, backward_ms, optimizer_ms, samples_per_s, loss_scale, skipped, allreduce_ms, "
        "grad_norm, clipped, loss_terms FROM step_metrics WHERE run_id = ?1 AND step > ?2 AND step "
        "<= ?3 ORDER "
        "BY step");
    q.bind(1, runId);
    q.bind(2, afterStep);
    q.bind(3, lastStep);
    std::vector<StepEvent> rows;
    while (q.step("reading step metrics")) {
        StepEvent s;
        s.step = q.integer(0);
        s.epoch = q.integer(1);
        s.samplesSeen = q.integer(2);
        s.unixTime = q.real(3);
        s.loss = q.real(4);
        s.lr = q.real(5);
        s.stepMs = q.real(6);
        s.dataWaitMs = q.real(7);
        s.h2dMs = q.real(8);
        s.forwardMs = q.real(9);
        s.backwardMs = q.real(10);
        s.optimizerMs = q.real(11);
        s.samplesPerSec = q.real(12);
        s.lossScale = q.real(13);
        s.skipped = q.integer(14) != 0;
        s.allReduceMs = q.optReal(15).value_or(0.0);
        s.gradNorm = q.optReal(16).value_or(0.0);
        s.clippedSteps = static_cast<int>(q.integer(17));
        s.lossTerms = lossTermsFromText(q.text(18));
        rows.push_back(s);
    }
    q.reset();
    // A data-parallel run's ranks, step by step (none for a single-process run).
    SqliteStatement& r = m_db->cached(
        "SELECT step, rank, step_ms, data_wait_ms, compute_ms, allreduce_ms FROM rank_metrics "
        "WHERE run_id = ?1 AND step > ?2 AND step <= ?3 ORDER BY step, rank");
    r.bind(1, runId);
    r.bind(2, afterStep);
    r.bind(3, lastStep);
    auto row = rows.begin();
    while (r.step("reading the ranks' step metrics")) {
        const int64_t step = r.integer(0);
        row = std::lower_bound(row, rows.end(), step,
                               [](const StepEvent& e, int64_t s) { return e.step < s; });
        if (row == rows.end() || row->step != step)
            continue; // a rank row without its step row: not from TrainBench
        if (static_cast<int64_t>(row->ranks.size()) == r.integer(1))
            row->ranks.push_back({r.real(2), r.real(3), r.real(4), r.real(5)});
    }
    r.reset();
    return rows;
}

std::vector<EpochEvent> RunStore::epochMetrics(const std::string& runId, int64_t afterEpoch) {
    SqliteStatement& q = m_db->cached(
        "SELECT epoch, step, train_loss, train_acc, val_loss, val_acc, seconds, samples_per_s, "
        "checkpoint, validation, sample FROM epoch_metrics WHERE run_id = ?1 AND epoch > ?2 "
        "ORDER BY epoch");
    q.bind(1, runId);
    q.bind(2, afterEpoch);
    std::vector<EpochEvent> rows;
    while (q.step("reading epoch metrics")) {
        EpochEvent e;
        e.epoch = q.integer(0);
        e.step = q.integer(1);
        e.trainLoss = q.real(2);
        e.trainAcc = q.real(3);
        e.valLoss = q.real(4);
        e.valAcc = q.real(5);
        e.seconds = q.real(6);
        e.samplesPerSec = q.real(7);
        e.checkpoint = q.text(8);
        e.validation = validationReportFromText(q.text(9));
        e.sample = q.text(10);
        rows.push_back(std::move(e));
    }
    q.reset();
    return rows;
}

std::vector<SystemSample> RunStore::systemSamples(const std::string& runId, double afterTime) {
    std::vector<SystemSample> rows;
    std::vector<int64_t> ids;
    SqliteStatement& q = m_db->cached(
        "SELECT id, time, cpu_percent, cpu_per_core, ram_used_bytes, ram_total_bytes, "
        "process_rss_bytes, process_peak_rss_bytes FROM system_samples WHERE run_id = ?1 "
        "AND time > ?2 ORDER BY time, id");
    q.bind(1, runId);
    q.bind(2, afterTime);
    auto bytes = [&](int col) -> std::optional<uint64_t> {
        if (const auto v = q.optInteger(col))
            return static_cast<uint64_t>(*v);
        return std::nullopt;
    };
    while (q.step("reading system samples")) {
        SystemSample s;
        ids.push_back(q.integer(0));
        s.unixTime = q.real(1);
        s.host.cpuPercent = q.optReal(2);
        // Most rows have no per-core figures: no parse (and no exception inside it) for them.
        if (const std::string coresText = q.text(3); !coresText.empty()) {
            const auto cores = tryParseJson(coresText).value_or(nlohmann::json());
            if (cores.is_array())
                for (const auto& c : cores)
                    s.host.perCorePercent.push_back(c.is_number() ? c.get<double>() : 0.0);
        }
        s.host.ramUsedBytes = bytes(4);
        s.host.ramTotalBytes = bytes(5);
        s.host.processRssBytes = bytes(6);
        s.host.processPeakRssBytes = bytes(7);
        rows.push_back(std::move(s));
    }
    q.reset();
    if (rows.empty())
        return rows;
    // GPU rows of all samples in one pass, matched by sample id (both ordered by id within time).
    SqliteStatement& g = m_db->cached(
        "SELECT g.sample_id, g.gpu_index, g.name, g.util_percent, g.mem_util_percent, "
        "g.mem_used_bytes, g.mem_total_bytes, g.temperature_c, g.power_w, g.power_limit_w, "
        "g.sm_clock_mhz, g.mem_clock_mhz, g.pcie_tx_mbps, g.pcie_rx_mbps, g.throttle_reasons "
        "FROM gpu_samples g JOIN system_samples s ON s.id = g.sample_id WHERE s.run_id = ?1 "
        "AND s.time > ?2 ORDER BY g.sample_id, g.gpu_index");
    g.bind(1, runId);
    g.bind(2, afterTime);
    std::unordered_map<int64_t, std::size_t> rowOf;
    for (std::size_t i = 0; i < ids.size(); ++i)
        rowOf[ids[i]] = i;
    auto gbytes = [&](int col) -> std::optional<uint64_t> {
        if (const auto v = g.optInteger(col))
            return static_cast<uint64_t>(*v);
        return std::nullopt;
    };
    while (g.step("reading GPU samples")) {
        GpuSample s;
        const auto it = rowOf.find(g.integer(0));
        s.index = static_cast<int>(g.integer(1));
        s.name = g.text(2);
        s.utilPercent = g.optReal(3);
        s.memUtilPercent = g.optReal(4);
        s.memUsedBytes = gbytes(5);
        s.memTotalBytes = gbytes(6);
        s.temperatureC = g.optReal(7);
        s.powerW = g.optReal(8);
        s.powerLimitW = g.optReal(9);
        s.smClockMHz = g.optReal(10);
        s.memClockMHz = g.optReal(11);
        s.pcieTxMBps = g.optReal(12);
        s.pcieRxMBps = g.optReal(13);
        s.throttleReasons = gbytes(14);
        if (it != rowOf.end())
            rows[it->second].gpus.push_back(std::move(s));
    }
    g.reset();
    return rows;
}

std::vector<RunLogEntry> RunStore::events(const std::string& runId, int64_t afterId) {
    SqliteStatement& q = m_db->cached("SELECT id, kind, level, rule, message, step, time "
                                      "FROM events WHERE run_id = ?1 AND id > ?2 ORDER BY id");
    q.bind(1, runId);
    q.bind(2, afterId);
    std::vector<RunLogEntry> rows;
    while (q.step("reading logs")) {
        RunLogEntry e;
        e.id = q.integer(0);
        e.kind = q.text(1) == "advice" ? RunLogEntry::Kind::Advice : RunLogEntry::Kind::Log;
        e.level = logLevelFromString(q.text(2));
        e.rule = q.text(3);
        e.message = q.text(4);
        e.step = q.optInteger(5);
        e.unixTime = q.real(6);
        rows.push_back(e);
    }
    q.reset();
    return rows;
}

std::vector<ProfileReport> RunStore::profiles(const std::string& runId) {
    SqliteStatement& q = m_db->cached("SELECT report FROM profiles WHERE run_id = ?1 ORDER BY id");
    q.bind(1, runId);
    std::vector<ProfileReport> out;
    while (q.step("reading profiles")) {
        try {
            out.push_back(profileReportFromJson(tryParseJson(q.text(0)).value_or(nullptr)));
        } catch (const Error&) {
            // written by something else than this build: the other profiles still show
        }
    }
    q.reset();
    return out;
}

std::vector<std::string> RunStore::profiledRunIds() {
    SqliteStatement& q =
        m_db->cached("SELECT run_id FROM profiles GROUP BY run_id ORDER BY MAX(id) DESC");
    std::vector<std::string> out;
    while (q.step("listing profiled runs"))
        out.push_back(q.text(0));
    q.reset();
    return out;
}

} // namespace tb
