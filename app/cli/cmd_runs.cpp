// `trainbench-cli runs`: list, show, compare, export and edit the runs in the run database.
#include "args.h"
#include "commands.h"
#include "runsimportance.h"
#include "runsprofile.h"
#include "runsseries.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "store/runexport.h"
#include "store/runseries.h"
#include "store/runstore.h"
#include "store/storeerror.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace tb::cli {

namespace {

constexpr const char* kRunsUsage = R"(usage: trainbench-cli runs [--db PATH] COMMAND

commands:
  list [--status S] [--model M] [--dataset D] [--tag T] [--limit N] [--json]
  show ID [--epochs N] [--json]      summary, config and the last epochs
  compare ID ID... [--target ACC]    summaries side by side (with --target, when val/acc
                                     first reached it: step, samples, time), differing config
  compare ID... --metric M [--x step|samples|epoch|time] [--group-by KEY[,KEY]] [--json]
                                     a series (train/loss, val/acc, samples_per_s, step_ms,
                                     gpu0/util, ...) side by side, or each group's mean and std
  export ID --format csv|json [--out FILE]   all step and epoch metrics
  export ID ID... --format csv [--x X] [--out FILE]   every series, long: run,series,x,value
  watch ID [--json]                  print a run's steps and epochs as they are written
  profile ID[@N] [ID[@N]] [--json]   a run's layer profile (its N-th; the newest without @N),
                                     or two side by side: what changed, layer by layer
  importance [ID...] [--tag T] --metric M [--keys K,K] [--seed N] [--json]
                                     which config keys mattered to M (best_val_acc, val/loss,
                                     ...): correlation and random-forest importance
  rename ID NAME
  tag ID TAG...  |  untag ID TAG...
  note ID TEXT
  delete ID
  check                              run SQLite's integrity check

ID may be any unique prefix of a run id. The database defaults to
$XDG_DATA_HOME/TrainBench/runs.db (else ~/.local/share/TrainBench/runs.db).)";

// Columns of text padded to their widest cell (UTF-8 aware: counts code points).
class TextTable {
public:
    TextTable() = default;
    explicit TextTable(std::vector<std::string> header) { m_rows.push_back(std::move(header)); }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    void print(std::ostream& out) const {
        std::vector<std::size_t> width;
        for (const auto& row : m_rows)
            for (std::size_t c = 0; c < row.size(); ++c) {
                width.resize(std::max(width.size(), row.size()));
                width[c] = std::max(width[c], length(row[c]));
            }
        for (const auto& row : m_rows) {
            std::string line;
            for (std::size_t c = 0; c < row.size(); ++c) {
                line += row[c];
                if (c + 1 < row.size())
                    line += std::string(width[c] - length(row[c]) + 2, ' ');
            }
            out << line << '\n';
        }
    }

private:
    static std::size_t length(const std::string& s) {
        return static_cast<std::size_t>(
            std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xc0) != 0x80; }));
    }
    std::vector<std::vector<std::string>> m_rows;
};

