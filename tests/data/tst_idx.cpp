// IDX reader: plain and gzip files, openDatasets for fashion-mnist with a data.root override,
// every kind of bad input, and the real Fashion-MNIST files when they are installed.
#include "core/errors.h"
#include "data/datasets.h"
#include "data/idxreader.h"
#include "idxbytes.h"
#include "support/testdata.h"

#include <QtTest>

#include <filesystem>

#include <unistd.h>

using namespace tb;
using namespace tb::test;

namespace {

const char* kFashionRoot = "/usr/share/datasets/fashion-mnist";

// Writes the four files of the standard layout into dir (gzip when gz).
void writeIdxSet(const QString& dir, bool gz, uint32_t nTrain, uint32_t nTest) {
    auto write = [&](const char* stem, const std::vector<uint8_t>& bytes) {
        const std::string path = (dir + "/" + stem).toStdString();
        if (gz)
            writeGzipFile(path + ".gz", bytes);
        else
            writeFile(path, bytes);
    };
    write("train-images-idx3-ubyte", idxImages(nTrain, 4, 3));
    write("train-labels-idx1-ubyte", idxLabels(nTrain));
    write("t10k-images-idx3-ubyte", idxImages(nTest, 4, 3));
    write("t10k-labels-idx1-ubyte", idxLabels(nTest));
}

std::vector<uint8_t> truncated(std::vector<uint8_t> b, std::size_t n) {
    b.resize(n);
    return b;
}

} // namespace

