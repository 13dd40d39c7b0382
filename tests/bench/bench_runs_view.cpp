// bench_runs_view: the Runs tab on a large store. Builds it once (200 runs x 10,000 logged steps,
// plus 10 runs x 100,000 to compare), then measures what a user waits for: the window's cold
// start until the table lists every run, opening a comparison of the 10 long runs (selected ->
// every point read and drawn), pan and zoom redraws of that comparison (median and p99), and the
// process RSS before and after. Prints one JSON object.
//   tb_bench_runs_view [--store PATH]     (default: a temporary store, deleted after)
//   tb_bench_runs_view --follow PATH      (live follow only: waits for a run being written to
//                                          PATH, compares it until it ends; for
//                                          tests/bench/live_follow.sh)
// Not a test.
#include "mainwindow.h"
#include "runs/comparison.h"
#include "runs/comparisonplot.h"
#include "runs/comparisonview.h"
#include "runs/runstablemodel.h"
#include "runs/runsview.h"
#include "setup/setuppanel.h"
#include "support/benchfigures.h"
#include "support/storedruns.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryDir>
#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>

using namespace tb;
using tb::test::percentile;
using tb::test::procStatusMiB;

namespace {

constexpr int kListedRuns = 200;
constexpr int64_t kListedSteps = 10'000;
constexpr int kComparedRuns = 10;
constexpr int64_t kComparedSteps = 100'000;

std::string runId(int n) {
    char id[40];
    std::snprintf(id, sizeof id, "20261101-%06d-%012d", n, n);
    return id;
}

QStringList writeStore(const QString& path) {
    QStringList compared;
    if (QFileInfo::exists(path)) {
        for (int n = kListedRuns; n < kListedRuns + kComparedRuns; ++n)
            compared << QString::fromStdString(runId(n));
        return compared;
    }
    RunStore store(path.toStdString());
    for (int n = 0; n < kListedRuns + kComparedRuns; ++n) {
        const bool long_ = n >= kListedRuns;
        test::StoredRun r = test::storedRun(runId(n), "run-" + std::to_string(n));
        r.config = {{"lr", 0.01 * (1 + n % 5)}, {"seed", n % 3}};
        r.steps = long_ ? kComparedSteps : kListedSteps;
        r.stepsPerEpoch = r.steps / 10;
        r.lossScale = 1.0 + 0.01 * n;
        r.lossNoise = 0.3;
        r.startedAt += 60.0 * n;
        test::writeStoredRun(store, r);
        if (long_)
            compared << QString::fromStdString(r.id);
    }
    return compared;
}

// Waits for a run being written to `path`, compares it (so the view follows it) until it ends.
// Gives up (exit 1) when no run is being written there within a minute.
int follow(QApplication& app, const QString& path) {
    ui::MainWindow w(path);
    w.resize(1280, 800);
    w.show();
    w.showTab(&w.runs());
    bool seen = false;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &app, [&] {
        ui::RunsTableModel* model = w.runs().model();
        for (int row = 0; row < model->rowCount(); ++row) {
            const RunRecord& r = model->runAt(row);
            if (r.status != RunStatus::Running)
                continue;
            if (!seen)
                w.runs().selectRuns({QString::fromStdString(r.id)});
            seen = true;
            return;
        }
        if (seen)
            app.exit(0); // it ended
    });
    poll.start(100);
    QTimer::singleShot(60'000, &app, [&] {
        if (!seen)
            app.exit(1);
    });
    return app.exec();
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QTemporaryDir tmp;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, tmp.filePath("settings"));
    QString path = tmp.filePath("runs.db");
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--store") == 0)
            path = QString::fromLocal8Bit(argv[i + 1]);
        if (std::strcmp(argv[i], "--follow") == 0)
            return follow(app, QString::fromLocal8Bit(argv[i + 1]));
    }

    QElapsedTimer clock;
    clock.start();
    const QStringList compared = writeStore(path);
    const double writeSeconds = static_cast<double>(clock.elapsed()) / 1000.0;

    nlohmann::json out;
    out["store_rows"] = kListedRuns * kListedSteps + kComparedRuns * kComparedSteps;
    out["store_mib"] = static_cast<double>(QFileInfo(path).size()) / (1 << 20);
    out["store_write_s"] = writeSeconds;

    out["rss_start_mib"] = procStatusMiB("VmRSS:");
    clock.restart();
    ui::MainWindow w(path);
    w.resize(1920, 1080);
    w.show();
    w.showTab(&w.runs());
    ui::RunsTableModel* model = w.runs().model();
    while (model->rowCount() < kListedRuns + kComparedRuns)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    out["list_s"] = static_cast<double>(clock.elapsed()) / 1000.0;
    // The set-up column opens the default dataset meanwhile; wait for it, so that what the
    // comparison adds is measured on its own.
    while (w.setup().busy())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    QApplication::processEvents();
    out["rss_listed_mib"] = procStatusMiB("VmRSS:");

    ui::ComparisonView* cv = w.runs().comparisonView();
    cv->setSeries(QStringLiteral("train/loss"));
    clock.restart();
    w.runs().selectRuns(compared);
    while (!w.runs().comparison()->complete())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    out["read_runs_s"] = static_cast<double>(clock.elapsed()) / 1000.0;
    while (!cv->upToDate())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    QCustomPlot* plot = cv->plot()->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    out["open_comparison_s"] = static_cast<double>(clock.elapsed()) / 1000.0;
    out["compared_points"] = kComparedRuns * kComparedSteps;
    int64_t drawn = 0;
    for (const ui::ComparisonLine& line : cv->plot()->lines())
        drawn += cv->plot()->mainGraph(line.id)->dataCount();
    out["points_in_graphs"] = drawn;
    out["rss_compared_mib"] = procStatusMiB("VmRSS:");

    // Pans across the whole run and zooms in to 1/1000 of it and out again, one redraw each.
    std::vector<double> panMs, zoomMs;
    QCPAxis* x = plot->xAxis;
    const QCPRange full = x->range();
    for (int i = 0; i < 60; ++i) {
        x->moveRange(full.size() / 100.0);
        clock.restart();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        panMs.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    }
    for (int i = 0; i < 60; ++i) {
        x->scaleRange(i < 30 ? 0.8 : 1.25, x->range().center());
        clock.restart();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        zoomMs.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    }
    std::vector<double> all = panMs;
    all.insert(all.end(), zoomMs.begin(), zoomMs.end());
    out["pan_ms_median"] = percentile(panMs, 0.5);
    out["zoom_ms_median"] = percentile(zoomMs, 0.5);
    out["redraw_ms_median"] = percentile(all, 0.5);
    out["redraw_ms_p99"] = percentile(all, 0.99);
    out["rss_peak_mib"] = procStatusMiB("VmHWM:");
    std::cout << out.dump(2) << std::endl;
    return 0;
}