std::string fixed(const std::optional<double>& v, int digits) {
    if (!v || !std::isfinite(*v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, *v);
    return buf;
}

std::string percent(const std::optional<double>& v) {
    return v ? fixed(*v * 100.0, 2) + "%" : "-";
}

std::string localTime(double unixTime) {
    const std::time_t t = static_cast<std::time_t>(unixTime);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
    return buf;
}

std::string duration(const std::optional<double>& seconds) {
    if (!seconds || *seconds < 0)
        return "-";
    const long s = std::lround(*seconds);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

// Needs exactly `count` positionals after the subcommand (or at least, when atLeast).
void requireArgs(const Args& args, std::size_t count, const char* usage, bool atLeast = false) {
    const std::size_t have = args.positional().size() - 1;
    if (have < count || (!atLeast && have > count))
        throw ConfigError("runs " + args.positional()[0], std::string("usage: ") + usage);
}

std::vector<std::pair<std::string, std::string>> summaryRows(const RunRecord& r) {
    std::vector<std::pair<std::string, std::string>> rows{
        {"name", r.name.empty() ? "-" : r.name},
        {"status", toString(r.status)},
        {"started", localTime(r.startedAt)},
        {"duration", duration(r.durationSec)},
        {"model", r.model.empty() ? "-" : r.model},
        {"dataset", r.dataset.empty() ? "-" : r.dataset},
        {"device", r.device.empty() ? "-" : r.device},
        {"ranks", std::to_string(ranksOf(r))},
        {"effective batch", std::to_string(effectiveBatchOf(r)) + " samples per optimizer step"},
        {"steps", std::to_string(r.steps)},
        {"epochs", std::to_string(r.epochs)},
        {"best val acc", percent(r.bestValAcc) +
                             (r.bestEpoch ? " (epoch " + std::to_string(*r.bestEpoch) + ")" : "")},
        {"final val acc", percent(r.finalValAcc)},
        {"final train loss", fixed(r.finalTrainLoss, 4)},
        {"final val loss", fixed(r.finalValLoss, 4)},
        {"samples/s", fixed(r.meanSamplesPerSec, 0)},
        {"peak memory", r.peakMemoryBytes ? formatBytes(*r.peakMemoryBytes) : "-"},
        {"tags", r.tags.empty() ? "-" : joined(r.tags, ", ")}};
    if (r.bestMeanIoU) // a segmentation's validation score, after its pixel accuracy
        rows.insert(rows.begin() + 12, {"best mIoU", fixed(r.bestMeanIoU, 4)});
    return rows;
}

int list(RunStore& store, const Args& args) {
    requireArgs(args, 0, "runs list [--status S] [--model M] [--dataset D] [--tag T] [--json]");
    RunFilter filter;
    if (const auto s = args.value("status")) {
        try {
            filter.status = runStatusFromString(*s);
        } catch (const ConfigError&) {
            throw ConfigError("--status", "'" + *s +
                                              "' is not one of running, completed, stopped, "
                                              "failed, interrupted");
        }
    }
    filter.model = args.valueOr("model", "");
    filter.dataset = args.valueOr("dataset", "");
    filter.tag = args.valueOr("tag", "");
    filter.limit = static_cast<int>(args.intValue("limit", 1).value_or(0));
    const auto runs = store.listRuns(filter);
    if (args.flag("json")) {
        nlohmann::json out = nlohmann::json::array();
        for (const RunRecord& r : runs)
            out.push_back(runToJson(r));
        std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    if (runs.empty()) {
        std::cout << "No runs in " << store.path()
                  << (filter.status || !filter.model.empty() || !filter.dataset.empty() ||
                              !filter.tag.empty()
                          ? " match these filters.\n"
                          : " yet.\n");
        return 0;
    }
    TextTable table({"ID", "NAME", "STATUS", "STARTED", "MODEL", "DATASET", "RANKS", "EFF BATCH",
                     "STEPS", "BEST VAL", "DURATION", "TAGS"});
    for (const RunRecord& r : runs)
        table.add({r.id, r.name, toString(r.status), localTime(r.startedAt), r.model, r.dataset,
                   std::to_string(ranksOf(r)), std::to_string(effectiveBatchOf(r)),
                   std::to_string(r.steps),
                   r.bestMeanIoU ? "mIoU " + fixed(r.bestMeanIoU, 3) : percent(r.bestValAcc),
                   duration(r.durationSec), joined(r.tags, ",")});
    table.print(std::cout);
    return 0;
}

int show(RunStore& store, const Args& args) {
    requireArgs(args, 1, "runs show ID [--epochs N] [--json]");
    const RunRecord r = store.getRun(args.positional()[1]);
    if (args.flag("json")) {
        nlohmann::json out = runToJson(r);
        out["model_summary"] = r.modelSummary;
        std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    std::cout << "run " << r.id << '\n';
    TextTable summary;
    for (const auto& [k, v] : summaryRows(r))
        summary.add({"  " + k, v});
    if (!r.notes.empty())
        summary.add({"  notes", r.notes});
    if (!r.error.empty())
        summary.add({"  error", r.error});
    if (!r.checkpoint.empty())
        summary.add({"  checkpoint", r.checkpoint});
    summary.print(std::cout);
    std::cout << "\nconfig\n";
    for (const auto& [k, v] : flattenJson(r.config))
        std::cout << "  " << k << " = " << v << '\n';
    const auto epochs = store.epochMetrics(r.id);
    const std::size_t last = static_cast<std::size_t>(args.intValue("epochs", 0).value_or(10));
    if (!epochs.empty() && last > 0) {
        std::cout << "\nlast epochs\n";
        TextTable table({"  EPOCH", "STEP", "TRAIN LOSS", "TRAIN ACC", "VAL LOSS", "VAL ACC",
                         "SECONDS", "SAMPLES/S"});
        for (std::size_t i = epochs.size() > last ? epochs.size() - last : 0; i < epochs.size();
             ++i) {
            const EpochEvent& e = epochs[i];
            table.add({"  " + std::to_string(e.epoch), std::to_string(e.step),
                       fixed(e.trainLoss, 4), percent(e.trainAcc), fixed(e.valLoss, 4),
                       percent(e.valAcc), fixed(e.seconds, 1), fixed(e.samplesPerSec, 0)});
        }
        table.print(std::cout);
    }
    return 0;
}

std::vector<std::string> runIds(const Args& args) {
    return {args.positional().begin() + 1, args.positional().end()};
}

// When val/acc first reached target (a fraction or a percentage): the step, samples seen and
// wall time, interpolated between the epochs around it.
std::vector<std::pair<std::string, std::string>> targetRows(RunStore& store, const RunRecord& r,
                                                            double target) {
    const RunSeries series = RunSeries::load(store, r);
    const double percent = target <= 1.0 ? target * 100.0 : target;
    const auto at = [&](SeriesX x) {
        const auto v = firstReaching(series.points("val/acc", x), percent, true);
        return v ? fixed(*v, x == SeriesX::Time ? 1 : 0) : std::string("not reached");
    };
    const std::string what = "val acc " + fixed(percent, 1) + "%";
    return {{what + ": step", at(SeriesX::Step)},
            {what + ": samples", at(SeriesX::Samples)},
            {what + ": time (s)", at(SeriesX::Time)}};
}

int compare(RunStore& store, const Args& args) {
    if (args.value("metric")) {
        requireArgs(args, 1, "runs compare ID... --metric M", /*atLeast=*/true);
        return compareSeries(store, runIds(args), args);
    }
    requireArgs(args, 2, "runs compare ID ID...", /*atLeast=*/true);
    std::vector<RunRecord> runs;
    for (std::size_t i = 1; i < args.positional().size(); ++i)
        runs.push_back(store.getRun(args.positional()[i]));
    std::optional<double> target;
    if (const auto t = args.value("target")) {
        char* end = nullptr;
        target = std::strtod(t->c_str(), &end);
        if (end == t->c_str() || *end || !(*target > 0.0 && *target <= 100.0))
            throw ConfigError("--target", "'" + *t + "' is not an accuracy (0.9 or 90)");
    }
    std::vector<std::string> header{""};
    for (const RunRecord& r : runs)
        header.push_back(r.id);
    TextTable table(header);
    const auto rowsOf = [&](const RunRecord& r) {
        auto rows = summaryRows(r);
        if (target)
            for (auto& row : targetRows(store, r, *target))
                rows.push_back(std::move(row));
        return rows;
    };
    std::vector<std::vector<std::pair<std::string, std::string>>> all;
    for (const RunRecord& r : runs)
        all.push_back(rowsOf(r));
    for (std::size_t row = 0; row < all[0].size(); ++row) {
        std::vector<std::string> line{all[0][row].first};
        for (const auto& rows : all)
            line.push_back(rows[row].second);
        table.add(line);
    }
    table.print(std::cout);
    const auto diffs = configDifferences(runs);
    std::cout << '\n';
    if (diffs.empty()) {
        std::cout << "The configs are identical.\n";
        return 0;
    }
    std::vector<std::string> configHeader{"config (differing keys)"};
    configHeader.insert(configHeader.end(), header.begin() + 1, header.end());
    TextTable differing(configHeader);
    for (const ConfigDifference& d : diffs) {
        std::vector<std::string> line{d.key};
        for (const auto& v : d.values)
            line.push_back(v.value_or("(absent)"));
        differing.add(line);
    }
    differing.print(std::cout);
    return 0;
}

int exportRun(RunStore& store, const Args& args) {
    requireArgs(args, 1, "runs export ID... --format csv|json [--out FILE]", /*atLeast=*/true);
    const std::string format = args.valueOr("format", "csv");
    if (format != "csv" && format != "json")
        throw ConfigError("--format", "'" + format + "' is not csv or json");
    if (args.positional().size() > 2) { // several runs: every series, one row per point
        if (format != "csv")
            throw ConfigError("--format", "several runs export as csv (run,series,x,value)");
        std::vector<std::string> ids;
        for (const std::string& id : runIds(args))
            ids.push_back(store.resolveId(id));
        if (const auto out = args.value("out")) {
            exportToFile(*out, store.path(),
                         [&](std::ostream& o) { exportLongCsv(store, ids, args, o); });
            return 0;
        }
        exportLongCsv(store, ids, args, std::cout);
        return 0;
    }
    const std::string id = store.resolveId(args.positional()[1]);
    const ExportFormat f = format == "csv" ? ExportFormat::Csv : ExportFormat::Json;
    if (const auto out = args.value("out")) {
        exportRunToFile(store, id, f, *out);
        return 0;
    }
    if (f == ExportFormat::Csv)
        exportRunCsv(store, id, std::cout);
    else
        exportRunJson(store, id, std::cout);
    return 0; // main() checks that standard output took it all
}

int edit(RunStore& store, const Args& args) {
    const std::string& command = args.positional()[0];
    const auto& p = args.positional();
    if (command == "check") {
        requireArgs(args, 0, "runs check");
        const auto problems = store.checkIntegrity();
        for (const auto& line : problems)
            std::cout << line << '\n';
        std::cout << store.path() << (problems.empty() ? ": ok\n" : ": damaged\n");
        return problems.empty() ? 0 : 1;
    }
    if (command == "rename")
        requireArgs(args, 2, "runs rename ID NAME");
    else if (command == "note")
        requireArgs(args, 2, "runs note ID TEXT");
    else if (command == "delete")
        requireArgs(args, 1, "runs delete ID");
    else
        requireArgs(args, 2, "runs tag|untag ID TAG...", /*atLeast=*/true);
    const std::string id = store.resolveId(p[1]);
    if (command == "rename") {
        store.rename(id, p[2]);
        std::cout << "renamed " << id << " to '" << p[2] << "'\n";
    } else if (command == "note") {
        store.setNotes(id, p[2]);
        std::cout << "noted " << id << '\n';
    } else if (command == "delete") {
        store.deleteRun(id);
        std::cout << "deleted " << id << '\n';
    } else {
        for (std::size_t i = 2; i < p.size(); ++i) {
            if (command == "tag")
                store.addTag(id, p[i]);
            else
                store.removeTag(id, p[i]);
        }
        std::cout << id << " tags: " << joined(store.getRun(id).tags, ", ") << '\n';
    }
    return 0;
}

} // namespace

int cmdRuns(const Argv& argv) {
    const Args args(argv, specOf("runs"));
    if (args.flag("help") || args.positional().empty()) {
        std::cout << kRunsUsage << '\n';
        return args.flag("help") ? 0 : 2;
    }
    const std::string path = args.valueOr("db", defaultDatabasePath());
    const std::string& command = args.positional()[0];
    if (command == "list" || command == "show" || command == "compare" || command == "export" ||
        command == "watch" || command == "profile" || command == "importance") {
        const std::unique_ptr<RunStore> store = openRunStoreForQueries(path);
        if (command == "list")
            return list(*store, args);
        if (command == "profile")
            return showProfiles(*store, args);
        if (command == "importance")
            return showImportance(*store, args);
        if (command == "watch") {
            requireArgs(args, 1, "runs watch ID [--json]");
            return watchRun(*store, args.positional()[1], args);
        }
        if (command == "show")
            return show(*store, args);
        if (command == "compare")
            return compare(*store, args);
        return exportRun(*store, args);
    }
    if (command == "rename" || command == "tag" || command == "untag" || command == "note" ||
        command == "delete" || command == "check") {
        if (!std::filesystem::exists(path))
            throw StoreError(StoreError::Kind::NotFound, path,
                             path + ": no run database here yet. Train once, or pass --db PATH.");
        RunStore store(path);
        return edit(store, args);
    }
    throw ConfigError("runs", "unknown command '" + command + "'\n" + kRunsUsage);
}

} // namespace tb::cli
