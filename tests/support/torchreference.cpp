// Running the PyTorch reference scripts.
#include "support/torchreference.h"

#include "support/buildtree.h"

#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>

#include <stdexcept>

namespace tb::test {

namespace {

// Debian's interpreter: the one python3-torch installs into, whatever python3 comes first on
// PATH (a pyenv one has no torch). OpenMP OpenBLAS keeps PyTorch on one thread pool.
const QString kPython = QStringLiteral("/usr/bin/python3");

QProcessEnvironment torchEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LD_LIBRARY_PATH"),
               QStringLiteral("/usr/lib/x86_64-linux-gnu/openblas-openmp"));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("2"));
    return env;
}

} // namespace

QString torchUnavailableReason() {
    static const QString reason = [] {
        QProcess p;
        p.setProcessEnvironment(torchEnvironment());
        p.start(kPython, {QStringLiteral("-c"), QStringLiteral("import torch, numpy")});
        if (!p.waitForStarted())
            return QStringLiteral("no %1 to run the PyTorch reference with").arg(kPython);
        p.waitForFinished(120000);
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return QStringLiteral("PyTorch is not installed for %1 (Debian: apt install "
                                  "python3-torch): %2")
                .arg(kPython, QString::fromLocal8Bit(p.readAllStandardError()).trimmed());
        return QString();
    }();
    return reason;
}

QJsonObject runTorchScript(const QString& script, const QStringList& args) {
    QProcess p;
    p.setProcessEnvironment(torchEnvironment());
    p.start(kPython, QStringList{sourcePath("tests/torch/" + script)} + args);
    p.waitForFinished(600000);
    const QByteArray out = p.readAllStandardOutput();
    const QString err = QString::fromLocal8Bit(p.readAllStandardError());
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        throw std::runtime_error((script + " failed: " + err).toStdString());
    const QList<QByteArray> lines = out.trimmed().split('\n');
    const QJsonDocument doc =
        QJsonDocument::fromJson(lines.isEmpty() ? QByteArray() : lines.last());
    if (!doc.isObject())
        throw std::runtime_error(
            (script + " printed no JSON: " + QString::fromUtf8(out) + err).toStdString());
    return doc.object();
}

QString fartherThanPyTorch(const QJsonObject& result, const QStringList& keys) {
    constexpr double kRoundingFloor = 2e-7;
    QString failed;
    for (const QString& key : keys) {
        const QJsonObject e = result[key].toObject();
        const double ours = e["ours"].toDouble(), torch = e["torch32"].toDouble();
        qInfo("%-9s relative error to float64: ours %.3g, PyTorch float32 %.3g (worst: %s)",
              qPrintable(key), ours, torch, qPrintable(e["worst"].toString()));
        if (!(ours <= 2.0 * torch + kRoundingFloor))
            failed += QStringLiteral("%1%2: %3 vs PyTorch's %4")
                          .arg(failed.isEmpty() ? "" : "; ", key)
                          .arg(ours)
                          .arg(torch);
    }
    return failed;
}

} // namespace tb::test
