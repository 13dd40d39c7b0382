// parseJson: nesting is bounded (deeper text used to overflow the stack), and every failure is
// a DatasetError naming the source and, where known, the byte offset.
#include "core/errors.h"
#include "io/jsontext.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tb;

namespace {

std::string nested(std::size_t levels, const char* open = "[", const char* close = "]") {
    std::string s;
    for (std::size_t i = 0; i < levels; ++i)
        s += open;
    s += "1";
    for (std::size_t i = 0; i < levels; ++i)
        s += close;
    return s;
}

} // namespace

class TestJsonText : public QObject {
    Q_OBJECT
private slots:
    void acceptsTheDeepestAllowed() {
        const nlohmann::json j = parseJson(nested(kMaxJsonDepth), "a.json");
        QVERIFY(j.is_array());
        QVERIFY(tryParseJson(nested(kMaxJsonDepth, "{\"k\":", "}")));
    }

    void refusesDeeperNesting_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("one too deep") << QString::fromStdString(nested(kMaxJsonDepth + 1));
        QTest::newRow("100k arrays") << QString::fromStdString(nested(100000));
        QTest::newRow("100k objects") << QString::fromStdString(nested(100000, "{\"a\":", "}"));
        QTest::newRow("unclosed 100k") << QString(100000, '[');
    }
    void refusesDeeperNesting() {
        QFETCH(QString, text);
        const std::string s = text.toStdString();
        try {
            parseJson(s, "deep.json");
            QFAIL("accepted nesting deeper than kMaxJsonDepth");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), std::string("deep.json"));
            QVERIFY2(QString(e.what()).contains("nested more than"), e.what());
        }
        QVERIFY(!tryParseJson(s));
    }

    void malformedTextNamesTheOffset() {
        try {
            parseJson(R"({"a": tru})", "bad.json");
            QFAIL("accepted malformed JSON");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), std::string("bad.json"));
            QVERIFY(e.offset() > 0);
            QVERIFY2(!QString(e.what()).contains("json.exception"), e.what());
        }
        QVERIFY(!tryParseJson("{"));
    }

    // nlohmann reports 1e999 as out_of_range.406, not as a parse error.
    void numberOverflowIsADatasetError() {
        QVERIFY_THROWS_EXCEPTION(DatasetError, parseJson(R"({"lr": 1e999})", "big.json"));
        QVERIFY(!tryParseJson(R"({"lr": 1e999})"));
    }

    void filesThatAreNotJsonFiles() {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString();
        QVERIFY_THROWS_EXCEPTION(DatasetError, parseJsonFile(path)); // a directory
        QVERIFY_THROWS_EXCEPTION(DatasetError, parseJsonFile(path + "/missing.json"));
        std::ofstream(path + "/ok.json") << R"({"batch_size": 8})";
        QCOMPARE(parseJsonFile(path + "/ok.json").at("batch_size").get<int>(), 8);
        // An endless device is refused after kMaxJsonFileBytes instead of read forever.
        QVERIFY_THROWS_EXCEPTION(DatasetError, parseJsonFile("/dev/zero"));
    }
};

QTEST_GUILESS_MAIN(TestJsonText)
#include "tst_jsontext.moc"
