// The restricted pickle reader on pickles written by hand, byte by byte (no PyTorch needed):
// what a state dict is made of comes back; a container placed inside itself, a cycle through
// two, and nesting past the limit are refused at their opcode (the fuzzer found the cycle: it
// leaked, and a walk over it would never end).
#include "io/torchpickle.h"

#include "core/errors.h"

#include <QtTest>

using namespace tb;

namespace {

// Protocol 2: "\x80\x02" ... "." (STOP).
std::string pickle(const std::string& body) {
    return std::string("\x80\x02", 2) + body + ".";
}

QString refusalOf(const std::string& bytes) {
    try {
        readTorchPickle(bytes, "hand.pkl");
    } catch (const DatasetError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestTorchPickle : public QObject {
    Q_OBJECT
private slots:
    // {"a": [1, 2]}: EMPTY_DICT, BINUNICODE "a", EMPTY_LIST, MARK, BININT1 1, BININT1 2,
    // APPENDS, SETITEM.
    void readsADictOfAList() {
        const PickleValue v = readTorchPickle(pickle(std::string("}X\x01\0\0\0a](K\x01K\x02"
                                                                 "es",
                                                                 15)),
                                              "hand.pkl");
        QCOMPARE(v.kind, PickleValue::Kind::Dict);
        QCOMPARE(v.entries->size(), std::size_t{1});
        QCOMPARE(v.entries->at(0).first.text, std::string("a"));
        const PickleValue& list = v.entries->at(0).second;
        QCOMPARE(list.items->size(), std::size_t{2});
        QCOMPARE(list.items->at(1).integer, int64_t{2});
    }

    void aListInsideItselfIsRefused() {
        // EMPTY_LIST, BINPUT 0, BINGET 0, APPEND.
        const QString why = refusalOf(pickle(std::string("]q\0h\0a", 6)));
        QVERIFY2(why.contains("hand.pkl") && why.contains("inside itself"), qPrintable(why));
    }

    void aCycleThroughTwoListsIsRefused() {
        // L0 = [] (memo 0), L1 = [] (memo 1), L1.append(L0), POP, L0.append(L1).
        const QString why = refusalOf(pickle(std::string("]q\0]q\1h\0a0h\1a", 13)));
        QVERIFY2(why.contains("after placing it in another"), qPrintable(why));
    }

    void nestingIsBounded() {
        // 100 empty lists on the stack, each appended into the one below.
        const QString why = refusalOf(pickle(std::string(100, ']') + std::string(99, 'a')));
        QVERIFY2(why.contains("more than 64 deep"), qPrintable(why));
        // 60 deep is fine.
        const PickleValue v =
            readTorchPickle(pickle(std::string(60, ']') + std::string(59, 'a')), "hand.pkl");
        QCOMPARE(v.kind, PickleValue::Kind::List);
    }
};

QTEST_GUILESS_MAIN(TestTorchPickle)
#include "tst_torchpickle.moc"
