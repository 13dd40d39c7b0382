// The live charts: points arrive in the graphs, smoothing is TensorBoard's, the best epoch is
// marked, CSV export, x-axis modes, missing telemetry is a gap, and replots happen only when
// there is something new.
#include "charts/binnedmeans.h"
#include "charts/chartspanel.h"
#include "charts/hardwarechart.h"
#include "charts/losschart.h"
#include "charts/precisionchart.h"
#include "charts/rankschart.h"
#include "charts/throughputchart.h"
#include "charts/validationchart.h"

#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace tb;
using namespace tb::ui;

namespace {

constexpr double kStart = 1000.0; // the run's start, Unix seconds

// Logged step i (1-based): 64 samples per step, half a second apart.
StepEvent step(int64_t i, double loss) {
    StepEvent s;
    s.step = i;
    s.samplesSeen = i * 64;
    s.unixTime = kStart + 0.5 * static_cast<double>(i);
    s.loss = loss;
    s.stepMs = 10.0;
    s.dataWaitMs = 1.0;
    s.h2dMs = 0.5;
    s.forwardMs = 3.0;
    s.backwardMs = 4.0;
    s.optimizerMs = 0.5;
    s.samplesPerSec = 6400.0;
    s.lossScale = 65536.0;
    return s;
}

// Logged steps first .. first+count-1 with a falling loss.
std::vector<StepEvent> steps(int count, int first = 1) {
    std::vector<StepEvent> out;
    for (int i = first; i < first + count; ++i)
        out.push_back(step(i, 2.0 / i));
    return out;
}

EpochEvent epoch(int64_t e, double valAcc) {
    EpochEvent ev;
    ev.epoch = e;
    ev.step = e * 100;
    ev.trainLoss = 1.0 / static_cast<double>(e);
    ev.valLoss = 1.2 / static_cast<double>(e);
    ev.valAcc = valAcc;
    return ev;
}

RunStartedEvent run(const std::string& precision) {
    RunStartedEvent ev;
    ev.config = {{"precision", precision}};
    ev.stepsPerEpoch = 100;
    return ev;
}

GpuSample gpu(int index, std::optional<double> util, std::optional<double> power) {
    GpuSample g;
    g.index = index;
    g.utilPercent = util;
    g.memUsedBytes = uint64_t{4} << 30;
    g.temperatureC = 50.0;
    g.powerW = power;
    return g;
}

std::vector<double> values(QCPGraph* graph) {
    std::vector<double> out;
    for (const QCPGraphData& d : *graph->data())
        out.push_back(d.value);
    return out;
}

QStringList readLines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    return QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT

private slots:
    // A language model's speed is drawn in tokens/s: samples/s times its block size; the next
    // run of another kind is back in samples/s.
    void languageModelThroughputInTokens() {
        ChartsPanel panel;
        RunStartedEvent text = run("32");
        text.config["dataset"] = "text";
        text.config["data.block_size"] = 64;
        panel.beginRun(text, kStart);
        const std::vector<StepEvent> s = steps(3);
        panel.addSteps(s);
        QCPGraph* rate = panel.throughputChart()->samplesPerSecGraph();
        QCOMPARE(rate->name(), QString("tokens/s"));
        QCOMPARE(rate->data()->at(0)->value, s[0].samplesPerSec * 64);
        panel.beginRun(run("32"), kStart);
        QCOMPARE(rate->name(), QString("samples/s"));
    }

