// export and predict as a user runs them, on a real run: a small MLP trained one epoch on
// Fashion-MNIST. predict on 1,000 of its test images written as PNG files answers as the run's
// own validation did (its recorded misclassified samples, class and confidence) and as the
// engine does on the raw samples; the ONNX export answers the same; hostile files are named and
// skipped while the rest are predicted.
#include "clirun.h"

#include "data/datasets.h"
#include "data/imagecodec.h"
#include "io/safetensors.h"
#include "store/runstore.h"
#include "support/testdata.h"
#include "train/predictor.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::test;

namespace {

constexpr int kImages = 1000;

struct Answer {
    int index;
    double probability;
};

// predict --json's answers by file.
std::map<QString, Answer> answersOf(const CliResult& r) {
    std::map<QString, Answer> out;
    for (const QJsonValue v : lastJsonLine(r.out)["predictions"].toArray()) {
        const QJsonObject o = v.toObject();
        const QJsonArray top = o["top"].toArray();
        if (!top.isEmpty())
            out[o["file"].toString()] = {top[0].toObject()["index"].toInt(),
                                         top[0].toObject()["probability"].toDouble()};
    }
    return out;
}

} // namespace

class TestCliExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;
    QString m_runId;
    QStringList m_images; // test image i as image-i.png, in order
    std::vector<std::vector<float>> m_raw;

