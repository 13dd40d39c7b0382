// The helpers behind the engine's error messages: quoting user data and byte counts.
#include "core/errors.h"

#include <QtTest>

using namespace tb;

class TestErrors : public QObject {
    Q_OBJECT
private slots:
    void quotesUserData_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("short") << QByteArray("relu") << QByteArray("'relu'");
        QTest::newRow("empty") << QByteArray("") << QByteArray("''");
        QTest::newRow("exactly 40") << QByteArray(40, 'a') << "'" + QByteArray(40, 'a') + "'";
        QTest::newRow("41") << QByteArray(41, 'a') << "'" + QByteArray(40, 'a') + "...' (41 bytes)";
        // A two-byte UTF-8 letter at bytes 39-40 is not cut in two: the quote stops before it.
        QTest::newRow("utf-8 boundary") << QByteArray(39, 'a') + "\xc3\xa9" + QByteArray(9, 'b')
                                        << "'" + QByteArray(39, 'a') + "...' (50 bytes)";
    }
    void quotesUserData() {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, expected);
        QCOMPARE(QByteArray::fromStdString(quoteUserData(text.toStdString())), expected);
    }

    void formatsBytes() {
        QCOMPARE(formatBytes(512), std::string("512 B"));
        QCOMPARE(formatBytes(uint64_t{3} << 29), std::string("1.5 GiB"));
    }
};

QTEST_GUILESS_MAIN(TestErrors)
#include "tst_errors.moc"
