// Shape parsing and tensor views.
#include "core/errors.h"
#include "core/tensor.h"

#include <QtTest>

using namespace tb;

class TestTensor : public QObject {
    Q_OBJECT
private slots:
    void parsesShapes() {
        QCOMPARE(Shape::parse("1x28x28", "input"), (Shape{1, 28, 28}));
        QCOMPARE(Shape::parse("784", "input").numel(), int64_t{784});
        // bench --help's C,H,W: commas as PyTorch prints a size.
        QCOMPARE(Shape::parse("3,224,224", "input"), (Shape{3, 224, 224}));
    }

    void rejectsBadShapes_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("zero") << "1x0x28";
        QTest::newRow("letters") << "axb";
        QTest::newRow("trailing") << "3x";
        QTest::newRow("trailing-comma") << "3,";
        QTest::newRow("semicolon") << "3;32;32";
        QTest::newRow("too-many") << "1x1x1x1x1x1x1";
    }
    void rejectsBadShapes() {
        QFETCH(QString, text);
        try {
            Shape::parse(text.toStdString(), "input");
            QFAIL("accepted a bad shape");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QString("input"));
        }
    }

    void viewsAndSlicesShareMemory() {
        Tensor t = Tensor::host({4, 3}, DType::F32);
        for (int i = 0; i < 12; ++i)
            t.data<float>()[i] = static_cast<float>(i);
        Tensor rows = t.slice(1, 3);
        QCOMPARE(rows.shape(), (Shape{2, 3}));
        QCOMPARE(rows.data<float>()[0], 3.0f);
        Tensor flat = t.view({12});
        flat.data<float>()[11] = -1.0f;
        QCOMPARE(t.data<float>()[11], -1.0f);
        QVERIFY_THROWS_EXCEPTION(Error, t.view({5}));
        QVERIFY_THROWS_EXCEPTION(Error, t.slice(2, 5));
    }
};

QTEST_GUILESS_MAIN(TestTensor)
#include "tst_tensor.moc"
