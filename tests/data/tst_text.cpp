// The text dataset: tokenising by character and by byte, windows and their shifted targets,
// the held-out tail, the DataLoader's per-position targets, and files that are not text.
#include "backend/backend.h"
#include "core/errors.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/textdataset.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace tb;

namespace {

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

DataConfig textConfig(const QString& root, int block) {
    DataConfig c;
    c.name = "text";
    c.root = root.toStdString();
    c.blockSize = block;
    c.valFraction = 0.25;
    return c;
}

// The message of the DatasetError that opening `config` throws, or empty when it opens.
std::string openError(const DataConfig& config) {
    try {
        openDatasets(config, 1);
    } catch (const DatasetError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestText : public QObject {
    Q_OBJECT
private slots:
    void charactersInCodePointOrder() {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.txt");
        writeFile(path, QStringLiteral("héllo wörld\n").toUtf8());
        const auto corpus = readTextCorpus(path.toStdString(), "char");
        const std::vector<std::string> expected{"\n", " ", "d", "h", "l", "o", "r", "w", "é", "ö"};
        QCOMPARE(corpus->tokens, expected);
        QCOMPARE(corpus->ids.size(), std::size_t{12}); // characters, not bytes
        QCOMPARE(decodeTokens(corpus->tokens, false, corpus->ids), std::string("héllo wörld\n"));
        const auto bytes = readTextCorpus(path.toStdString(), "byte");
        QCOMPARE(bytes->tokens.size(), std::size_t{256});
        QCOMPARE(bytes->ids.size(), std::size_t{14}); // é and ö are two bytes each
        QCOMPARE(bytes->tokens[0xc3], std::string("\\xc3"));
        QCOMPARE(decodeTokens(bytes->tokens, true, bytes->ids), std::string("héllo wörld\n"));
        // Half a character decodes to U+FFFD, not to invalid UTF-8.
        QCOMPARE(decodeTokens(bytes->tokens, true, {0x68, 0xc3}), std::string("h\xef\xbf\xbd"));
    }

    // Targets are the window one token on; training windows move with the seed, validation
    // reads the tail in order, the same every time.
    void windowsAndTargets() {
        QTemporaryDir dir;
        QByteArray text;
        for (int i = 0; i < 400; ++i)
            text += static_cast<char>('a' + i % 26);
        writeFile(dir.filePath("abc.txt"), text);
        const DatasetSplits s = openDatasets(textConfig(dir.filePath("abc.txt"), 8), 1);
        QCOMPARE(s.train->sampleShape(), (Shape{8}));
        QCOMPARE(s.train->targetsPerSample(), int64_t{8});
        QCOMPARE(s.train->numClasses(), 26);
        QCOMPARE(s.train->size(), int64_t{(300 - 1) / 8});
        QCOMPARE(s.validation->size(), int64_t{(100 - 1) / 8});
        QVERIFY(s.mean.empty()); // token ids are not normalised
        std::vector<float> x(8);
        std::vector<int32_t> y(8);
        for (uint64_t seed : {1u, 2u, 3u}) {
            s.train->sample(0, x.data(), y.data(), seed);
            for (int i = 0; i < 8; ++i)
                QCOMPARE(y[static_cast<std::size_t>(i)],
                         (static_cast<int32_t>(x[static_cast<std::size_t>(i)]) + 1) % 26);
        }
        std::vector<float> other(8);
        s.train->sample(0, other.data(), y.data(), 99);
        QVERIFY(other != x); // a fresh random window
        s.validation->sample(1, x.data(), y.data(), 5);
        s.validation->sample(1, other.data(), y.data(), 6);
        QCOMPARE(other, x);
        QCOMPARE(static_cast<int>(x[0]), (300 + 8) % 26); // the tail starts at token 300
    }

    void loaderCollatesTargets() {
        QTemporaryDir dir;
        writeFile(dir.filePath("t.txt"), QByteArray(500, 'x') + QByteArray(100, 'y'));
        const DatasetSplits s = openDatasets(textConfig(dir.filePath("t.txt"), 16), 1);
        auto cpu = createCpuBackend(1);
        LoaderOptions o;
        o.batchSize = 4;
        DataLoader loader(s.validation, o, *cpu);
        loader.startEpoch(0);
        const auto batch = loader.next();
        QVERIFY(batch);
        QCOMPARE(batch->inputs.shape(), (Shape{4, 16}));
        QCOMPARE(batch->labels.shape(), (Shape{4, 16}));
    }

    // A folder: files without an extension and .txt, sorted; fortune's .dat indexes, links and
    // hidden files are not read.
    void folderReadsTextFilesOnly() {
        QTemporaryDir dir;
        writeFile(dir.filePath("b"), "second\n");
        writeFile(dir.filePath("a.txt"), "first\n");
        writeFile(dir.filePath("b.dat"), QByteArray("\0\1\2", 3));
        writeFile(dir.filePath(".hidden"), QByteArray("\0", 1));
        std::filesystem::create_symlink(dir.filePath("b").toStdString(),
                                        dir.filePath("b.u8").toStdString());
        std::filesystem::create_symlink(dir.filePath("b").toStdString(),
                                        dir.filePath("c").toStdString());
        const auto corpus = readTextCorpus(dir.path().toStdString(), "char");
        QCOMPARE(corpus->files.size(), std::size_t{2});
        QCOMPARE(decodeTokens(corpus->tokens, false, corpus->ids), std::string("first\nsecond\n"));
    }

    void notText_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QByteArray() << "is empty";
        QTest::newRow("binary") << QByteArray("abc\0def", 7) << "offset 3";
        QTest::newRow("latin1") << QByteArray("caf\xe9 au lait") << "offset 3";
        QTest::newRow("overlong") << QByteArray("ab\xc0\xaf") << "offset 2";
        QTest::newRow("truncated") << QByteArray("ab\xe2\x82") << "not UTF-8";
        QTest::newRow("short") << QByteArray("too short") << "fewer than one window";
    }
    void notText() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.txt");
        writeFile(path, bytes);
        const std::string message = openError(textConfig(path, 32));
        QVERIFY2(message.find("bad.txt") != std::string::npos, message.c_str());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    }

    void builtInCorpus() {
        if (!QDir("/usr/share/games/fortunes").exists())
            QSKIP("the fortunes package is not installed (/usr/share/games/fortunes)");
        DataConfig c;
        c.name = "text";
        c.blockSize = 64;
        const DatasetSplits s = openDatasets(c, 1);
        QVERIFY(s.train->numClasses() > 60);
        QVERIFY(s.train->size() > 20000);
        QVERIFY(s.validation->size() > 2000);
        const auto* text = dynamic_cast<const TextDataset*>(s.train.get());
        QVERIFY(text);
        for (const std::string& f : text->corpus().files)
            QVERIFY2(!f.ends_with(".dat"), f.c_str());
    }
};

QTEST_GUILESS_MAIN(TestText)
#include "tst_text.moc"