    void chartsReceivePoints() {
        ChartsPanel panel;
        panel.beginRun(run("16-mixed"), kStart);
        panel.addSteps(steps(50));
        panel.addSteps(steps(70, 51)); // the next tick's batch
        panel.addEpochs({epoch(1, 0.5), epoch(2, 0.6), epoch(3, 0.7)});
        SystemSample s;
        s.unixTime = kStart + 1;
        s.gpus = {gpu(0, 80.0, 300.0), gpu(1, 70.0, 250.0)};
        panel.addSystemSamples({s, s});

        QCOMPARE(panel.stepsPerEpoch(), int64_t{100});
        QCOMPARE(panel.lossChart()->rawGraph()->dataCount(), 120);
        QCOMPARE(panel.lossChart()->smoothedGraph()->dataCount(), 120);
        QCOMPARE(panel.throughputChart()->samplesPerSecGraph()->dataCount(), 120);
        QCOMPARE(panel.throughputChart()->partGraph(ThroughputChart::Other)->dataCount(), 120);
        QCOMPARE(panel.precisionChart()->lossScaleGraph()->dataCount(), 120);
        QCOMPARE(panel.validationChart()->valAccGraph()->dataCount(), 3);
        QCOMPARE(panel.validationChart()->trainLossGraph()->dataCount(), 3);
        QVERIFY(panel.hardwareChart()->showsGpus());
        for (int g : {0, 1})
            for (auto m : {HardwareChart::Utilisation, HardwareChart::Memory,
                           HardwareChart::Temperature, HardwareChart::Power})
                QCOMPARE(panel.hardwareChart()->graph(m, g)->dataCount(), 2);

        panel.beginRun(run("32"), kStart);
        QCOMPARE(panel.lossChart()->rawGraph()->dataCount(), 0);
        QCOMPARE(panel.validationChart()->valAccGraph()->dataCount(), 0);
        // Telemetry is not the run's: it stays.
        QCOMPARE(panel.hardwareChart()->graph(HardwareChart::Utilisation, 0)->dataCount(), 2);
    }

    void lossChartSmoothsWithTheSliderWeight() {
        LossChart chart;
        chart.reset(kStart);
        chart.addSteps({step(1, 1.0), step(2, 2.0), step(3, 3.0)});
        QCOMPARE(chart.smoothingWeight(), 0.6); // TensorBoard's default
        std::vector<double> smoothed = values(chart.smoothedGraph());
        QCOMPARE(smoothed[1], 1.625);
        QVERIFY(std::abs(smoothed[2] - 1.824 / 0.784) < 1e-12);
        QCOMPARE(values(chart.rawGraph()), (std::vector<double>{1.0, 2.0, 3.0}));

        auto* slider = chart.findChild<QSlider*>(QStringLiteral("smoothingSlider"));
        QVERIFY(slider);
        auto* label = chart.findChild<QLabel*>(QStringLiteral("smoothingValue"));
        QCOMPARE(label->text(), QStringLiteral("0.60"));
        slider->setValue(0); // no smoothing: the smoothed line is the raw one
        QCOMPARE(chart.smoothingWeight(), 0.0);
        QCOMPARE(label->text(), QStringLiteral("0.00"));
        QCOMPARE(values(chart.smoothedGraph()), (std::vector<double>{1.0, 2.0, 3.0}));
        chart.setSmoothingWeight(2.0); // clamped to the slider's end
        QCOMPARE(chart.smoothingWeight(), 0.99);
        QCOMPARE(slider->value(), 99);
    }

