// SetupPanel: the first launch is ready to train the default; an invalid value is marked at its
// field and blocks Train with the schema's message; the derived views follow the knobs.
#include "setup/datasetpanel.h"
#include "setup/lrpreview.h"
#include "setup/memorybar.h"
#include "setup/modelpanel.h"
#include "setup/setuppanel.h"
#include "status/wrappinglabel.h"
#include "support/testdata.h"
#include "uitestutil.h"

#include <nlohmann/json.hpp>

#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace tb;
using tb::ui::SetupPanel;

namespace {

void typeInto(SetupPanel& panel, const QString& key, const QString& text) {
    auto* edit = panel.findChild<QLineEdit*>(key);
    QVERIFY2(edit, qPrintable(key));
    edit->selectAll();
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Backspace);
    else
        QTest::keyClicks(edit, text);
}

// The accessible interfaces of the controls a screen reader edits (line edits, combo boxes,
// check boxes) under `a`, in the tree's order, skipping hidden ones.
void editableControls(QAccessibleInterface* a, std::vector<QAccessibleInterface*>& out) {
    if (!a || a->state().invisible)
        return;
    const QAccessible::Role role = a->role();
    if (role == QAccessible::EditableText || role == QAccessible::ComboBox ||
        role == QAccessible::CheckBox)
        out.push_back(a);
    for (int i = 0; i < a->childCount(); ++i)
        editableControls(a->child(i), out);
}

// The config as "key": value text, every key flattened ("data.image_size").
QMap<QString, QString> flatConfig(const SetupPanel& panel) {
    QMap<QString, QString> values;
    const nlohmann::json flat = panel.config().toJson().flatten();
    for (const auto& [pointer, value] : flat.items())
        values.insert(QString::fromStdString(pointer).mid(1).replace('/', '.'),
                      QString::fromStdString(value.dump()));
    return values;
}

} // namespace

class TestSetupPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void firstLaunchIsReadyToTrainTheDefault() {
        if (const std::string why = test::fashionMnistMissing(); !why.empty())
            QSKIP(why.c_str());
        SetupPanel panel;
        QCOMPARE(panel.findChild<QComboBox*>("dataset")->currentText(), QString("fashion-mnist"));
        QCOMPARE(panel.findChild<QComboBox*>("model")->currentText(), QString("fmnist-cnn"));
        QCOMPARE(panel.findChild<QComboBox*>("device")->currentData().toString(), QString("auto"));
        QTRY_VERIFY_WITH_TIMEOUT(panel.blocker().isEmpty(), 30000);
        const QString summary = panel.findChild<QLabel*>("dataset-summary")->text();
        QVERIFY2(summary.contains("60,000 training") && summary.contains("10 classes"),
                 qPrintable(summary));
        QVERIFY(panel.findChild<QLabel*>("dataset-classes")->text().contains("Ankle boot"));
        QVERIFY(!panel.findChild<QLabel*>("dataset-samples")->pixmap().isNull());
        const RunConfig c = panel.config();
        QCOMPARE(c.model, std::string("fmnist-cnn"));
        QCOMPARE(c.data.name, std::string("fashion-mnist"));
        QCOMPARE(c.batchSize, int64_t{64});
    }

    // Each field as a screen reader finds it: walking the panel's accessible tree, every
    // editable control named after a config key (by its own name, and by the label related to
    // it) is that key's editor, no key is named twice, and typing into it changes that key and
    // no other, and if it blocks Train (other than while a dataset opens), names that key. (Typing
    // "0" into the editor the tree named keep_last_checkpoints once changed log_every_n_steps.)
    void everyEditorIsNamedAfterTheKeyItSets() {
        SetupPanel panel;
        panel.resize(1280, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        std::vector<QAccessibleInterface*> controls;
        editableControls(QAccessible::queryAccessibleInterface(&panel), controls);
        QStringList named;
        for (QAccessibleInterface* a : controls) {
            // What a screen reader says for it: the label related to it, else its name (on
            // Linux a combo box's name is its value, so the label tells rows apart).
            const auto labels = a->relations(QAccessible::Label);
            const QString key = labels.empty() ? a->text(QAccessible::Name)
                                               : labels.front().first->text(QAccessible::Name);
            auto* editor = qobject_cast<QWidget*>(a->object());
            if (!editor || panel.editorOf(key) == nullptr)
                continue; // a control of no config key (the layer table's filter, ...)
            QVERIFY2(panel.editorOf(key) == editor,
                     qPrintable(key + ": the tree names " + editor->objectName()));
            for (const auto& [label, relation] : labels)
                QCOMPARE(label->text(QAccessible::Name), key);
            if (a->role() != QAccessible::ComboBox)
                QCOMPARE(a->text(QAccessible::Name), key);
            QVERIFY2(!named.contains(key), qPrintable(key + " is named twice"));
            named << key;
        }
        for (const char* key : {"batch_size", "lr", "keep_last_checkpoints", "log_every_n_steps",
                                "precision", "num_workers", "deterministic"})
            QVERIFY2(named.contains(QLatin1String(key)), key);
        qInfo("%lld editors named after their keys", static_cast<long long>(named.size()));

        // Typing through what the tree names: only that key may change, or be blamed.
        for (QAccessibleInterface* a : controls) {
            const QString key = a->text(QAccessible::Name); // a line edit's own name
            auto* edit = qobject_cast<QLineEdit*>(a->object());
            if (!edit || !named.contains(key) || !edit->isEnabled())
                continue;
            const QString before = edit->text();
            const QMap<QString, QString> was = flatConfig(panel);
            edit->setFocus();
            edit->selectAll();
            QTest::keyClicks(edit, QStringLiteral("0"));
            const QMap<QString, QString> now = flatConfig(panel);
            for (auto it = now.cbegin(); it != now.cend(); ++it)
                if (it.key() != key && !it.key().startsWith(key + '.')) // tags.0: tags
                    QVERIFY2(was.value(it.key()) == it.value(),
                             qPrintable("typing into " + key + " changed " + it.key()));
            QVERIFY2(panel.blocker().isEmpty() || panel.busy() || panel.blocker().contains(key),
                     qPrintable("typing into " + key + " blocks Train with: " + panel.blocker()));
            edit->selectAll();
            if (before.isEmpty())
                QTest::keyClick(edit, Qt::Key_Backspace);
            else
                QTest::keyClicks(edit, before);
        }
    }

    // A text dataset is described in tokens: windows, a vocabulary (control characters and
    // the space shown so they can be seen) and a line of the text; a GPT on it is ready.
    void textDatasetShowsItsVocabulary() {
        QFile file(m_dir.filePath("poem.txt"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (int i = 0; i < 100; ++i)
            file.write("roses are red\tviolets are blue\n");
        file.close();
        SetupPanel panel;
        RunConfig c;
        c.set("dataset", "text");
        c.set("data.root", file.fileName().toStdString());
        c.set("data.block_size", "16");
        c.set("model", "gpt");
        panel.setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(panel.blocker().isEmpty(), qPrintable(panel.blocker()), 30000);
        const QString summary = panel.findChild<QLabel*>("dataset-summary")->text();
        QVERIFY2(summary.contains("windows of 16 tokens") && summary.contains("vocabulary of 15"),
                 qPrintable(summary));
        QVERIFY2(summary.contains("It reads"), qPrintable(summary));
        const QString vocabulary = panel.findChild<QLabel*>("dataset-classes")->text();
        QVERIFY2(vocabulary.contains("\\t") && vocabulary.contains("\\n") &&
                     vocabulary.contains(QChar(0x2423)),
                 qPrintable(vocabulary));
    }

    void invalidValueIsMarkedAndBlocksTrain_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::newRow("lr not a number") << "lr"
                                         << "fast";
        QTest::newRow("batch_size 0") << "batch_size"
                                      << "0";
        QTest::newRow("batch_size empty") << "batch_size"
                                          << "";
        QTest::newRow("max_epochs negative") << "max_epochs"
                                             << "-3";
    }
    void invalidValueIsMarkedAndBlocksTrain() {
        QFETCH(QString, key);
        QFETCH(QString, text);
        SetupPanel panel;
        QTRY_VERIFY_WITH_TIMEOUT(panel.blocker().isEmpty(), 30000);
        auto* edit = panel.findChild<QLineEdit*>(key);
        QVERIFY(edit);
        const QString good = edit->text();
        edit->clear();
        QTest::keyClicks(edit, text);
        if (text.isEmpty())
            emit edit->textEdited(QString());
        auto* error = panel.findChild<QLabel*>(key + "-error");
        QVERIFY(error && !error->isHidden());
        QVERIFY(!error->text().isEmpty());
        QVERIFY(edit->property("invalid").toBool());
        QVERIFY2(panel.blocker().contains(key), qPrintable(panel.blocker()));
        edit->clear();
        QTest::keyClicks(edit, good);
        QVERIFY(error->isHidden());
        QVERIFY2(panel.blocker().isEmpty(), qPrintable(panel.blocker()));
    }

    void effectiveBatchFollowsTheKnobs() {
        SetupPanel panel;
        typeInto(panel, "batch_size", "32");
        typeInto(panel, "accumulate_grad_batches", "4");
        QVERIFY2(panel.findChild<QLabel*>("effective-batch")->text().contains("32 x 4 = 128"),
                 qPrintable(panel.findChild<QLabel*>("effective-batch")->text()));
        QCOMPARE(panel.config().accumulateGradBatches, 4);
    }

    // Pretrained weights: "Pretrained weights..." beside "Open spec..." (and File > Open
    // Pretrained Weights..., the same action) opens a file dialog whose choice fills
    // model.pretrained, and the path goes into the run's config.
    void pretrainedWeightsAreChosenInAFileDialog() {
        SetupPanel panel;
        panel.show();
        const QString weights = m_dir.filePath("resnet18.pth");
        QFile file(weights);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        auto* browse = panel.findChild<QPushButton*>("model-open-weights");
        QVERIFY(browse);
        QVERIFY(panel.openActions().contains(panel.findChild<QAction*>("action-open-weights")));
        bool answered = false;
        QTimer answer;
        connect(&answer, &QTimer::timeout, this, [&] {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
                dialog->selectFile(weights);
                QMetaObject::invokeMethod(dialog, "accept"); // a protected slot
                answered = true;
                answer.stop();
            }
        });
        answer.start(10);
        browse->click(); // returns once the dialog is answered
        QVERIFY(answered);
        QCOMPARE(panel.findChild<QLineEdit*>("model.pretrained")->text(), weights);
        QCOMPARE(panel.config().modelOptions.value("pretrained", ""), weights.toStdString());
    }

    // finetune.freeze=backbone: the layer table greys the frozen layers and the total says how
    // many parameters still train (fmnist-cnn's head on the 3 classes of shapes: 128 x 3 + 3).
    void frozenLayersAreGreyedAndCounted() {
        SetupPanel panel;
        RunConfig config;
        config.data.name = "shapes";
        config.model = "fmnist-cnn";
        panel.setConfig(config);
        typeInto(panel, "finetune.freeze", "backbone");
        auto* total = panel.findChild<QLabel*>("model-total");
        QTRY_VERIFY2(total->text().contains("387 of them train"), qPrintable(total->text()));
        auto* table = panel.findChild<QTableWidget*>("model-layers");
        QCOMPARE(table->item(0, 0)->text(), QString("block1.conv"));
        QVERIFY(table->item(0, 0)->toolTip().contains("Frozen"));
        const int last = table->rowCount() - 1;
        QCOMPARE(table->item(last, 0)->text(), QString("fc2"));
        QVERIFY(table->item(last, 0)->toolTip().isEmpty());
        QCOMPARE(panel.config().modelOptions.value("freeze", ""), std::string("backbone"));
    }

    // ImageNet weights on small grey shapes: the model panel says both what differs in size and
    // in normalisation, and says nothing once the weights are gone.
    void pretrainedWeightsOfOtherImagesAreWarnedOf() {
        SetupPanel panel;
        RunConfig config;
        config.data.name = "shapes";
        config.model = "fmnist-cnn";
        panel.setConfig(config);
        auto* warnings = panel.findChild<QLabel*>("model-warnings");
        QVERIFY(warnings->isHidden());
        typeInto(panel, "model.pretrained", "resnet18.pth");
        QTRY_VERIFY(!warnings->isHidden());
        auto* model = panel.findChild<ui::ModelPanel*>();
        QVERIFY2(
            model->warnings().contains("learned from 224 px images; this run gives them 32 px"),
            qPrintable(model->warnings()));
        QVERIFY2(model->warnings().contains("this run uses their dataset's own mean and std"),
                 qPrintable(model->warnings()));
        typeInto(panel, "model.pretrained", "");
        QTRY_VERIFY(warnings->isHidden());
    }

    // An MLP of 16 million hidden units: about 857 GiB of weights, gradients and momentum,
    // more than the memory of any GPU or host this runs on (device auto picks either).
    void memoryBarTurnsRedWhenTheRunWillNotFit() {
        SetupPanel panel;
        panel.setConfig(test::tinyRunConfig(m_dir.filePath("ckpt")));
        QTRY_VERIFY_WITH_TIMEOUT(panel.blocker().isEmpty(), 30000);
        auto* bar = panel.findChild<ui::MemoryBar*>("memory-bar");
        QVERIFY(bar->fits());
        QVERIFY(bar->caption().startsWith("About "));
        RunConfig huge = panel.config();
        huge.set("device", "auto");
        huge.set("model", "mlp");
        huge.set("model.hidden", "16000000,4000");
        panel.setConfig(huge);
        QTRY_VERIFY2_WITH_TIMEOUT(!bar->fits(), qPrintable(bar->caption()), 30000);
        QVERIFY(bar->caption().contains("will not fit"));
    }

    void lrPreviewCoversTheRun() {
        if (const std::string why = test::fashionMnistMissing(); !why.empty())
            QSKIP(why.c_str());
        SetupPanel panel;
        QTRY_VERIFY_WITH_TIMEOUT(panel.blocker().isEmpty(), 30000);
        auto* preview = panel.findChild<ui::LrPreview*>("lr-preview");
        QCOMPARE(preview->pointCount(), 400); // 2 epochs of 938 steps, sampled
        typeInto(panel, "max_steps", "50");
        QCOMPARE(preview->pointCount(), 50);
        QCOMPARE(preview->headPointCount(), 0);
        // A classifier head of its own rate is a second curve.
        typeInto(panel, "finetune.head_lr_mult", "10");
        QCOMPARE(preview->headPointCount(), 50);
        typeInto(panel, "finetune.head_lr_mult", "1");
        QCOMPARE(preview->headPointCount(), 0);
    }

    // A truncated IDX file: the panel shows the reader's error with the file name and offset,
    // and Train is blocked.
    void badDatasetFileShowsItsError() {
        QTemporaryDir dir;
        for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("\x00\x00\x08\x03\x00\x00", 6)); // a header cut short
        }
        SetupPanel panel;
        RunConfig c;
        c.set("data.root", dir.path().toStdString());
        panel.setConfig(c);
        auto* error = panel.findChild<ui::WrappingLabel*>("dataset-error");
        QTRY_VERIFY_WITH_TIMEOUT(!error->isHidden(), 30000);
        // The whole message names the file; shown, a path too long for a line keeps its end.
        QVERIFY2(error->wrappedText().startsWith(dir.path()), qPrintable(error->wrappedText()));
        QVERIFY2(error->text().contains("-ubyte, offset "), qPrintable(error->text()));
        QVERIFY2(panel.blocker().contains("dataset cannot be opened"), qPrintable(panel.blocker()));
    }

    void guessesTheKindOfAnOpenedPath() {
        QTemporaryDir dir;
        QFile(dir.filePath("data_batch_1.bin")).open(QIODevice::WriteOnly);
        QCOMPARE(ui::guessDatasetKind(dir.path()), std::string("cifar10"));
        QCOMPARE(ui::guessDatasetKind(dir.filePath("x.csv")), std::string("csv"));
        QCOMPARE(ui::guessDatasetKind("/usr/share/datasets/fashion-mnist"),
                 std::string("fashion-mnist"));
    }
};

QTEST_MAIN(TestSetupPanel)
#include "tst_setuppanel.moc"
