// safetensors headers from elsewhere: every malformed one is a DatasetError naming the file,
// never a json exception, an overflowed size or an allocation of what the file does not hold.
#include "core/errors.h"
#include "io/safetensors.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

class TestSafetensorsHeader : public QObject {
    Q_OBJECT
private slots:
    void roundTrip() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/t.safetensors").toStdString();
        Tensor t = Tensor::host({2, 3}, DType::F32);
        for (int i = 0; i < 6; ++i)
            t.data<float>()[i] = static_cast<float>(i);
        writeSafetensors(path, {{"w", t}}, {{"format", "x"}});
        const SafetensorsFile f = readSafetensors(path);
        QCOMPARE(f.metadata.at("format"), std::string("x"));
        QCOMPARE(f.tensors.at("w").shape(), (Shape{2, 3}));
        QCOMPARE(f.tensors.at("w").data<float>()[5], 5.0f);
    }

    void malformedHeaders_data() {
        QTest::addColumn<QString>("header");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not an object") << "[1]"
                                       << "not a JSON object";
        QTest::newRow("metadata number") << R"({"__metadata__": {"config": 1}})"
                                         << "'config' is not a string";
        QTest::newRow("metadata list") << R"({"__metadata__": [1]})"
                                       << "__metadata__ is not an object";
        QTest::newRow("dtype number")
            << R"({"w": {"dtype": 1, "shape": [1], "data_offsets": [0, 4]}})"
            << "unsupported dtype";
        QTest::newRow("shape strings")
            << R"({"w": {"dtype": "F32", "shape": ["2"], "data_offsets": [0, 8]}})"
            << "not sizes that fit in the file";
        QTest::newRow("negative size")
            << R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})"
            << "not sizes that fit in the file";
        // 2^62 * 4 bytes wraps to 0 in 64 bits: it used to match data_offsets [0, 0].
        QTest::newRow("overflowing shape")
            << R"({"w": {"dtype": "F32", "shape": [4611686018427387904], "data_offsets": [0, 0]}})"
            << "not sizes that fit in the file";
        QTest::newRow("offsets strings")
            << R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": ["0", "4"]}})"
            << "data_offsets";
        QTest::newRow("beyond the data")
            << R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})"
            << "outside the file";
        QTest::newRow("too many dims")
            << R"({"w": {"dtype": "U8", "shape": [1,1,1,1,1,1,1], "data_offsets": [0, 1]}})"
            << "at most 6";
    }
    void malformedHeaders() {
        QFETCH(QString, header);
        QFETCH(QString, mentions);
        try {
            parseSafetensorsHeader(header.toStdString(), 4, "x.safetensors");
            QFAIL("accepted a malformed header");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), std::string("x.safetensors"));
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestSafetensorsHeader)
#include "tst_safetensorsheader.moc"
