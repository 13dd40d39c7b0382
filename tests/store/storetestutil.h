// Events and raw SQL helpers shared by the run store tests.
#pragma once

#include "store/runstore.h"
#include "store/sqlitedb.h"

#include <QtTest>

#include <string>

// QCOMPARE prints std::strings that differ.
template <> inline char* QTest::toString<std::string>(const std::string& s) {
    return qstrdup(s.c_str());
}

namespace tb::test {

inline RunStartedEvent runStarted(const std::string& id, const std::string& name = "run",
                                  const std::string& model = "mlp",
                                  const std::string& dataset = "fmnist") {
    RunStartedEvent e;
    e.runId = id;
    e.name = name;
    e.config = {{"model", model},
                {"dataset", dataset},
                {"batch_size", 64},
                {"optimizer", {{"name", "sgd"}, {"lr", 0.1}}}};
    e.environment = {{"host", "test"}};
    e.device = "cpu";
    e.stepsPerEpoch = 10;
    e.totalSteps = 20;
    return e;
}

inline StepEvent step(int64_t n, double time = 1000.0) {
    StepEvent s;
    s.step = n;
    s.epoch = (n - 1) / 10 + 1;
    s.samplesSeen = n * 64;
    s.unixTime = time + double(n);
    s.loss = 2.0 / double(n);
    s.lr = 0.1;
    s.stepMs = 12.5;
    s.dataWaitMs = 1.5;
    s.samplesPerSec = 5000.0;
    return s;
}

inline EpochEvent epoch(int64_t n, double valAcc) {
    EpochEvent e;
    e.epoch = n;
    e.step = n * 10;
    e.trainLoss = 1.0 / double(n);
    e.trainAcc = 0.5;
    e.valLoss = 1.2 / double(n);
    e.valAcc = valAcc;
    e.seconds = 3.0;
    e.samplesPerSec = 4000.0;
    return e;
}

// The single integer a query returns.
inline int64_t scalar(SqliteDb& db, const std::string& sql) {
    SqliteStatement q(db, sql);
    return q.step() ? q.integer(0) : -1;
}

inline std::string scalarText(SqliteDb& db, const std::string& sql) {
    SqliteStatement q(db, sql);
    return q.step() ? q.text(0) : std::string();
}

} // namespace tb::test
