// Running trainbench-cli as a user does, for the CLI suites: its exit code and output, with
// XDG_DATA_HOME pointing at a test folder so the user's run store is never touched.
#pragma once

#include "support/buildtree.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>

namespace tb::test {

struct CliResult {
    int code;
    QString out, err;
};

inline void prepareCli(QProcess& p, const QString& home) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_DATA_HOME", home);
    env.insert("XDG_CACHE_HOME", home + "/cache");
    p.setProcessEnvironment(env);
}

inline CliResult finishCli(QProcess& p, int timeoutMs) {
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, QString(), QString("timed out after %1 ms").arg(timeoutMs)};
    }
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

inline CliResult runCli(const QStringList& args, const QString& home, int timeoutMs = 300000) {
    QProcess p;
    prepareCli(p, home);
    p.start(test::cliPath(), args);
    return finishCli(p, timeoutMs);
}

inline QJsonObject lastJsonLine(const QString& out) {
    const QStringList lines = out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

} // namespace tb::test
