// The PyTorch reference for numerics tests: scripts under tests/torch/, run with Debian's
// python3-torch, read what a test wrote (tbtensors.py reads .safetensors) and print their
// findings as one JSON line. Tests QSKIP with torchUnavailableReason() where PyTorch is absent.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace tb::test {

// Why the PyTorch reference cannot run here (no /usr/bin/python3, or no torch for it), or an
// empty string when it can. Checked once per process.
QString torchUnavailableReason();

// Runs tests/torch/<script> with args and returns the JSON object on the last line of its
// output. Throws std::runtime_error with the script's stderr when it fails or prints no JSON.
QJsonObject runTorchScript(const QString& script, const QStringList& args);

// For each of `keys`, result[key] holds relative errors to PyTorch's float64 run: "ours" and
// "torch32" (PyTorch's own float32 run), and "worst" (where ours is worst). Ours must be as
// close as PyTorch's float32: at most twice its error plus a few float32 roundings (2e-7). Logs
// each; returns the keys that fail with their figures, or an empty string.
QString fartherThanPyTorch(const QJsonObject& result, const QStringList& keys);

} // namespace tb::test
