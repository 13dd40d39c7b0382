// safetensors files: a round trip, and a write that runs out of disk space leaves nothing
// behind (no half file, no temporary).
#include "io/safetensors.h"

#include "core/errors.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <cstring>
#include <filesystem>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tb;

namespace {

std::vector<SafetensorsEntry> tensorsOf(int64_t floats) {
    Tensor t = Tensor::host({floats}, DType::F32);
    for (int64_t i = 0; i < floats; ++i)
        t.data<float>()[i] = static_cast<float>(i);
    return {{"w", t}};
}

// The forked child's body: 0 when the write failed cleanly, else what went wrong.
[[noreturn]] void writeIntoFullDisk(const std::string& path) {
    // Files may not grow past 64 KiB: a write beyond fails as on a full disk (EFBIG), and the
    // signal that would kill the process is ignored, as SQLite and streams expect.
    const rlimit limit{64 * 1024, 64 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0 || std::signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
        _exit(10);
    try {
        writeSafetensors(path, tensorsOf(256 * 1024), {{"format", "test"}});
        _exit(11); // 1 MiB was written past the limit
    } catch (const Error& e) {
        if (std::strstr(e.what(), path.c_str()) == nullptr)
            _exit(12);
    }
    if (std::filesystem::exists(path + ".tmp"))
        _exit(13);
    if (std::filesystem::exists(path))
        _exit(14);
    _exit(0);
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private slots:
    void roundTrip() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("a.safetensors").toStdString();
        writeSafetensors(path, tensorsOf(1000), {{"format", "test"}});
        const SafetensorsFile f = readSafetensors(path);
        QCOMPARE(f.metadata.at("format"), std::string("test"));
        QCOMPARE(f.tensors.at("w").numel(), int64_t{1000});
        QCOMPARE(f.tensors.at("w").data<float>()[999], 999.0f);
        QVERIFY(!std::filesystem::exists(path + ".tmp"));
    }

    // A full checkpoint disk used to leave the .tmp file behind.
    void fullDiskLeavesNoTemporary() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.safetensors").toStdString();
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0)
            writeIntoFullDisk(path);
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