    // A detector's loss terms: a smoothed line each, named in the legend, smoothed with the
    // loss's weight, in the CSV; a new run without terms drops them.
    void lossTermsHaveTheirOwnLines() {
        LossChart chart;
        chart.reset(kStart);
        auto withTerms = [](int64_t n, double box, double cls, double dfl) {
            StepEvent s = step(n, box + cls + dfl);
            s.lossTerms = {{"box", box}, {"cls", cls}, {"dfl", dfl}};
            return s;
        };
        chart.addSteps({withTerms(1, 2.0, 4.0, 1.0), withTerms(2, 1.0, 3.0, 1.0)});
        QCOMPARE(chart.termGraphs().size(), std::size_t(3));
        QCOMPARE(chart.termGraphs()[1]->name(), QStringLiteral("cls loss (smoothed)"));
        QVERIFY(chart.plot()->legend->visible());
        // TensorBoard's debiased EMA at 0.6: (0.4*0.6*4 + 0.4*3) / (1 - 0.36) = 3.375.
        QCOMPARE(values(chart.termGraphs()[1]), (std::vector<double>{4.0, 3.375}));
        chart.setSmoothingWeight(0.0);
        QCOMPARE(values(chart.termGraphs()[0]), (std::vector<double>{2.0, 1.0}));
        chart.fit();
        QVERIFY(chart.plot()->yAxis->range().lower <= 1.0); // the lowest term is in view
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("loss.csv"));
        QVERIFY(chart.exportCsv(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString csv = QString::fromUtf8(file.readAll());
        QVERIFY(csv.startsWith(QStringLiteral(
            "step,samples,time_s,loss,loss_smoothed,grad_norm,clipped_steps,box_loss,cls_loss,"
            "dfl_loss\n")));
        QVERIFY(csv.contains(QStringLiteral(",1,3,1\n")));
        chart.reset(kStart);
        QVERIFY(chart.termGraphs().empty());
        QVERIFY(!chart.plot()->legend->visible());
        chart.addSteps({step(1, 1.0)});
        QVERIFY(chart.termGraphs().empty());
    }

    void nonFiniteLossIsAGap() {
        LossChart chart;
        chart.reset(kStart);
        chart.addSteps({step(1, 1.0), step(2, qInf()), step(3, 3.0)});
        const std::vector<double> raw = values(chart.rawGraph());
        QVERIFY(std::isnan(raw[1]));
        QCOMPARE(raw[2], 3.0);
    }

    void bestEpochMarkerSitsAtTheBestEpoch() {
        ValidationChart chart;
        chart.resize(600, 400);
        chart.show();
        chart.addEpochs({epoch(1, 0.50), epoch(2, 0.81)});
        chart.addEpochs({epoch(3, 0.79), epoch(4, 0.81)}); // a tie keeps the first
        QVERIFY(chart.replotIfDirty());
        QCOMPARE(chart.bestEpoch(), int64_t{2});
        QCOMPARE(chart.bestMarker()->graphKey(), 2.0);
        QVERIFY(chart.bestMarker()->visible());
        QCOMPARE(chart.bestMarker()->position->value(), 81.0);
        QVERIFY(chart.bestLabel()->text().contains(QStringLiteral("epoch 2")));
        QVERIFY(chart.bestLabel()->text().contains(QStringLiteral("81.0%")));

        QCOMPARE(chart.bestLabel()->positionAlignment() & Qt::AlignHorizontal_Mask, Qt::AlignLeft);
        chart.addEpochs({epoch(5, 0.9)});
        QCOMPARE(chart.bestEpoch(), int64_t{5});
        QCOMPARE(chart.bestMarker()->graphKey(), 5.0);
        // At the right end the label reads leftwards, inside the chart.
        QCOMPARE(chart.bestLabel()->positionAlignment() & Qt::AlignHorizontal_Mask, Qt::AlignRight);
        chart.reset();
        QVERIFY(!chart.bestMarker()->visible());
    }

    // A detector's epochs: mAP50-95 on the accuracy line beside mAP50, the axis and legend say
    // so, and the best epoch is the fittest (0.1 mAP50 + 0.9 mAP50-95), as its checkpoint.
    void detectorEpochsShowMap() {
        ValidationChart chart;
        chart.resize(600, 400);
        chart.show();
        auto detected = [](int64_t n, double map50, double map5095) {
            EpochEvent e = epoch(n, map5095);
            DetectionReport d;
            d.map50 = map50;
            d.map5095 = map5095;
            e.validation.detection = d;
            return e;
        };
        QVERIFY(!chart.showsDetection());
        QVERIFY(!chart.map50Graph()->visible());
        chart.addEpochs(
            {detected(1, 0.30, 0.10), detected(2, 0.90, 0.40), detected(3, 0.50, 0.41)});
        QVERIFY(chart.replotIfDirty());
        QVERIFY(chart.showsDetection());
        QVERIFY(chart.map50Graph()->visible());
        QCOMPARE(chart.valAccGraph()->name(), QStringLiteral("mAP50-95"));
        QCOMPARE(chart.plot()->yAxis2->label(), QStringLiteral("mAP (%)"));
        QCOMPARE(values(chart.map50Graph()), (std::vector<double>{30.0, 90.0, 50.0}));
        // Epoch 3 has the higher mAP50-95, epoch 2 the higher fitness (0.450 against 0.419).
        QCOMPARE(chart.bestEpoch(), int64_t{2});
        QVERIFY(chart.bestLabel()->text().contains(QStringLiteral("best mAP50-95 40.0%")));
        chart.reset(); // the next run may be a classifier's
        QVERIFY(!chart.showsDetection());
        QCOMPARE(chart.valAccGraph()->name(), QStringLiteral("val acc"));
    }

    // gradient_clip_val: the logged steps whose interval clipped are marked on the loss, with a
    // legend to name the marks; a run that does not clip has neither.
    void clippedStepsAreMarkedOnTheLoss() {
        ChartsPanel panel;
        panel.beginRun(run("32"), kStart);
        panel.addSteps({step(1, 2.0), step(2, 1.0)});
        QCOMPARE(panel.lossChart()->clippedGraph()->dataCount(), 0);
        QVERIFY(!panel.lossChart()->plot()->legend->visible());
        StepEvent clipped = step(3, 1.5);
        clipped.gradNorm = 7.5;
        clipped.clippedSteps = 1;
        StepEvent under = step(4, 1.2);
        under.gradNorm = 0.5;
        panel.addSteps({clipped, under});
        QCOMPARE(panel.lossChart()->clippedGraph()->dataCount(), 1);
        QCOMPARE(panel.lossChart()->clippedGraph()->data()->begin()->key, 3.0);
        QCOMPARE(panel.lossChart()->clippedGraph()->data()->begin()->value, 1.5);
        QVERIFY(panel.lossChart()->plot()->legend->visible());
        panel.beginRun(run("32"), kStart);
        QCOMPARE(panel.lossChart()->clippedGraph()->dataCount(), 0);
        QVERIFY(!panel.lossChart()->plot()->legend->visible());
    }

    void csvExportWritesHeaderAndRows() {
        QTemporaryDir dir;
        ChartsPanel panel;
        panel.beginRun(run("16-mixed"), kStart);
        panel.addSteps({step(1, 2.0), step(2, 1.0)});
        panel.addEpochs({epoch(1, 0.5)});
        SystemSample s;
        s.unixTime = kStart + 2;
        s.host.cpuPercent = 40.0;
        s.gpus = {gpu(0, 90.0, std::nullopt)};
        panel.addSystemSamples({s});

        const QString loss = dir.filePath("loss.csv");
        QVERIFY(panel.lossChart()->exportCsv(loss));
        QCOMPARE(readLines(loss),
                 (QStringList{"step,samples,time_s,loss,loss_smoothed,grad_norm,clipped_steps",
                              "1,64,0.5,2,2,,0", "2,128,1,1,1.375,,0"}));
        const QString val = dir.filePath("val.csv");
        QVERIFY(panel.validationChart()->exportCsv(val));
        QCOMPARE(readLines(val),
                 (QStringList{"epoch,step,train_loss,val_loss,val_acc_percent", "1,100,1,1.2,50"}));
        const QString thr = dir.filePath("throughput.csv");
        QVERIFY(panel.throughputChart()->exportCsv(thr));
        QCOMPARE(readLines(thr).size(), 3);
        QVERIFY(readLines(thr)[0].startsWith("step,samples,time_s,samples_per_sec,data_wait_ms"));
        QCOMPARE(readLines(thr)[1], QStringLiteral("1,64,0.5,6400,1,0.5,3,4,0,0.5,1"));
        const QString prec = dir.filePath("precision.csv");
        QVERIFY(panel.precisionChart()->exportCsv(prec));
        QCOMPARE(readLines(prec)[1], QStringLiteral("1,64,0.5,65536,0"));
        // Missing values are empty fields, not 0.
        const QString hw = dir.filePath("hardware.csv");
        QVERIFY(panel.hardwareChart()->exportCsv(hw));
        QCOMPARE(readLines(hw),
                 (QStringList{"time_s,device,util_percent,mem_used_gib,temperature_c,power_w",
                              "2,cpu,40,,,", "2,gpu0,90,4,50,"}));

        // A failure is reported to whoever shows it (the window: a message box and the log).
        QSignalSpy failed(panel.lossChart(), &ChartView::exportFailed);
        const QString missing = dir.filePath("missing/dir/loss.csv");
        QVERIFY(!panel.lossChart()->exportCsv(missing));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.at(0).at(0).toString(), missing);
        QVERIFY(!failed.at(0).at(1).toString().isEmpty());
    }