class TestIdx : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // Keep the statistics cache of these tests out of the user's cache folder.
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8());
    }

    void readsPlainAndGzip_data() {
        QTest::addColumn<bool>("gz");
        QTest::newRow("plain") << false;
        QTest::newRow("gzip") << true;
    }
    void readsPlainAndGzip() {
        QFETCH(bool, gz);
        QTemporaryDir dir;
        writeIdxSet(dir.path(), gz, 20, 7);
        DataConfig config;
        config.root = dir.path().toStdString();
        config.normalize = false;
        const DatasetSplits s = openDatasets(config, 1);
        QCOMPARE(s.train->size(), int64_t{20});
        QCOMPARE(s.validation->size(), int64_t{7});
        QCOMPARE(s.train->sampleShape(), (Shape{1, 4, 3}));
        QCOMPARE(s.train->numClasses(), 10);
        QCOMPARE(s.train->classNames().at(9), std::string("Ankle boot"));
        std::vector<float> out(12);
        QCOMPARE(s.train->get(5, out.data(), 0), 5);
        QCOMPARE(out[0], 35.0f / 255.0f);
        QCOMPARE(out[11], 46.0f / 255.0f);
        QCOMPARE(s.validation->label(3), 3);
    }

    void normalizesWithCachedStatistics() {
        QTemporaryDir dir;
        writeIdxSet(dir.path(), false, 30, 5);
        DataConfig config;
        config.root = dir.path().toStdString();
        const DatasetSplits s = openDatasets(config, 1);
        double sum = 0.0, sq = 0.0;
        std::vector<float> out(12);
        for (int64_t i = 0; i < s.train->size(); ++i) {
            s.train->get(i, out.data(), 0);
            for (float v : out) {
                sum += v;
                sq += double(v) * v;
            }
        }
        const double n = 30.0 * 12.0;
        QVERIFY(std::abs(sum / n) < 1e-4);
        QVERIFY(std::abs(sq / n - 1.0) < 1e-3);
        QVERIFY(QFile::exists(m_cache.path() + "/TrainBench/dataset-stats.json"));
    }

    void mnistNamesDigits() {
        QTemporaryDir dir;
        writeIdxSet(dir.path(), true, 10, 10);
        DataConfig config;
        config.name = "mnist";
        config.root = dir.path().toStdString();
        config.normalize = false;
        QCOMPARE(openDatasets(config, 1).train->classNames().at(3), std::string("3"));
    }

    void parsesFromMemory() {
        const IdxArray a = parseIdx(idxLabels(5), "mem", 1);
        QCOMPARE(a.dims.size(), std::size_t{1});
        QCOMPARE(a.data.size(), std::size_t{5});
        QVERIFY_THROWS_EXCEPTION(DatasetError, parseIdx(idxLabels(5), "mem", 3));
    }

    void rejectsBadFiles_data() {
        QTest::addColumn<QString>("file"); // which file is bad
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("gz");
        QTest::addColumn<qint64>("offset"); // expected DatasetError offset
        auto bytes = [](const std::vector<uint8_t>& v) {
            return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size()));
        };
        std::vector<uint8_t> wrongMagic = idxImages(20, 4, 3);
        wrongMagic[2] = 0x0d;
        QTest::newRow("wrong-magic")
            << "train-images-idx3-ubyte" << bytes(wrongMagic) << false << qint64(0);
        QTest::newRow("wrong-rank")
            << "train-labels-idx1-ubyte" << bytes(idxImages(20, 4, 3)) << false << qint64(0);
        QTest::newRow("truncated-header")
            << "train-images-idx3-ubyte" << bytes(truncated(idxImages(20, 4, 3), 9)) << false
            << qint64(9);
        QTest::newRow("claims-more-items")
            << "train-images-idx3-ubyte" << bytes(idxBytes({1000000, 4, 3}, {1, 2, 3})) << false
            << qint64(4);
        QTest::newRow("zero-items")
            << "train-images-idx3-ubyte" << bytes(idxBytes({0, 0x80000, 0x12080b}, {})) << false
            << qint64(4);
        QTest::newRow("huge-dims-overflow")
            << "train-images-idx3-ubyte"
            << bytes(idxBytes({0x7fffffff, 0x7fffffff, 0x7fffffff}, {})) << false << qint64(8);
        QTest::newRow("truncated-data")
            << "train-images-idx3-ubyte" << bytes(truncated(idxImages(20, 4, 3), 100)) << false
            << qint64(4);
        QTest::newRow("trailing-data")
            << "train-labels-idx1-ubyte" << bytes(idxBytes({20}, std::vector<uint8_t>(25, 1)))
            << false << qint64(28);
        QTest::newRow("count-mismatch")
            << "train-labels-idx1-ubyte" << bytes(idxLabels(19)) << false << qint64(4);
        std::vector<uint8_t> badLabel = idxLabels(20);
        badLabel[8 + 6] = 10;
        QTest::newRow("label-out-of-range")
            << "train-labels-idx1-ubyte" << bytes(badLabel) << false << qint64(14);
        QTest::newRow("gz-truncated-data")
            << "train-images-idx3-ubyte" << bytes(truncated(idxImages(20, 4, 3), 100)) << true
            << qint64(100);
        QTest::newRow("gz-lying-header")
            << "train-images-idx3-ubyte" << bytes(idxBytes({20000000, 28, 28}, {1, 2})) << true
            << qint64(4);
        QTest::newRow("gz-wrong-magic")
            << "t10k-images-idx3-ubyte" << bytes(wrongMagic) << true << qint64(0);
    }
    void rejectsBadFiles() {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(bool, gz);
        QFETCH(qint64, offset);
        QTemporaryDir dir;
        writeIdxSet(dir.path(), gz, 20, 20);
        const std::vector<uint8_t> v(bytes.begin(), bytes.end());
        const std::string path = (dir.path() + "/" + file).toStdString() + (gz ? ".gz" : "");
        if (gz)
            writeGzipFile(path, v);
        else
            writeFile(path, v);
        DataConfig config;
        config.root = dir.path().toStdString();
        try {
            openDatasets(config, 1);
            QFAIL("accepted a bad file");
        } catch (const DatasetError& e) {
            qInfo("%s", e.what());
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(path));
            QCOMPARE(qint64(e.offset()), offset);
            QVERIFY(!e.lineBased());
        }
    }

    void rejectsCorruptGzipStream() {
        QTemporaryDir dir;
        writeIdxSet(dir.path(), true, 20, 20);
        const std::string path = (dir.path() + "/train-images-idx3-ubyte.gz").toStdString();
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray all = f.readAll();
        for (qsizetype i = 20; i < all.size() - 8; ++i)
            all[i] = char(0xff); // deflate blocks destroyed, gzip header intact
        f.seek(0);
        f.write(all);
        f.close();
        DataConfig config;
        config.root = dir.path().toStdString();
        try {
            openDatasets(config, 1);
            QFAIL("accepted a corrupt gzip file");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), path);
            QVERIFY(e.offset() >= 0);
        }
    }

    void rejectsMissingOrUnreadablePaths_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("missing-root") << "missing-root";
        QTest::newRow("missing-file") << "missing-file";
        QTest::newRow("folder-instead-of-file") << "folder";
        QTest::newRow("unreadable-file") << "unreadable";
    }
    void rejectsMissingOrUnreadablePaths() {
        QFETCH(QString, what);
        QTemporaryDir dir;
        writeIdxSet(dir.path(), false, 20, 20);
        const QString labels = dir.path() + "/t10k-labels-idx1-ubyte";
        DataConfig config;
        config.root = dir.path().toStdString();
        std::string expected = labels.toStdString();
        if (what == "missing-root") {
            config.root = (dir.path() + "/nope").toStdString();
            expected = config.root;
        } else if (what == "missing-file") {
            QVERIFY(QFile::remove(labels));
            expected += ".gz";
        } else if (what == "folder") {
            QVERIFY(QFile::remove(labels));
            QVERIFY(QDir().mkdir(labels));
        } else {
            if (::geteuid() == 0)
                QSKIP("running as root: file permissions do not stop reading");
            QVERIFY(QFile::setPermissions(labels, QFileDevice::WriteOwner));
        }
        try {
            openDatasets(config, 1);
            QFAIL("accepted a bad path");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), expected);
            QCOMPARE(e.offset(), int64_t{-1});
        }
    }

    void unknownNameListsKnownOnes() {
        DataConfig config;
        config.name = "imagenet";
        try {
            openDatasets(config, 1);
            QFAIL("accepted an unknown dataset");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("dataset"));
            QVERIFY(std::string(e.what()).find("fashion-mnist") != std::string::npos);
        }
    }

    void realFashionMnist() {
        if (!std::filesystem::exists(kFashionRoot))
            QSKIP("Fashion-MNIST is not installed in /usr/share/datasets/fashion-mnist");
        DataConfig config; // the default: fashion-mnist from its default folder, normalised
        const DatasetSplits s = openDatasets(config, 1);
        QCOMPARE(s.train->size(), int64_t{60000});
        QCOMPARE(s.validation->size(), int64_t{10000});
        QCOMPARE(s.train->sampleShape(), (Shape{1, 28, 28}));
        const std::vector<std::string> names = s.train->classNames();
        QCOMPARE(names.size(), std::size_t{10});
        QCOMPARE(names[0], std::string("T-shirt/top"));
        QCOMPARE(names[9], std::string("Ankle boot"));
        std::vector<int64_t> histogram(10);
        for (int64_t i = 0; i < s.train->size(); ++i)
            ++histogram[static_cast<std::size_t>(s.train->label(i))];
        for (int64_t h : histogram)
            QCOMPARE(h, int64_t{6000});
    }

private:
    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TestIdx)
#include "tst_idx.moc"
