// A language model's Predictions: a short GPT run on a small text writes a sample after its
// epoch, which turns the tab to the samples and the Generate panel; Generate continues a prompt
// with as many characters as asked, the same seed gives the same text, a prompt the vocabulary
// cannot spell and a file that is no checkpoint are refused in words; the status bar counts
// tokens/s.
#include "predictions/generatepanel.h"
#include "predictions/predictionspanel.h"
#include "status/runprogress.h"
#include "support/runlog.h"
#include "train/trainer.h"

#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using namespace tb::ui;

class TestGeneratePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QFile text(m_dir.filePath("corpus.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        for (int i = 0; i < 200; ++i)
            text.write("the cat sat on the mat. the dog sat on the log.\n");
        text.close();
        RunConfig c;
        c.set("dataset", "text");
        c.set("data.root", text.fileName().toStdString());
        c.set("data.block_size", "16");
        c.set("model", "gpt");
        c.set("model.n_layer", "1");
        c.set("model.n_head", "2");
        c.set("model.n_embd", "32");
        c.set("batch_size", "16");
        c.set("optimizer", "adamw");
        c.set("lr", "0.01");
        c.set("max_steps", "30");
        c.set("threads", "1");
        c.set("checkpoint_dir", m_dir.filePath("ckpt").toStdString());
        const RunFinishedEvent f = Trainer(c, m_run).run();
        QVERIFY2(f.status == RunStatus::Completed, f.error.c_str());
        m_checkpoint = QString::fromStdString(f.checkpoint);
        QVERIFY(!m_checkpoint.isEmpty());
    }

    void epochSamplesTurnTheTabToText() {
        QCOMPARE(m_run.epochs.size(), std::size_t{1});
        QVERIFY(!m_run.epochs[0].sample.empty());
        PredictionsPanel panel;
        panel.beginRun(QStringLiteral("gpt-run"));
        QVERIFY(!panel.showsLanguageModel());
        panel.addEpochs(m_run.epochs);
        panel.setCheckpoint(m_checkpoint);
        QVERIFY(panel.showsLanguageModel());
        QVERIFY(panel.epochSamplesView()->toPlainText().contains(QStringLiteral("after epoch 1")));
        const QString summary = panel.findChild<QLabel*>("predictions-summary")->text();
        QVERIFY2(summary.contains(QStringLiteral("perplexity")) &&
                     summary.contains(QStringLiteral("bits a token")),
                 qPrintable(summary));
        QTRY_VERIFY_WITH_TIMEOUT(panel.generatePanel()->modelReady(), 30000);
        panel.beginRun(QStringLiteral("another"));
        QVERIFY(!panel.showsLanguageModel());
        QVERIFY(panel.epochSamplesView()->toPlainText().isEmpty());
    }

    void generateContinuesThePrompt() {
        GeneratePanel g;
        g.setCheckpoint(m_checkpoint);
        QTRY_VERIFY_WITH_TIMEOUT(g.modelReady(), 30000);
        QVERIFY2(g.status().contains(QStringLiteral("context 16 tokens")), qPrintable(g.status()));
        g.promptEdit()->setText(QStringLiteral("the "));
        g.tokensBox()->setValue(40);
        g.seedBox()->setValue(7);
        QSignalSpy done(&g, &GeneratePanel::generated);
        g.generate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 30000);
        const QString first = g.text();
        QVERIFY(first.startsWith(QStringLiteral("the ")));
        QCOMPARE(first.size(), 4 + 40); // one character a token
        g.generate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 30000);
        QCOMPARE(g.text(), first); // the same seed, the same text
        g.temperatureBox()->setValue(0.05);
        g.topKBox()->setValue(1);
        g.generate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, 30000);
        QVERIFY(g.text().startsWith(QStringLiteral("the ")));
        // The box goes down to 0, greedy: the same text as top-k 1.
        const QString topOne = g.text();
        g.temperatureBox()->setValue(0.0);
        QCOMPARE(g.temperatureBox()->text(), QStringLiteral("0 (greedy)"));
        g.topKBox()->setValue(0);
        g.seedBox()->setValue(11);
        g.generate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 4, 30000);
        QCOMPARE(g.text(), topOne);
    }

    void refusalsSayWhy() {
        GeneratePanel g;
        g.setCheckpoint(m_checkpoint);
        QTRY_VERIFY_WITH_TIMEOUT(g.modelReady(), 30000);
        g.promptEdit()->setText(QStringLiteral("The Cat")); // no capitals in the corpus
        g.generate();
        QTRY_VERIFY_WITH_TIMEOUT(g.status().contains(QStringLiteral("vocabulary")), 30000);
        QVERIFY2(g.status().contains(QStringLiteral("'T'")), qPrintable(g.status()));
        GeneratePanel other;
        other.setCheckpoint(m_dir.filePath("corpus.txt"));
        QTRY_VERIFY_WITH_TIMEOUT(other.status().startsWith(QStringLiteral("Cannot use")), 30000);
        QVERIFY(!other.modelReady());
    }

    // The status bar counts a language model's speed in tokens: samples x block_size.
    void progressCountsTokens() {
        RunProgress progress;
        RunStartedEvent start = m_run.starts.at(0);
        start.totalSteps = 30;
        start.stepsPerEpoch = 30;
        progress.begin(start);
        StepEvent step;
        step.step = 10;
        step.epoch = 1;
        step.samplesPerSec = 100.0;
        progress.update(step);
        const QString details = progress.findChild<QLabel*>("run-details")->text();
        // The locale decides the group separator.
        QVERIFY2(details.contains(QRegularExpression(QStringLiteral("\\b1.?600 tokens/s"))),
                 qPrintable(details));
    }

private:
    QTemporaryDir m_dir;
    test::RunLog m_run;
    QString m_checkpoint;
};

QTEST_MAIN(TestGeneratePanel)
#include "tst_generatepanel.moc"
