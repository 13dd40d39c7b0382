// The engine's text forms of durations and counts, and TensorBoard's debiased moving average:
// what the CLI, the window and the comparison all print and draw.
#include "core/smoothing.h"
#include "core/textformat.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace tb;

class TestTextFormat : public QObject {
    Q_OBJECT
private slots:
    void durations() {
        QCOMPARE(formatDuration(0.4), std::string("0 s"));
        QCOMPARE(formatDuration(42.0), std::string("42 s"));
        QCOMPARE(formatDuration(187.0), std::string("3 min 07 s"));
        QCOMPARE(formatDuration(3900.0), std::string("1 h 05 min"));
        QCOMPARE(formatDuration(-5.0), std::string("0 s"));
        QCOMPARE(formatDuration(std::numeric_limits<double>::infinity()), std::string("0 s"));
    }

    void counts() {
        QCOMPARE(formatMagnitude(288), std::string("288"));
        QCOMPARE(formatMagnitude(18432), std::string("18.4K"));
        QCOMPARE(formatMagnitude(331776), std::string("332K"));
        QCOMPARE(formatMagnitude(5308416), std::string("5.31M"));
        QCOMPARE(formatMagnitude(999499), std::string("999K"));
        QCOMPARE(formatMagnitude(999500), std::string("1.00M"));
        QCOMPARE(formatMagnitude(9995), std::string("10.0K"));
        QCOMPARE(formatMagnitude(1234567890123), std::string("1.23T"));
        QCOMPARE(formatMagnitude(-5), std::string("0"));
        QCOMPARE(formatCount(0), std::string("0"));
        QCOMPARE(formatCount(999), std::string("999"));
        QCOMPARE(formatCount(1000), std::string("1,000"));
        QCOMPARE(formatCount(1234567), std::string("1,234,567"));
        QCOMPARE(formatCount(-45000), std::string("-45,000"));
        QCOMPARE(formatCount(std::numeric_limits<int64_t>::min()),
                 std::string("-9,223,372,036,854,775,808"));
        QCOMPARE(formatCountOf(1, "run"), std::string("1 run"));
        QCOMPARE(formatCountOf(0, "run"), std::string("0 runs"));
        QCOMPARE(formatCountOf(1200, "trial"), std::string("1,200 trials"));
    }

    void debiasedEmaMatchesHandComputation() {
        // w = 0.6 over 1, 2, 3:
        //   last = 0.4            debias = 1 - 0.6   = 0.4   -> 1
        //   last = 0.24 + 0.8     debias = 1 - 0.36  = 0.64  -> 1.04 / 0.64 = 1.625
        //   last = 0.624 + 1.2    debias = 1 - 0.216 = 0.784 -> 1.824 / 0.784
        DebiasedEma ema(0.6);
        QCOMPARE(ema.add(1.0), 1.0);
        QCOMPARE(ema.add(2.0), 1.625);
        QVERIFY(std::abs(ema.add(3.0) - 1.824 / 0.784) < 1e-12);
        // A NaN loss passes through and leaves the average alone.
        QVERIFY(std::isnan(ema.add(qQNaN())));
        DebiasedEma none(0.0);
        QCOMPARE(none.add(5.0), 5.0);
        QCOMPARE(none.add(7.0), 7.0);
    }
};

QTEST_GUILESS_MAIN(TestTextFormat)
#include "tst_textformat.moc"
