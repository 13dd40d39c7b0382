// CSV reader: header detection, label by name or index, integer and string labels, quoting,
// the seeded train/validation split, and ragged rows, non-numeric cells and other bad input.
#include "core/errors.h"
#include "data/csvreader.h"
#include "data/datasets.h"
#include "support/testdata.h"

#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

using namespace tb;

namespace {

CsvTable parse(const char* text, const std::string& label = {},
               const std::string& header = "auto") {
    return parseCsv(text, "t.csv", CsvOptions{label, header});
}

} // namespace

class TestCsv : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8()); }

    void parsesTables_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("header");
        QTest::addColumn<int>("rows");
        QTest::addColumn<QStringList>("features");
        QTest::addColumn<QStringList>("classes");
        QTest::addColumn<int>("lastLabel");
        QTest::newRow("header-auto-last")
            << "a,b,y\n1,2,0\n3,4,2\n"
            << ""
            << "auto" << 2 << QStringList{"a", "b"} << QStringList{"0", "1", "2"} << 2;
        QTest::newRow("no-header")
            << "1,2,0\n3,4,1\n"
            << ""
            << "auto" << 2 << QStringList{"x0", "x1"} << QStringList{"0", "1"} << 1;
        QTest::newRow("label-by-name-first")
            << "kind,w,h\nsetosa,1.5,2\nversicolor,-3e2,4\nsetosa,+1,.5\n"
            << "kind"
            << "auto" << 3 << QStringList{"w", "h"} << QStringList{"setosa", "versicolor"} << 0;
        QTest::newRow("label-by-index")
            << "1,0,2\n3,1,4\n"
            << "1"
            << "no" << 2 << QStringList{"x0", "x2"} << QStringList{"0", "1"} << 1;
        QTest::newRow("string-labels-sorted")
            << "x,y\n1,dog\n2,cat\n3,emu\n"
            << ""
            << "auto" << 3 << QStringList{"x"} << QStringList{"cat", "dog", "emu"} << 2;
        QTest::newRow("quoted-crlf-blank-lines")
            << "\"f 1\",\"the, label\"\r\n\r\n1,\"a \"\"b\"\"\"\r\n2,c\r\n"
            << ""
            << "yes" << 2 << QStringList{"f 1"} << QStringList{"a \"b\"", "c"} << 1;
        QTest::newRow("header-yes-numeric-names")
            << "1,2\n5,0\n6,1\n"
            << ""
            << "yes" << 2 << QStringList{"1"} << QStringList{"0", "1"} << 1;
    }
    void parsesTables() {
        QFETCH(QString, text);
        QFETCH(QString, label);
        QFETCH(QString, header);
        QFETCH(int, rows);
        QFETCH(QStringList, features);
        QFETCH(QStringList, classes);
        QFETCH(int, lastLabel);
        const std::string t = text.toStdString();
        const CsvTable table = parseCsv(t, "t.csv", {label.toStdString(), header.toStdString()});
        QCOMPARE(table.rows(), int64_t{rows});
        QStringList names, classNames;
        for (const auto& n : table.featureNames)
            names << QString::fromStdString(n);
        for (const auto& n : table.classNames)
            classNames << QString::fromStdString(n);
        QCOMPARE(names, features);
        QCOMPARE(classNames, classes);
        QCOMPARE(table.labels.back(), lastLabel);
    }

    void readsValues() {
        const CsvTable t = parse("kind,w,h\nsetosa,1.5,2\nversicolor,-3e2,4\n", "kind");
        QCOMPARE(t.features, (std::vector<float>{1.5f, 2.0f, -300.0f, 4.0f}));
    }

    void rejectsBadRows_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("line");
        QTest::newRow("ragged-short") << "a,b,y\n1,2,0\n3,4\n" << qint64(3);
        QTest::newRow("ragged-long") << "1,2,0\n\n3,4,1,9\n" << qint64(3);
        QTest::newRow("non-numeric") << "a,b,y\n1,2,0\n3,x4,1\n" << qint64(3);
        QTest::newRow("non-numeric-no-header") << "1,2,0\n3,4,1\n5,nan,1\n" << qint64(3);
        QTest::newRow("empty-cell") << "a,b,y\n1,,0\n" << qint64(2);
        QTest::newRow("empty-label") << "a,b,y\n1,2,0\n1,2,\n" << qint64(3);
        QTest::newRow("header-only") << "a,b,y\n" << qint64(1);
        QTest::newRow("one-column") << "1\n2\n" << qint64(1);
        QTest::newRow("empty-file") << "" << qint64(1);
        QTest::newRow("unterminated-quote") << "a,y\n\"1,0\n" << qint64(2);
    }
    void rejectsBadRows() {
        QFETCH(QString, text);
        QFETCH(qint64, line);
        try {
            parse(text.toStdString().c_str());
            QFAIL("accepted a bad table");
        } catch (const DatasetError& e) {
            qInfo("%s", e.what());
            QCOMPARE(e.file(), std::string("t.csv"));
            QVERIFY(e.lineBased());
            QCOMPARE(qint64(e.offset()), line);
        }
    }

    // A file larger than the memory available is refused before it is read: a sparse 1 TiB
    // file (no disk used) used to end in std::bad_alloc.
    void rejectsFilesLargerThanMemory() {
        QTemporaryDir dir;
        QFile file(dir.filePath("huge.csv"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        if (!file.resize(qint64{1} << 40))
            QSKIP("this file system cannot hold a sparse 1 TiB file");
        file.close();
        DataConfig config;
        config.name = "csv";
        config.root = file.fileName().toStdString();
        try {
            openDatasets(config, 1);
            QFAIL("read a 1 TiB file");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), config.root);
            QVERIFY2(QString(e.what()).contains("the file is 1.0 TiB, more than the "), e.what());
        }
    }

    // A row of millions of cells is refused where the limit is crossed, naming the file, the
    // line and the column, instead of splitting it into gigabytes of strings first.
    void rejectsTablesTooWide() {
        std::string row;
        for (int j = 0; j < 2'000'000; ++j)
            row += "1,";
        const std::string text = row + "0\n" + row + "1\n";
        try {
            parseCsv(text, "wide.csv", {});
            QFAIL("accepted 2M columns");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), std::string("wide.csv"));
            QVERIFY(e.lineBased());
            QCOMPARE(e.offset(), int64_t{1});
            QVERIFY2(QString(e.what()).contains("column 100001 starts at character 200001: a "
                                                "table may have at most 100000 columns"),
                     e.what());
        }
    }

    // Cells are quoted in messages at most kMaxQuotedChars long: a 10 MB cell made a 10 MB
    // error, printed and stored in the run record.
    void quotesAtMostFortyCharactersOfACell() {
        const std::string cell(10'000'000, 'x');
        const std::string text = "a,y\n1,0\n" + cell + ",1\n";
        try {
            parseCsv(text, "t.csv", {});
            QFAIL("accepted a non-numeric cell");
        } catch (const DatasetError& e) {
            const QString what = e.what();
            QVERIFY2(what.size() < 200, qPrintable(what.left(200)));
            QVERIFY2(what.endsWith("column 'a' holds '" + QString(40, 'x') +
                                   "...' (10000000 bytes), which is not a number"),
                     qPrintable(what.left(200)));
        }
    }

    void rejectsBadOptions() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, parse("a,y\n1,0\n2,1\n", "z"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, parse("1,0\n2,1\n", "y", "no"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, parse("1,0\n2,1\n", "5"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, parse("1,0\n2,1\n", "", "maybe"));
        QVERIFY_THROWS_EXCEPTION(DatasetError, parse("1,0\n2,0\n")); // one class only
    }

    void splitsFileSeeded() {
        QTemporaryDir dir;
        std::string text = "f,label\n";
        for (int i = 0; i < 20; ++i)
            text += std::to_string(i) + "," + (i % 2 ? "odd" : "even") + "\n";
        const std::string path = (dir.path() + "/t.csv").toStdString();
        tb::test::writeFile(path, std::vector<uint8_t>(text.begin(), text.end()));
        DataConfig config;
        config.name = "csv";
        config.root = path;
        config.valFraction = 0.25;
        config.normalize = false;
        const DatasetSplits s = openDatasets(config, 5);
        QCOMPARE(s.train->size(), int64_t{15});
        QCOMPARE(s.validation->size(), int64_t{5});
        QCOMPARE(s.train->classNames(), (std::vector<std::string>{"even", "odd"}));
        std::set<float> seen;
        float v = 0;
        for (int64_t i = 0; i < 15; ++i) {
            const int32_t label = s.train->get(i, &v, 0);
            QCOMPARE(label, static_cast<int32_t>(v) % 2);
            seen.insert(v);
        }
        for (int64_t i = 0; i < 5; ++i) {
            s.validation->get(i, &v, 0);
            seen.insert(v);
        }
        QCOMPARE(seen.size(), std::size_t{20}); // disjoint and complete
        const DatasetSplits same = openDatasets(config, 5);
        const DatasetSplits other = openDatasets(config, 6);
        std::vector<float> a, b, c;
        for (int64_t i = 0; i < 5; ++i) {
            same.validation->get(i, &v, 0);
            a.push_back(v);
            s.validation->get(i, &v, 0);
            b.push_back(v);
            other.validation->get(i, &v, 0);
            c.push_back(v);
        }
        QCOMPARE(a, b);
        QVERIFY(a != c);
        config.normalize = true; // per-feature statistics
        const DatasetSplits n = openDatasets(config, 5);
        double sum = 0;
        for (int64_t i = 0; i < 15; ++i) {
            n.train->get(i, &v, 0);
            sum += v;
        }
        QVERIFY(std::abs(sum / 15) < 0.6);
    }

    void rejectsMissingFile() {
        DataConfig config;
        config.name = "csv";
        config.root = "/nonexistent/t.csv";
        try {
            openDatasets(config, 1);
            QFAIL("accepted a missing file");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), config.root);
        }
    }

    // Only regular files are read: a FIFO would block in open() until a writer came, a folder
    // read as a file gave a bare std::bad_alloc. The error names the file and what it is.
    void rejectsNonRegularFiles_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("fifo") << "fifo"
                              << "is a FIFO (named pipe), expected a regular file";
        QTest::newRow("folder") << "folder"
                                << "is a folder, expected a regular file";
        QTest::newRow("device") << "device"
                                << "is a character device, expected a regular file";
    }
    void rejectsNonRegularFiles() {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/t.csv").toStdString();
        int writer = -1; // holds the FIFO open, so an unguarded reader fails instead of hanging
        if (kind == "fifo") {
            QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
            writer = ::open(path.c_str(), O_RDWR | O_NONBLOCK);
            QVERIFY(writer >= 0);
        } else if (kind == "folder") {
            QVERIFY(QDir().mkdir(QString::fromStdString(path)));
        } else {
            QCOMPARE(::symlink("/dev/zero", path.c_str()), 0);
        }
        DataConfig config;
        config.name = "csv";
        config.root = path;
        try {
            openDatasets(config, 1);
            QFAIL("read a file that is not a regular file");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), path);
            QVERIFY2(QString(e.what()).endsWith(expected), e.what());
        }
        if (writer >= 0)
            ::close(writer);
    }

private:
    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TestCsv)
#include "tst_csv.moc"
