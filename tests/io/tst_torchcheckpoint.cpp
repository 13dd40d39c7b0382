// PyTorch checkpoints as torch.save writes them (Debian's python3-torch writes them here): every
// dtype, non-contiguous and shared-storage views, nested dicts and a whole torchvision model come
// back with PyTorch's values; a pickle that would run a command, the pre-1.6 format, storages of
// another size than declared and broken files are refused naming the file, and nothing in them
// is run or inflated beyond what the pickle declares.
#include "io/torchcheckpoint.h"

#include "core/errors.h"
#include "core/half.h"
#include "support/torchreference.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

// A tensor's values as doubles, whatever its dtype.
std::vector<double> valuesOf(const Tensor& t) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.numel(); ++i) {
        switch (t.dtype()) {
        case DType::F32:
            v.push_back(t.data<float>()[i]);
            break;
        case DType::F16:
            v.push_back(halfToFloat(t.data<uint16_t>()[i]));
            break;
        case DType::BF16:
            v.push_back(bf16ToFloat(t.data<uint16_t>()[i]));
            break;
        case DType::I32:
            v.push_back(t.data<int32_t>()[i]);
            break;
        case DType::U8:
            v.push_back(t.data<uint8_t>()[i]);
            break;
        }
    }
    return v;
}

QString refusalOf(const QString& path) {
    try {
        readTorchCheckpoint(path.toStdString());
    } catch (const DatasetError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestTorchCheckpoint : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_expected = test::runTorchScript("torch_checkpoints.py", {m_dir.path()});
    }

    // Each tensor as PyTorch holds it: f32 exactly, float64 rounded to f32, f16 and bf16 bit
    // for bit, integers and booleans as values; the views gathered from their storages.
    void readsEveryDtypeAndView() {
        const TorchCheckpoint c = readTorchCheckpoint(m_dir.filePath("plain.pth").toStdString());
        const QJsonObject expected = m_expected["plain"].toObject();
        QCOMPARE(c.tensors.size(), static_cast<std::size_t>(expected.size()));
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            const std::string name = it.key().toStdString();
            QVERIFY2(c.tensors.count(name), name.c_str());
            const Tensor& t = c.tensors.at(name);
            const QJsonObject e = it.value().toObject();
            std::vector<int64_t> shape;
            for (const QJsonValue d : e["shape"].toArray())
                shape.push_back(d.toInteger());
            QCOMPARE(t.shape(), Shape(shape));
            const std::vector<double> got = valuesOf(t);
            const QJsonArray want = e["values"].toArray();
            QCOMPARE(got.size(), static_cast<std::size_t>(want.size()));
            const bool isDouble = e["dtype"].toString() == "torch.float64";
            for (std::size_t i = 0; i < got.size(); ++i) {
                const double w = want[static_cast<int>(i)].toDouble();
                const double expectedValue = isDouble ? static_cast<float>(w) : w;
                QVERIFY2(got[i] == expectedValue, qPrintable(QString("%1[%2]: %3, PyTorch %4")
                                                                 .arg(it.key())
                                                                 .arg(i)
                                                                 .arg(got[i])
                                                                 .arg(expectedValue)));
            }
        }
        QCOMPARE(c.tensors.at("half").dtype(), DType::F16);
        QCOMPARE(c.tensors.at("bfloat").dtype(), DType::BF16);
        QCOMPARE(c.tensors.at("bn.num_batches_tracked").dtype(), DType::I32);
        QCOMPARE(c.tensors.at("mask").dtype(), DType::U8);
    }

    void nestedDictsGiveDottedNames() {
        const TorchCheckpoint c = readTorchCheckpoint(m_dir.filePath("nested.pth").toStdString());
        QCOMPARE(c.tensors.size(), std::size_t{2});
        QVERIFY(c.tensors.count("model.fc.weight") && c.tensors.count("model.fc.bias"));
        QCOMPARE(c.tensors.at("model.fc.weight").shape(), (Shape{2, 3}));
    }

    // A whole torchvision model, its names and values as PyTorch's state dict has them.
    void readsATorchvisionModel() {
        if (m_expected["resnet18"].isNull())
            QSKIP("torchvision is not installed (Debian's python3-torchvision)");
        const TorchCheckpoint c = readTorchCheckpoint(m_dir.filePath("resnet18.pth").toStdString());
        const QJsonObject expected = m_expected["resnet18"].toObject();
        QCOMPARE(c.tensors.size(), static_cast<std::size_t>(expected.size()));
        QVERIFY(c.tensors.count("conv1.weight") && c.tensors.count("layer4.1.bn2.running_var") &&
                c.tensors.count("fc.bias"));
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            const Tensor& t = c.tensors.at(it.key().toStdString());
            double sum = 0.0;
            for (double v : valuesOf(t))
                sum += v;
            const double want = it.value().toObject()["sum"].toDouble();
            QVERIFY2(
                std::abs(sum - want) <= 1e-6 * (1.0 + std::abs(want)),
                qPrintable(QString("%1: sum %2, PyTorch %3").arg(it.key()).arg(sum).arg(want)));
        }
    }

    // The restricted reader builds nothing it does not know: a pickle that would call
    // os.system is refused, naming the global, and the command does not run.
    void aPickleThatRunsACommandIsRefused() {
        QDir::setCurrent(m_dir.path());
        const QString why = refusalOf(m_dir.filePath("evil.pth"));
        QVERIFY2(why.contains("refuses the global") &&
                     (why.contains("posix.system") || why.contains("os.system")) &&
                     why.contains("evil.pth"),
                 qPrintable(why));
        QVERIFY(!QFile::exists(m_dir.filePath("evil-ran")));
    }

    void otherFilesAreRefusedNamingThem_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("says");
        QTest::newRow("the pre-1.6 format") << "legacy.pth"
                                            << "format from before 1.6";
        QTest::newRow("not a checkpoint") << "text.pth"
                                          << "not a PyTorch checkpoint";
        QTest::newRow("cut short") << "cut.pth"
                                   << "cut short or damaged";
        QTest::newRow("missing") << "missing.pth"
                                 << "does not exist";
        // A storage entry of another size than the pickle declares for it: refused before it
        // is inflated (256 MiB here), naming the entry and both sizes.
        QTest::newRow("a storage that inflates far beyond its tensor")
            << "oversized.pth"
            << "storage plain/data/0 holds 268435456 bytes where the pickle declares 48";
        QTest::newRow("a storage shorter than declared")
            << "undersized.pth"
            << "storage plain/data/0 holds 24 bytes where the pickle declares 48";
    }
    void otherFilesAreRefusedNamingThem() {
        QFETCH(QString, file);
        QFETCH(QString, says);
        {
            QFile text(m_dir.filePath("text.pth"));
            QVERIFY(text.open(QIODevice::WriteOnly));
            text.write("not a zip at all\n");
        }
        QFile whole(m_dir.filePath("plain.pth"));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        {
            QFile cut(m_dir.filePath("cut.pth"));
            QVERIFY(cut.open(QIODevice::WriteOnly));
            cut.write(bytes.left(bytes.size() / 2));
        }
        const QString why = refusalOf(m_dir.filePath(file));
        QVERIFY2(why.contains(says) && why.contains(file), qPrintable(why));
    }

private:
    QTemporaryDir m_dir;
    QJsonObject m_expected;
};

QTEST_GUILESS_MAIN(TestTorchCheckpoint)
#include "tst_torchcheckpoint.moc"
