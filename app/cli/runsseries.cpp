// runs compare --metric, the long-format export and runs watch, on RunSeries and RunTail.
#include "runsseries.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "store/rungroups.h"
#include "store/runseries.h"
#include "store/runstore.h"
#include "store/runtail.h"
#include "store/storeerror.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <thread>

namespace tb::cli {

namespace {

std::string number(double v) {
    if (!std::isfinite(v))
        return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// The metric a user named: one the catalog knows (so a typo is an error naming the choices).
std::string metricArgument(const Args& args) {
    const std::string metric = *args.value("metric");
    std::string known;
    for (const SeriesInfo& info : RunSeries::catalog()) {
        if (info.name == metric)
            return metric;
        if (info.name.rfind("gpu", 0) != 0 || info.name.rfind("gpu0/", 0) == 0)
            known += (known.empty() ? "" : ", ") + info.name;
    }
    throw ConfigError("--metric", "'" + metric + "' is not a recorded series; choose one of " +
                                      known + " (gpu1/..., gpu2/... likewise)");
}

// Prints rows of x followed by one value column per line, aligned on the union of their x.
void printColumns(const std::vector<std::string>& header,
                  const std::vector<std::pair<std::vector<double>, std::vector<std::string>>>& cols,
                  std::ostream& out) {
    std::set<double> xs;
    for (const auto& [x, v] : cols)
        xs.insert(x.begin(), x.end());
    for (std::size_t c = 0; c < header.size(); ++c)
        out << (c ? "\t" : "") << header[c];
    out << '\n';
    std::vector<std::size_t> at(cols.size(), 0);
    for (double x : xs) {
        out << number(x);
        for (std::size_t c = 0; c < cols.size(); ++c) {
            const auto& [cx, cv] = cols[c];
            while (at[c] < cx.size() && cx[at[c]] < x)
                ++at[c];
            out << '\t' << (at[c] < cx.size() && cx[at[c]] == x ? cv[at[c]] : "");
        }
        out << '\n';
    }
}

} // namespace

int compareSeries(RunStore& store, const std::vector<std::string>& ids, const Args& args) {
    const std::string metric = metricArgument(args);
    const SeriesX x = seriesXFromString(args.valueOr("x", "step"));
    std::vector<RunSeries> runs;
    for (const std::string& id : ids)
        runs.push_back(RunSeries::load(store, store.getRun(id)));
    std::vector<const RunSeries*> pointers;
    for (const RunSeries& r : runs)
        pointers.push_back(&r);
    const auto groupBy = args.value("group-by");
    const std::vector<SeriesGroup> groups =
        groupBy ? groupSeries(pointers, splitCommaList(*groupBy), metric, x)
                : std::vector<SeriesGroup>{};

    if (args.flag("json")) {
        nlohmann::json j = {
            {"metric", metric}, {"x", toString(x)}, {"runs", nlohmann::json::array()}};
        const auto finiteOrNull = [](double v) {
            return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
        };
        for (const RunSeries& r : runs) {
            const SeriesPoints p = r.points(metric, x);
            nlohmann::json xs = nlohmann::json::array(), ys = nlohmann::json::array();
            for (std::size_t i = 0; i < p.x.size(); ++i) {
                xs.push_back(finiteOrNull(p.x[i]));
                ys.push_back(finiteOrNull(p.y[i]));
            }
            j["runs"].push_back(
                {{"id", r.record().id}, {"name", r.record().name}, {"x", xs}, {"y", ys}});
        }
        if (groupBy) {
            j["groups"] = nlohmann::json::array();
            for (const SeriesGroup& g : groups)
                j["groups"].push_back({{"label", g.label},
                                       {"run_ids", g.runIds},
                                       {"x", g.x},
                                       {"mean", g.mean},
                                       {"min", g.min},
                                       {"max", g.max},
                                       {"std", g.stddev},
                                       {"count", g.count}});
        }
        std::cout << j.dump() << '\n';
        return 0;
    }
    std::vector<std::string> header{toString(x)};
    std::vector<std::pair<std::vector<double>, std::vector<std::string>>> columns;
    if (groupBy) {
        for (const SeriesGroup& g : groups) {
            header.push_back(g.label + " (n=" + std::to_string(g.runIds.size()) + ") mean");
            header.push_back("std");
            std::vector<std::string> mean, sd;
            for (std::size_t i = 0; i < g.x.size(); ++i) {
                mean.push_back(number(g.mean[i]));
                sd.push_back(number(g.stddev[i]));
            }
            columns.push_back({g.x, mean});
            columns.push_back({g.x, sd});
        }
    } else {
        for (const RunSeries& r : runs) {
            header.push_back(r.record().id);
            const SeriesPoints p = r.points(metric, x);
            std::vector<std::string> values;
            for (double y : p.y)
                values.push_back(number(y));
            columns.push_back({p.x, values});
        }
    }
    std::cout << "# " << metric << " against " << seriesXLabel(x) << '\n';
    printColumns(header, columns, std::cout);
    return 0;
}

void exportLongCsv(RunStore& store, const std::vector<std::string>& ids, const Args& args,
                   std::ostream& out) {
    const SeriesX x = seriesXFromString(args.valueOr("x", "step"));
    out << "run,series," << toString(x) << ",value\n";
    for (const std::string& id : ids) {
        const RunSeries run = RunSeries::load(store, store.getRun(id));
        for (const std::string& name : run.names()) {
            const SeriesPoints p = run.points(name, x);
            for (std::size_t i = 0; i < p.x.size(); ++i)
                out << run.record().id << ',' << name << ',' << number(p.x[i]) << ','
                    << number(p.y[i]) << '\n';
        }
    }
}

int watchRun(RunStore& store, const std::string& id, const Args& args) {
    const bool json = args.flag("json");
    RunTail tail(store, store.resolveId(id));
    for (;;) {
        const RunTailUpdate u = tail.poll();
        for (const StepEvent& s : u.steps) {
            if (json)
                std::cout << nlohmann::json{{"step", s.step},
                                            {"epoch", s.epoch},
                                            {"loss", s.loss},
                                            {"samples_per_s", s.samplesPerSec}}
                                 .dump()
                          << '\n';
            else
                std::printf("step %lld  epoch %lld  loss %.4f  %.0f samples/s\n",
                            static_cast<long long>(s.step), static_cast<long long>(s.epoch), s.loss,
                            s.samplesPerSec);
        }
        for (const EpochEvent& e : u.epochs)
            if (json)
                std::cout << nlohmann::json{{"epoch", e.epoch},
                                            {"val_acc", e.valAcc},
                                            {"val_loss", e.valLoss}}
                                 .dump()
                          << '\n';
            else
                std::printf("epoch %lld  val acc %.2f%%  val loss %.4f\n",
                            static_cast<long long>(e.epoch), e.valAcc * 100.0, e.valLoss);
        std::cout.flush();
        std::fflush(stdout);
        if (u.deleted)
            throw StoreError(StoreError::Kind::NotFound, store.path(),
                             "run " + tail.runId() + " was deleted while it was watched");
        if (tail.finished()) {
            if (!json)
                std::printf("run %s %s\n", tail.runId().c_str(),
                            toString(u.record ? u.record->status : RunStatus::Completed).c_str());
            return 0;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

} // namespace tb::cli