private slots:
    void initTestCase() {
        if (!fashionMnistMissing().empty())
            QSKIP(fashionMnistMissing().c_str());
        const CliResult train =
            runCli({"train", "--json", "--set", "model=mlp", "--set", "max_epochs=1", "--set",
                    "batch_size=256", "--set", "device=cpu", "--set", "seed=3"},
                   m_home.path());
        QVERIFY2(train.code == 0, qPrintable(train.err));
        m_runId = lastJsonLine(train.out)["run_id"].toString();
        QVERIFY(!m_runId.isEmpty());
        // The first test images, unnormalised, as 8-bit PNGs (Fashion-MNIST's own bytes).
        DataConfig data;
        data.normalize = false;
        const DatasetSplits raw = openDatasets(data, 3);
        QDir(m_home.path()).mkpath("images");
        std::vector<float> sample(28 * 28);
        for (int i = 0; i < kImages; ++i) {
            raw.validation->get(i, sample.data(), 0);
            std::vector<uint8_t> bytes(sample.size());
            for (std::size_t p = 0; p < sample.size(); ++p)
                bytes[p] = static_cast<uint8_t>(std::lround(sample[p] * 255.0f));
            m_images << m_home.filePath(QString("images/image-%1.png").arg(i));
            writePng(m_images.last().toStdString(), 28, 28, 1, bytes);
            m_raw.push_back(sample);
        }
    }

    // The run's validation recorded its first misclassified test samples with their class and
    // confidence; predict on those images as files says the same, and agrees with the engine
    // on every one of the 1,000.
    void predictAnswersAsTheRunsValidation() {
        const CliResult r = runCli(
            QStringList{"predict", m_runId, "--json", "--top", "1"} + m_images, m_home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::map<QString, Answer> answers = answersOf(r);
        QCOMPARE(static_cast<int>(answers.size()), kImages);

        RunStore store(m_home.filePath("TrainBench/runs.db").toStdString());
        const ValidationReport report =
            store.epochMetrics(m_runId.toStdString(), 0).back().validation;
        QVERIFY(!report.misclassified.empty());
        int checked = 0;
        for (const MisclassifiedSample& s : report.misclassified) {
            if (s.index >= kImages)
                continue;
            const Answer& a = answers.at(m_images[static_cast<int>(s.index)]);
            QCOMPARE(a.index, s.predicted);
            QVERIFY2(std::abs(a.probability - s.confidence) < 1e-4,
                     qPrintable(QString("%1 vs %2").arg(a.probability).arg(s.confidence)));
            ++checked;
        }
        QVERIFY(checked > 10);
        // Every other image: the class the engine gives the raw sample, the validation path.
        Predictor engine(RunStore(m_home.filePath("TrainBench/runs.db").toStdString())
                             .getRun(m_runId.toStdString())
                             .checkpoint);
        const auto direct = engine.predict(m_raw, 1);
        for (int i = 0; i < kImages; ++i)
            QCOMPARE(answers.at(m_images[i]).index,
                     direct[static_cast<std::size_t>(i)][0].classIndex);
    }

    // The ONNX export of the run gives the same answers through predict.
    void exportedModelPredictsTheSame() {
        const QString onnx = m_home.filePath("fmnist.onnx");
        const CliResult e = runCli({"export", m_runId, "--out", onnx, "--json"}, m_home.path());
        QVERIFY2(e.code == 0, qPrintable(e.err));
        const QJsonObject info = lastJsonLine(e.out);
        QCOMPARE(info["format"].toString(), QStringLiteral("onnx"));
        QCOMPARE(info["opset"].toInt(), 17);
        QCOMPARE(info["batch"].toString(), QStringLiteral("dynamic"));
        QCOMPARE(info["bytes"].toInteger(), QFileInfo(onnx).size());
        const QStringList some = m_images.mid(0, 200);
        const auto fromRun =
            answersOf(runCli(QStringList{"predict", m_runId, "--json"} + some, m_home.path()));
        const CliResult r =
            runCli(QStringList{"predict", onnx, "--json", "--batch", "7"} + some, m_home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto fromFile = answersOf(r);
        QCOMPARE(fromFile.size(), fromRun.size());
        for (const auto& [file, a] : fromRun) {
            QCOMPARE(fromFile.at(file).index, a.index);
            QVERIFY(std::abs(fromFile.at(file).probability - a.probability) < 1e-5);
        }
        // The text form names the class.
        const CliResult text = runCli({"predict", onnx, m_images[0], "--top", "2"}, m_home.path());
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY2(text.out.startsWith(m_images[0] + "  ") && text.out.contains("%"),
                 qPrintable(text.out));
    }

    // Weights for PyTorch: a .safetensors file of the state dict, no optimizer state.
    void exportWritesPyTorchWeights() {
        const QString out = m_home.filePath("mlp.safetensors");
        const CliResult e = runCli({"export", m_runId, "--out", out}, m_home.path());
        QVERIFY2(e.code == 0, qPrintable(e.err));
        QVERIFY2(e.out.contains("load_state_dict"), qPrintable(e.out));
        const SafetensorsFile file = readSafetensors(out.toStdString());
        QVERIFY(file.tensors.count("fc1.weight") && file.tensors.count("fc3.bias"));
        for (const auto& [name, t] : file.tensors)
            QVERIFY2(name.find("optimizer") == std::string::npos &&
                         name.find("exp_avg") == std::string::npos,
                     name.c_str());
        QVERIFY(file.metadata.at("class_names").find("T-shirt/top") != std::string::npos);
    }

    // A non-image, a PNG cut short, a colour image for a greyscale model: each is named with
    // the reason, the good files are still predicted, and the exit code says something failed.
    // A file that is not ONNX and bad options are refused.
    void hostileInputsAreNamed() {
        QTemporaryDir dir;
        const QString notes = dir.filePath("notes.png");
        QFile f(notes);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("shopping list: milk, eggs\n");
        f.close();
        QFile whole(m_images[1]);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray png = whole.readAll();
        const QString cut = dir.filePath("cut.png");
        QFile half(cut);
        QVERIFY(half.open(QIODevice::WriteOnly));
        half.write(png.left(png.size() / 2));
        half.close();
        const QString colour = dir.filePath("colour.png");
        std::vector<uint8_t> rgb(28 * 28 * 3, 0);
        rgb[0] = 255; // one red pixel
        writePng(colour.toStdString(), 28, 28, 3, rgb);

        const CliResult r =
            runCli({"predict", m_runId, m_images[0], notes, cut, colour, m_images[2], "--json"},
                   m_home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(notes) && r.err.contains(cut) && r.err.contains(colour),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("greyscale"), qPrintable(r.err));
        const auto answers = answersOf(r);
        QCOMPARE(static_cast<int>(answers.size()), 2);
        QVERIFY(answers.count(m_images[0]) && answers.count(m_images[2]));

        const QString fake = dir.filePath("model.onnx");
        QVERIFY(QFile::copy(notes, fake));
        const CliResult notOnnx = runCli({"predict", fake, m_images[0]}, m_home.path());
        QVERIFY(notOnnx.code != 0);
        QVERIFY2(notOnnx.err.contains(fake) && notOnnx.err.contains("not an ONNX model"),
                 qPrintable(notOnnx.err));

        const CliResult format =
            runCli({"export", m_runId, "--out", dir.filePath("m.tflite"), "--format", "tflite"},
                   m_home.path());
        QVERIFY(format.code != 0);
        QVERIFY2(format.err.contains("--format") && format.err.contains("tflite"),
                 qPrintable(format.err));
        const CliResult opset = runCli(
            {"export", m_runId, "--out", dir.filePath("m.onnx"), "--opset", "9"}, m_home.path());
        QVERIFY(opset.code != 0);
        QVERIFY2(opset.err.contains("--opset"), qPrintable(opset.err));
        QVERIFY(!QFile::exists(dir.filePath("m.onnx")));
    }
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
