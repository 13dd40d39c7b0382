// chartshot: fills a ChartsPanel with a synthetic 16-mixed run on 4 GPUs that clips its
// gradients (and a CPU-only one)
// and saves QWidget::grab() PNGs at 1280x800 and 1920x1080 in a light and a dark palette, to
// look at the charts without a training run. Usage: tb_chartshot [OUTDIR] (default: .)
#include "charts/chartspanel.h"
#include "darkpalette.h"
#include "support/syntheticrun.h"
#include "train/advisor.h"

#include <QApplication>
#include <QDir>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <cmath>
#include <cstdio>

using namespace tb;
using namespace tb::ui;

namespace {

// 6,000 logged steps (15 epochs) with telemetry from a minute before the start.
void fill(ChartsPanel& panel, int gpus) {
    test::SyntheticRunOptions options;
    options.gpus = gpus;
    options.mixedPrecision = gpus > 0;
    options.stepsPerEpoch = 400;
    test::SyntheticRun run(options);
    panel.beginRun(run.started(), options.startUnixTime);
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    for (int i = 0; i < 6000; ++i) {
        steps.push_back(run.nextStep());
        // The CPU shot slows down late in the run, backward growing as denormals make it, for
        // the advisor to mark.
        if (gpus == 0 && i >= 4000) {
            StepEvent& s = steps.back();
            s.stepMs += 1.4 * s.backwardMs;
            s.backwardMs *= 2.4;
            s.samplesPerSec = static_cast<double>(options.batchSize) / s.stepMs * 1000.0;
        }
        // The GPU shot clips its gradients (gradient_clip_val=1): the early steps, whose
        // gradients are large, and now and then a spike later.
        if (gpus > 0) {
            StepEvent& s = steps.back();
            s.gradNorm = 4.0 * std::exp(-i / 300.0) + 0.4 + (i % 997 == 0 ? 1.5 : 0.0);
            s.clippedSteps = s.gradNorm > 1.0 ? 1 : 0;
        }
        if (run.epochEnded())
            epochs.push_back(run.lastEpoch());
    }
    std::vector<SystemSample> samples;
    const double end = steps.back().unixTime;
    for (double t = options.startUnixTime - 60.0; t <= end; t += 0.5)
        samples.push_back(run.sample(t));
    panel.addSteps(steps);
    panel.addEpochs(epochs);
    panel.addSystemSamples(samples);
    // The advisor reads the synthetic run as it reads a real one; what it says is marked.
    Advisor advisor(AdvisorContext{2, options.mixedPrecision ? "16-mixed" : "32",
                                   gpus > 0 ? "cuda:0" : "cpu", gpus > 0, ""});
    for (const StepEvent& step : steps)
        for (const AdviceEvent& advice : advisor.onStep(step, run.sample(step.unixTime)))
            panel.addAdvice(advice);
}

bool shoot(const QString& dir, const QString& name, const QSize& size, int gpus) {
    ChartsPanel panel;
    panel.resize(size);
    fill(panel, gpus);
    panel.show();
    QApplication::processEvents();
    panel.replot();
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(name);
    const bool ok = panel.grab().save(path);
    std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral(".");
    QDir().mkpath(dir);
    const QPalette light = QApplication::style()->standardPalette();
    bool ok = true;
    for (const auto& [theme, palette] :
         {std::pair{"light", light}, {"dark", test::darkPalette()}}) {
        QApplication::setPalette(palette);
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            const QString base = QStringLiteral("charts-%1-%2x%3")
                                     .arg(QLatin1String(theme))
                                     .arg(size.width())
                                     .arg(size.height());
            ok = shoot(dir, base + QStringLiteral("-4gpu.png"), size, 4) && ok;
        }
        ok = shoot(dir, QStringLiteral("charts-%1-1280x800-cpu.png").arg(QLatin1String(theme)),
                   QSize(1280, 800), 0) &&
             ok;
    }
    return ok ? 0 : 1;
}
