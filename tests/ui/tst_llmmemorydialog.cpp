// Run > Language Model Memory: the dialog computes what the engine does for the fields it shows
// (llama-7b in bf16 for inference fits a 24 GB card and no 16 GB one); training adds gradients
// and AdamW's moments and the bar grows past every card; checkpointing and a parameter count
// of one's own change it; the bar's parts are the estimate's; opened from the Run menu.
#include "mainwindow.h"
#include "memory/llmmemorychart.h"
#include "memory/llmmemorydialog.h"

#include <QAction>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using namespace tb::ui;

class TestLlmMemoryDialog : public QObject {
    Q_OBJECT

private slots:
    void sevenBillionFitsTwentyFourGigabytesToRun() {
        LlmMemoryDialog d;
        QVERIFY(d.choosePreset(QStringLiteral("llama-7b")));
        const LlmMemoryQuery q = d.query();
        QCOMPARE(q.training, false);
        QCOMPARE(q.precision, std::string("bf16-true"));
        QCOMPARE(d.estimate().total(), estimateLlmMemory(q).total());
        QVERIFY(d.fitsText().startsWith(QStringLiteral("Fits on one RTX 3090 / 4090")));
        QVERIFY(d.fitsText().contains(QStringLiteral("RTX 4080")));
        const std::vector<double> parts = d.chart()->partsGb();
        double sum = 0.0;
        for (double p : parts)
            sum += p;
        QVERIFY(std::abs(sum - static_cast<double>(d.estimate().total()) / 1e9) < 1e-6);
        QCOMPARE(parts.front(), 6.74e9 * 2 / 1e9); // the weights at the bottom of the bar
    }

    void trainingAddsGradientsAndMoments() {
        LlmMemoryDialog d;
        d.choosePreset(QStringLiteral("llama-7b"));
        const int64_t inference = d.estimate().total();
        d.setTraining(true);
        QCOMPARE(d.query().precision, std::string("bf16-mixed"));
        const LlmMemoryEstimate& e = d.estimate();
        QCOMPARE(e.weights + e.gradients + e.optimizerState, std::llround(6.74e9 * 16));
        QVERIFY(e.total() > 5 * inference);
        // Fused attention, the default: only the 141 GB H200 holds it.
        QCOMPARE(d.query().attention, std::string("flash"));
        QVERIFY2(d.fitsText().startsWith(QStringLiteral("Fits on one H200.")),
                 qPrintable(d.fitsText()));
        const int64_t full = e.activations;
        // Eager attention stores every head's scores: far more, and no single GPU holds it.
        d.setAttention(QStringLiteral("eager"));
        QCOMPARE(d.query().attention, std::string("eager"));
        QVERIFY(d.estimate().activations > 4 * full);
        QVERIFY(d.fitsText().startsWith(QStringLiteral("Fits on none")));
        d.setAttention(QStringLiteral("flash"));
        d.setCheckpointing(true);
        QVERIFY(d.estimate().activations < full / 4);
        QVERIFY(d.fitsText().contains(QStringLiteral("H200")));
        // Quantised weights are for inference: choosing int4 while training is refused in words.
        d.setPrecision(QStringLiteral("int4"));
        QVERIFY(d.findChild<QLabel*>("llm-memory-total")->text().startsWith("Cannot estimate"));
    }

    void aSizeOfItsOwnTakesTheNearestShape() {
        LlmMemoryDialog d;
        d.choosePreset(QStringLiteral("gpt2"));
        auto* params = d.findChild<QDoubleSpinBox*>();
        QVERIFY(params);
        params->setValue(3.0); // 3 billion
        const LlmMemoryQuery q = d.query();
        QCOMPARE(q.model.params, 3e9);
        QVERIFY(q.model.layers > 12 && q.model.width > 768);
        QCOMPARE(d.estimate().weights, std::llround(3e9 * 2));
    }

    void theRunMenuOpensIt() {
        QTemporaryDir tmp;
        MainWindow w(tmp.filePath("runs.db"));
        auto* action = w.findChild<QAction*>(QStringLiteral("action-llm-memory"));
        QVERIFY(action);
        action->trigger();
        auto* dialog = w.findChild<LlmMemoryDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(dialog->estimate().total() > 0);
    }
};

QTEST_MAIN(TestLlmMemoryDialog)
#include "tst_llmmemorydialog.moc"