    void pngExportWritesAnImage() {
        QTemporaryDir dir;
        LossChart chart;
        chart.resize(400, 300);
        chart.reset(kStart);
        chart.addSteps(steps(10));
        const QString path = dir.filePath("loss.png");
        QVERIFY(chart.exportPng(path));
        QImage image(path);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > 100);
    }

    void xAxisModeChangesTheKeys_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<double>("firstKey");
        QTest::newRow("step") << int(XAxisMode::Step) << 10.0;
        QTest::newRow("samples") << int(XAxisMode::Samples) << 640.0;
        QTest::newRow("wall time") << int(XAxisMode::WallTime) << 5.0;
    }
    void xAxisModeChangesTheKeys() {
        QFETCH(int, mode);
        QFETCH(double, firstKey);
        ChartsPanel panel;
        panel.beginRun(run("16-mixed"), kStart);
        panel.addSteps({step(10, 1.0)});
        panel.setXAxisMode(static_cast<XAxisMode>(mode));
        panel.addSteps({step(11, 1.0)}); // points after the switch use the new keys too
        const double next = firstKey / 10.0 * 11.0;
        for (QCPGraph* g : {panel.lossChart()->rawGraph(), panel.lossChart()->smoothedGraph(),
                            panel.throughputChart()->samplesPerSecGraph(),
                            panel.throughputChart()->partGraph(ThroughputChart::DataWait),
                            panel.precisionChart()->lossScaleGraph()}) {
            QCOMPARE(g->dataCount(), 2);
            QCOMPARE(g->data()->at(0)->key, firstKey);
            QCOMPARE(g->data()->at(1)->key, next);
        }
        QCOMPARE(panel.lossChart()->xAxisMode(), static_cast<XAxisMode>(mode));
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("xAxisMode"));
        QCOMPARE(combo->currentData().toInt(), mode);
    }

    void comboSwitchesTheXAxis() {
        ChartsPanel panel;
        panel.beginRun(run("32"), kStart);
        panel.addSteps({step(10, 1.0)});
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("xAxisMode"));
        combo->setCurrentIndex(combo->findData(int(XAxisMode::Samples)));
        QCOMPARE(panel.xAxisMode(), XAxisMode::Samples);
        QCOMPARE(panel.lossChart()->rawGraph()->data()->at(0)->key, 640.0);
    }

    void missingGpuMetricsAreNotPlottedAsZero() {
        HardwareChart chart;
        SystemSample a, b, c;
        a.unixTime = kStart;
        a.gpus = {gpu(0, 50.0, 200.0), gpu(1, 60.0, std::nullopt)};
        b.unixTime = kStart + 0.5;
        b.gpus = {gpu(0, std::nullopt, 210.0), gpu(1, 61.0, std::nullopt)};
        c.unixTime = kStart + 1.0;
        c.gpus = {gpu(0, 52.0, 220.0)}; // GPU 1 fell off the bus
        chart.addSamples({a, b});
        chart.addSamples({c});

        // Never reported: no series at all.
        QVERIFY(chart.graph(HardwareChart::Power, 1) == nullptr);
        // Missing now and then: a gap (NaN), never 0.
        const std::vector<double> util0 = values(chart.graph(HardwareChart::Utilisation, 0));
        QCOMPARE(util0.size(), std::size_t{3});
        QCOMPARE(util0[0], 50.0);
        QVERIFY(std::isnan(util0[1]));
        QCOMPARE(util0[2], 52.0);
        const std::vector<double> util1 = values(chart.graph(HardwareChart::Utilisation, 1));
        QCOMPARE(util1.size(), std::size_t{3});
        QVERIFY(std::isnan(util1[2]));
        for (QCPGraph* g :
             {chart.graph(HardwareChart::Utilisation, 0),
              chart.graph(HardwareChart::Utilisation, 1), chart.graph(HardwareChart::Power, 0)})
            for (double v : values(g))
                QVERIFY2(v != 0.0, qPrintable(g->name()));
        // One legend entry per GPU, not one per panel.
        QCOMPARE(chart.plot()->legend->itemCount(), 2);
    }

    void hostTelemetryWithoutGpus() {
        HardwareChart chart;
        SystemSample s;
        s.unixTime = kStart;
        s.host.cpuPercent = 35.0;
        s.host.ramUsedBytes = uint64_t{8} << 30;
        SystemSample noRam = s;
        noRam.unixTime = kStart + 0.5;
        noRam.host.ramUsedBytes.reset();
        chart.addSamples({s, noRam});
        QVERIFY(!chart.showsGpus());
        QCOMPARE(values(chart.graph(HardwareChart::Utilisation, HardwareChart::kHost)),
                 (std::vector<double>{35.0, 35.0}));
        const std::vector<double> ram =
            values(chart.graph(HardwareChart::Memory, HardwareChart::kHost));
        QCOMPARE(ram[0], 8.0);
        QVERIFY(std::isnan(ram[1]));
        QCOMPARE(chart.plot()->axisRectCount(), 2);

        // The first GPU sample switches to the per-GPU panels.
        SystemSample withGpu = s;
        withGpu.unixTime = kStart + 1.0;
        withGpu.gpus = {gpu(0, 10.0, 100.0)};
        chart.addSamples({withGpu});
        QVERIFY(chart.showsGpus());
        QCOMPARE(chart.plot()->axisRectCount(), 4);
        QVERIFY(chart.graph(HardwareChart::Utilisation, HardwareChart::kHost) == nullptr);
        QCOMPARE(chart.graph(HardwareChart::Utilisation, 0)->dataCount(), 1);
    }

    void telemetryHistoryIsBounded() {
        HardwareChart chart;
        chart.setHistoryLimit(8);
        std::vector<SystemSample> samples;
        for (int i = 0; i < 10; ++i) {
            SystemSample s;
            s.unixTime = kStart + i;
            s.gpus = {gpu(0, 10.0 * i, 100.0)};
            samples.push_back(s);
        }
        chart.addSamples(samples);
        // Over the limit: the oldest quarter of it goes, the newest 6 stay.
        QCOMPARE(chart.sampleCount(), std::size_t{6});
        QCPGraph* util = chart.graph(HardwareChart::Utilisation, 0);
        QCOMPARE(util->dataCount(), 6);
        QCOMPARE(util->data()->at(0)->value, 40.0);
        QCOMPARE(util->data()->at(0)->key, 4.0); // still timed from the first sample ever
        chart.addSamples({samples.back()});
        QCOMPARE(chart.sampleCount(), std::size_t{7});
        QCOMPARE(util->dataCount(), 7);
    }

    void telemetryIsKeyedFromTheRunStart() {
        HardwareChart chart;
        SystemSample s;
        s.unixTime = kStart + 4.0;
        s.host.cpuPercent = 10.0;
        chart.addSamples({s});
        QCOMPARE(chart.graph(HardwareChart::Utilisation, HardwareChart::kHost)->data()->at(0)->key,
                 0.0); // no run yet: from the first sample
        chart.setTimeOrigin(kStart + 10.0);
        QCOMPARE(chart.graph(HardwareChart::Utilisation, HardwareChart::kHost)->data()->at(0)->key,
                 -6.0); // before the run
    }

    void replotsOnlyWhenDirty() {
        LossChart chart;
        chart.resize(400, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.reset(kStart);
        QSignalSpy replots(chart.plot(), &QCustomPlot::afterReplot);
        QVERIFY(!chart.isDirty());
        QVERIFY(!chart.replotIfDirty());
        QCOMPARE(replots.count(), 0);

        chart.addSteps(steps(5));
        QVERIFY(chart.isDirty());
        QVERIFY(chart.replotIfDirty());
        QCOMPARE(replots.count(), 1);
        QVERIFY(!chart.replotIfDirty()); // nothing new
        chart.addSteps({});
        QVERIFY(!chart.replotIfDirty()); // an empty batch is nothing new
        QCOMPARE(replots.count(), 1);
    }

    void panelReplotsEachDirtyChartOnce() {
        ChartsPanel panel;
        panel.resize(1280, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.beginRun(run("16-mixed"), kStart);
        panel.replot();
        QSignalSpy loss(panel.lossChart()->plot(), &QCustomPlot::afterReplot);
        QSignalSpy validation(panel.validationChart()->plot(), &QCustomPlot::afterReplot);
        panel.addSteps(steps(3));
        panel.addSteps(steps(3, 4)); // two batches in one tick: still one replot
        panel.replot();
        panel.replot();
        QCOMPARE(loss.count(), 1);
        QCOMPARE(validation.count(), 0); // no epoch arrived
    }

    void hiddenChartReplotsWhenShown() {
        LossChart chart;
        chart.resize(400, 300);
        chart.reset(kStart);
        chart.addSteps(steps(5));
        QVERIFY(!chart.replotIfDirty());
        QVERIFY(chart.isDirty());
        chart.show();
        QTRY_VERIFY(!chart.isDirty());
        QVERIFY(chart.plot()->xAxis->range().upper >= 5.0); // fitted to the data on show
    }

    void precisionChartOnlyFor16Mixed_data() {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<bool>("shown");
        QTest::newRow("16-mixed") << "16-mixed" << true;
        QTest::newRow("bf16-mixed") << "bf16-mixed" << false;
        QTest::newRow("32") << "32" << false;
    }
    void precisionChartOnlyFor16Mixed() {
        QFETCH(QString, precision);
        QFETCH(bool, shown);
        ChartsPanel panel;
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.beginRun(run(precision.toStdString()), kStart);
        QCOMPARE(panel.precisionChart()->isVisible(), shown);
        RunStartedEvent numeric; // precision=32 is written as the number 32
        numeric.config = {{"precision", 32}};
        panel.beginRun(numeric, kStart);
        QVERIFY(!panel.precisionChart()->isVisible());
    }

    void ranksChartOnlyForDataParallelRuns() {
        ChartsPanel panel;
        panel.resize(1600, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.beginRun(run("32"), kStart);
        QVERIFY(!panel.ranksChart()->isVisible());
        RunStartedEvent job = run("16-mixed");
        job.config["distributed"] = "mpi";
        job.config["ranks"] = 2;
        panel.beginRun(job, kStart);
        QVERIFY(panel.ranksChart()->isVisible());
        QVERIFY(panel.precisionChart()->isVisible()); // both fit beside the hardware chart
        panel.layout()->activate();
        const QRect ranks = panel.ranksChart()->geometry(), hw = panel.hardwareChart()->geometry();
        QVERIFY(!ranks.intersects(hw) && !ranks.intersects(panel.precisionChart()->geometry()));
    }

    // Rank 1 is slow: rank 0 waits for it in the all-reduce. The lines and lanes say so.
    void ranksChartShowsEachRanksLane() {
        RanksChart chart;
        chart.reset(kStart);
        std::vector<StepEvent> logged = steps(20);
        for (std::size_t i = 0; i < logged.size(); ++i)
            logged[i].ranks = {{10.0, 1.0, 5.0, 3.0 + (i >= 10 ? 1.0 : 0.0)},
                               {10.0, 1.0, 8.5, 0.2}};
        chart.addSteps(logged);
        QCOMPARE(chart.rankCount(), 2);
        QCOMPARE(chart.computeGraph(1)->dataCount(), 20);
        QCOMPARE(values(chart.allReduceGraph(0)).back(), 4.0);
        // The lanes: the mean of the last 10 intervals, the rest of the step as "other".
        QCOMPARE(chart.laneMs(0, RanksChart::Compute), 5.0);
        QCOMPARE(chart.laneMs(0, RanksChart::AllReduce), 4.0);
        QCOMPARE(chart.laneMs(1, RanksChart::Compute), 8.5);
        QCOMPARE(chart.laneMs(0, RanksChart::Other), 0.0);
        QVERIFY(std::abs(chart.laneMs(1, RanksChart::Other) - 0.3) < 1e-12);
        // A run without ranks adds nothing; a reset forgets them.
        chart.addSteps(steps(3, 21));
        QCOMPARE(chart.computeGraph(0)->dataCount(), 20);
        QTemporaryDir dir;
        QVERIFY(chart.exportCsv(dir.filePath("ranks.csv")));
        const QStringList lines = readLines(dir.filePath("ranks.csv"));
        QCOMPARE(lines.size(), 21);
        QVERIFY(lines[0].startsWith("step,samples,time_s,rank0_step_ms,rank0_data_wait_ms"));
        QVERIFY(lines[1].endsWith(",10,1,8.5,0.2"));
        chart.reset(kStart);
        QCOMPARE(chart.rankCount(), 0);
    }

    void autoscaleShowsAllDataUntilTheUserZooms() {
        LossChart chart;
        chart.resize(500, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.reset(kStart);
        chart.addSteps(steps(100));
        QVERIFY(chart.replotIfDirty());
        QCPRange x = chart.plot()->xAxis->range();
        QVERIFY(x.lower <= 1.0 && x.upper >= 100.0);
        QCPRange y = chart.plot()->yAxis->range();
        QVERIFY(y.lower <= 0.02 && y.upper >= 2.0);

        const QPointF centre = chart.plot()->axisRect()->rect().center();
        QWheelEvent wheel(centre, chart.plot()->mapToGlobal(centre), QPoint(), QPoint(0, 360),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(chart.plot(), &wheel);
        QVERIFY(!chart.isAutoscaling());
        const QCPRange zoomed = chart.plot()->xAxis->range();
        QVERIFY(zoomed.size() < x.size());
        std::vector<StepEvent> more;
        for (int i = 101; i <= 200; ++i)
            more.push_back(step(i, 0.5));
        chart.addSteps(more);
        QVERIFY(chart.replotIfDirty());
        QCOMPARE(chart.plot()->xAxis->range(), zoomed); // the user's view stays

        auto* fit = chart.findChild<QToolButton*>(QStringLiteral("fitButton"));
        QTest::mouseClick(fit, Qt::LeftButton);
        QVERIFY(chart.isAutoscaling());
        x = chart.plot()->xAxis->range();
        QVERIFY(x.lower <= 1.0 && x.upper >= 200.0);

        // A double-click on the plot fits too.
        QApplication::sendEvent(chart.plot(), &wheel);
        QVERIFY(!chart.isAutoscaling());
        QTest::mouseDClick(chart.plot(), Qt::LeftButton, Qt::NoModifier, centre.toPoint());
        QVERIFY(chart.isAutoscaling());
        QVERIFY(chart.plot()->xAxis->range().upper >= 200.0);
    }

    void stackedPartsEndAtTheStepTime() {
        ThroughputChart chart;
        chart.reset(kStart);
        StepEvent s = step(1, 1.0);
        chart.addSteps({s});
        QCOMPARE(chart.partGraph(ThroughputChart::DataWait)->data()->at(0)->value, 1.0);
        QCOMPARE(chart.partGraph(ThroughputChart::HostToDevice)->data()->at(0)->value, 1.5);
        QCOMPARE(chart.partGraph(ThroughputChart::Optimizer)->data()->at(0)->value, 9.0);
        QCOMPARE(chart.partGraph(ThroughputChart::Other)->data()->at(0)->value, s.stepMs);
        QCOMPARE(chart.partGraph(ThroughputChart::HostToDevice)->channelFillGraph(),
                 chart.partGraph(ThroughputChart::DataWait));
    }

    void binnedMeansStayUnderTheBinLimit() {
        BinnedMeans bins(2, 4);
        for (int i = 1; i <= 9; ++i) {
            const double v[2] = {double(i), 10.0 * i};
            bins.add(double(i), v);
            QVERIFY(bins.binCount() <= 4);
        }
        // 9 points in bins of 4: {1..4}, {5..8}, {9}.
        QCOMPARE(bins.pointsPerBin(), std::size_t{4});
        QCOMPARE(bins.binCount(), std::size_t{3});
        QCOMPARE(bins.key(0), 2.5);
        QCOMPARE(bins.value(1, 0), 6.5);
        QCOMPARE(bins.value(1, 1), 65.0);
        QCOMPARE(bins.value(2, 1), 90.0);
        bins.clear();
        QCOMPARE(bins.binCount(), std::size_t{0});
        QCOMPARE(bins.pointsPerBin(), std::size_t{1});
    }

    void stepTimeAreasAreBinnedMeans() {
        ThroughputChart chart;
        chart.reset(kStart);
        const int n = int(ThroughputChart::kAreaBins) * 3;
        std::vector<StepEvent> many = steps(n);
        for (std::size_t i = 0; i < many.size(); ++i)
            many[i].dataWaitMs = i % 2 ? 2.0 : 0.0; // alternating: a bin's mean is 1
        chart.addSteps(many);
        QCOMPARE(chart.samplesPerSecGraph()->dataCount(), n); // the line keeps every point
        QCPGraph* wait = chart.partGraph(ThroughputChart::DataWait);
        QVERIFY(wait->dataCount() <= int(ThroughputChart::kAreaBins));
        QVERIFY(wait->dataCount() >= int(ThroughputChart::kAreaBins) / 2);
        for (const QCPGraphData& d : *wait->data())
            QCOMPARE(d.value, 1.0);
    }

    void paletteChangeRestylesTheAxes() {
        LossChart chart;
        QPalette dark = chart.palette();
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        chart.setPalette(dark);
        QCOMPARE(chart.plot()->xAxis->tickLabelColor(), QColor(230, 230, 230));
        QCOMPARE(chart.plot()->axisRect()->backgroundBrush().color(), QColor(30, 30, 30));
    }

    void labelsFollowAPaletteSetBeforeTheChartExisted() {
        QWidget window;
        QPalette dark = window.palette();
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        window.setPalette(dark); // inherited at construction: no PaletteChange event
        auto* chart = new ValidationChart(&window);
        chart->addEpochs({epoch(1, 0.5)});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(chart->bestLabel()->color(), QColor(230, 230, 230));
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
