// fp16 and bf16 conversions: exact values, rounding, overflow, underflow, NaN.
#include "core/half.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace tb;

class TestHalf : public QObject {
    Q_OBJECT
private slots:
    void exactValuesRoundTrip_data() {
        QTest::addColumn<float>("value");
        QTest::newRow("zero") << 0.0f;
        QTest::newRow("one") << 1.0f;
        QTest::newRow("minus-two") << -2.0f;
        QTest::newRow("max-half") << 65504.0f;
        QTest::newRow("smallest-normal") << 6.103515625e-05f;
        QTest::newRow("smallest-subnormal") << 5.9604644775390625e-08f;
        QTest::newRow("subnormal") << 3.0f * 5.9604644775390625e-08f;
    }
    void exactValuesRoundTrip() {
        QFETCH(float, value);
        QCOMPARE(halfToFloat(floatToHalf(value)), value);
    }

    void roundsToNearestEven() {
        // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
        QCOMPARE(halfToFloat(floatToHalf(1.0f + 0.00048828125f)), 1.0f);
        // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: goes up to the even one.
        QCOMPARE(halfToFloat(floatToHalf(1.0f + 3 * 0.00048828125f)), 1.0f + 0.001953125f);
    }

    void overflowAndUnderflow() {
        QVERIFY(std::isinf(halfToFloat(floatToHalf(70000.0f))));
        QVERIFY(std::isinf(halfToFloat(floatToHalf(-1e10f))));
        QCOMPARE(halfToFloat(floatToHalf(1e-9f)), 0.0f); // below half the smallest subnormal
        QVERIFY(std::isnan(halfToFloat(floatToHalf(std::numeric_limits<float>::quiet_NaN()))));
    }

    void matchesExhaustiveRoundTrip() {
        // Every finite half converts to float and back unchanged.
        for (uint32_t h = 0; h < 0x10000; ++h) {
            if ((h & 0x7c00u) == 0x7c00u)
                continue;
            const uint16_t back = floatToHalf(halfToFloat(static_cast<uint16_t>(h)));
            if (back != h)
                QFAIL(qPrintable(QString("half 0x%1 did not round-trip").arg(h, 4, 16)));
        }
    }

    void bf16() {
        QCOMPARE(bf16ToFloat(floatToBf16(1.0f)), 1.0f);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa.
        QCOMPARE(bf16ToFloat(floatToBf16(1.00390625f)), 1.0f);
        QCOMPARE(bf16ToFloat(floatToBf16(1.01171875f)), 1.015625f);
        // bf16 keeps float's range: a value that overflows fp16 is fine.
        QVERIFY(std::fabs(bf16ToFloat(floatToBf16(70000.0f)) - 70000.0f) < 300.0f);
        QVERIFY(std::isnan(bf16ToFloat(floatToBf16(std::numeric_limits<float>::quiet_NaN()))));
    }
};

QTEST_GUILESS_MAIN(TestHalf)
#include "tst_half.moc"
