// CIFAR-10 / CIFAR-100 binary batches: layout, fine labels, augmentation and bad files.
#include "core/errors.h"
#include "data/cifarreader.h"
#include "data/datasets.h"
#include "idxbytes.h"
#include "support/testdata.h"

#include <QtTest>

using namespace tb;
using namespace tb::test;

namespace {

// data_batch_1..5 (3 records each) and test_batch (2) under dir/cifar-10-batches-bin.
QString writeCifar10(const QString& dir) {
    const QString sub = dir + "/cifar-10-batches-bin";
    QDir().mkpath(sub);
    for (int i = 1; i <= 5; ++i)
        writeFile((sub + QString("/data_batch_%1.bin").arg(i)).toStdString(),
                  cifarRecords(3, false, 10));
    writeFile((sub + "/test_batch.bin").toStdString(), cifarRecords(2, false, 10));
    return sub;
}

} // namespace

class TestCifar : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8()); }

    void readsCifar10() {
        QTemporaryDir dir;
        writeCifar10(dir.path());
        DataConfig config;
        config.name = "cifar10";
        config.root = dir.path().toStdString();
        config.normalize = false;
        const DatasetSplits s = openDatasets(config, 1);
        QCOMPARE(s.train->size(), int64_t{15});
        QCOMPARE(s.validation->size(), int64_t{2});
        QCOMPARE(s.train->sampleShape(), (Shape{3, 32, 32}));
        QCOMPARE(s.train->classNames().at(0), std::string("airplane"));
        QCOMPARE(s.train->classNames().at(9), std::string("truck"));
        std::vector<float> out(3072);
        QCOMPARE(s.train->get(4, out.data(), 0), 1); // record 1 of data_batch_2
        QCOMPARE(out[0], 1.0f / 255.0f);
        QCOMPARE(out[3071], float((1 + 3071) % 256) / 255.0f);
    }

    void readsCifar100FineLabels() {
        QTemporaryDir dir;
        writeFile((dir.path() + "/train.bin").toStdString(), cifarRecords(7, true, 100));
        writeFile((dir.path() + "/test.bin").toStdString(), cifarRecords(3, true, 100));
        DataConfig config;
        config.name = "cifar100";
        config.root = dir.path().toStdString();
        const DatasetSplits s = openDatasets(config, 1);
        QCOMPARE(s.train->size(), int64_t{7});
        QCOMPARE(s.train->numClasses(), 100);
        QCOMPARE(s.train->label(6), 6);
        QCOMPARE(s.train->classNames().at(99), std::string("worm"));
    }

    void augmentsTrainOnly() {
        QTemporaryDir dir;
        writeCifar10(dir.path());
        DataConfig config;
        config.name = "cifar10";
        config.root = dir.path().toStdString();
        config.augment = true;
        const DatasetSplits s = openDatasets(config, 1);
        std::vector<float> a(3072), b(3072), c(3072);
        s.train->get(0, a.data(), 11);
        s.train->get(0, b.data(), 11);
        QVERIFY(a == b); // the seed decides
        int differ = 0;
        for (uint64_t seed = 1; seed < 8; ++seed) {
            s.train->get(0, c.data(), seed);
            differ += c != a;
        }
        QVERIFY(differ >= 5);
        s.validation->get(0, a.data(), 1);
        s.validation->get(0, b.data(), 2);
        QVERIFY(a == b);
    }

    void rejectsBadBatches_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qint64>("offset");
        auto bytes = [](std::vector<uint8_t> v) {
            return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size()));
        };
        std::vector<uint8_t> cut = cifarRecords(3, false, 10);
        cut.resize(3073 * 2 + 100);
        QTest::newRow("truncated") << "data_batch_2.bin" << bytes(cut) << qint64(3073 * 2);
        std::vector<uint8_t> badLabel = cifarRecords(3, false, 10);
        badLabel[3073 * 2] = 10;
        QTest::newRow("label-out-of-range")
            << "data_batch_4.bin" << bytes(badLabel) << qint64(3073 * 2);
        QTest::newRow("empty") << "test_batch.bin" << QByteArray() << qint64(0);
        QTest::newRow("cifar100-records-in-cifar10")
            << "data_batch_1.bin" << bytes(cifarRecords(3, true, 10)) << qint64(3073 * 3);
    }
    void rejectsBadBatches() {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(qint64, offset);
        QTemporaryDir dir;
        const QString sub = writeCifar10(dir.path());
        const std::string path = (sub + "/" + file).toStdString();
        writeFile(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
        DataConfig config;
        config.name = "cifar10";
        config.root = dir.path().toStdString();
        try {
            openDatasets(config, 1);
            QFAIL("accepted a bad batch file");
        } catch (const DatasetError& e) {
            qInfo("%s", e.what());
            QCOMPARE(e.file(), path);
            QCOMPARE(qint64(e.offset()), offset);
        }
    }

    void rejectsMissingFiles() {
        QTemporaryDir dir;
        const QString sub = writeCifar10(dir.path());
        QVERIFY(QFile::remove(sub + "/data_batch_3.bin"));
        DataConfig config;
        config.name = "cifar10";
        config.root = dir.path().toStdString();
        try {
            openDatasets(config, 1);
            QFAIL("accepted a missing batch");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), (sub + "/data_batch_3.bin").toStdString());
        }
        config.root = (dir.path() + "/nowhere").toStdString();
        QVERIFY_THROWS_EXCEPTION(DatasetError, openDatasets(config, 1));
    }

    void parsesGzipFromMemory() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/b.gz").toStdString();
        std::vector<uint8_t> recs = cifarRecords(2, false, 10);
        writeGzipFile(path, recs);
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray gz = f.readAll();
        std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(gz.data()), gz.size());
        QCOMPARE(parseCifar(span, "b.gz", false).labels.size(), std::size_t{2});
        recs.resize(3073 + 5);
        writeGzipFile(path, recs);
        f.close();
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray gz2 = f.readAll();
        std::span<const uint8_t> span2(reinterpret_cast<const uint8_t*>(gz2.data()), gz2.size());
        try {
            parseCifar(span2, "b.gz", false);
            QFAIL("accepted a truncated record");
        } catch (const DatasetError& e) {
            QCOMPARE(e.offset(), int64_t{3073 + 5});
        }
    }

private:
    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TestCifar)
#include "tst_cifar.moc"
