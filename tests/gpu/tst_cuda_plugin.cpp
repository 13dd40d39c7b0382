// The CUDA plugin's own logic, on any machine that builds it (no GPU needed): the driver check,
// running a convolution pass down cuDNN's ranking when an algorithm is refused, NCCL opened only
// on demand and named when missing, and a lost CUDA context making the GPU unusable for the rest
// of the process with "restart" as the advice. Links the plugin directly.
#include "algofallback.h"
#include "backend/cudaplugin.h"
#include "backend/devices.h"
#include "cudacheck.h"
#include "deviceinfo.h"
#ifdef TB_HAVE_NCCL
#include "ncclapi.h"
#endif

#include <QProcess>
#include <QtTest>

#include <dlfcn.h>

#include <string>
#include <vector>

using namespace tb;

namespace {

// The plugin file this test runs against, where the dynamic loader found it (the build tree's,
// or a GPU bundle's beside the test): readelf reads what was actually loaded.
QString loadedPluginPath() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cuda::losesContext), &info) == 0 || !info.dli_fname)
        return {};
    return QString::fromLocal8Bit(info.dli_fname);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestCudaPlugin : public QObject {
    Q_OBJECT
private slots:
    // CUDA's minor-version compatibility: any 13.x runtime on any CUDA 13 driver (580+).
    void driverRunsRuntimeOfItsMajorVersion_data() {
        QTest::addColumn<int>("driver");
        QTest::addColumn<int>("runtime");
        QTest::addColumn<bool>("runs");
        QTest::newRow("13.0 driver, 13.1 runtime") << 13000 << 13010 << true;
        QTest::newRow("13.1 driver, 13.0 runtime") << 13010 << 13000 << true;
        QTest::newRow("same version") << 13000 << 13000 << true;
        QTest::newRow("newer major driver") << 14000 << 13020 << true;
        QTest::newRow("12.8 driver, 13.0 runtime") << 12080 << 13000 << false;
        QTest::newRow("no driver") << 0 << 13000 << false;
    }
    void driverRunsRuntimeOfItsMajorVersion() {
        QFETCH(int, driver);
        QFETCH(int, runtime);
        QFETCH(bool, runs);
        QCOMPARE(cuda::driverRunsRuntime(driver, runtime), runs);
    }

    // The injected failure: cuDNN refuses the first-ranked algorithm at run time; the pass runs
    // on the next one, with that algorithm's own workspace, and later calls start there.
    void aRefusedAlgorithmFallsToTheNextRanked() {
        const std::vector<cuda::RankedAlgo> ranked{{1, 0, 4096}, {0, 0, 0}, {6, 1, 1 << 20}};
        std::size_t current = 0;
        std::vector<int> tried;
        std::vector<std::size_t> workspaces;
        int fallbacks = 0;
        const auto attempt = [&](const cuda::RankedAlgo& a) -> std::optional<std::string> {
            tried.push_back(a.algo);
            workspaces.push_back(a.workspaceBytes);
            if (a.algo == 1)
                return std::string("CUDNN_STATUS_NOT_SUPPORTED_SHAPE (3002)");
            return std::nullopt;
        };
        const auto note = [&](const cuda::RankedAlgo& from, const cuda::RankedAlgo& to,
                              const std::string& why) {
            ++fallbacks;
            QCOMPARE(from.algo, 1);
            QCOMPARE(to.algo, 0);
            QVERIFY(contains(why, "NOT_SUPPORTED"));
        };
        cuda::runRanked(ranked, current, "forward", attempt, note);
        QCOMPARE(current, std::size_t{1});
        QCOMPARE(tried, (std::vector<int>{1, 0}));
        QCOMPARE(workspaces, (std::vector<std::size_t>{4096, 0}));
        QCOMPARE(fallbacks, 1);
        cuda::runRanked(ranked, current, "forward", attempt, note); // the plan kept algorithm 0
        QCOMPARE(tried, (std::vector<int>{1, 0, 0}));
        QCOMPARE(fallbacks, 1);
    }

    void noAlgorithmRunningIsAnErrorNamingEachRefusal() {
        const std::vector<cuda::RankedAlgo> ranked{{1, 0, 0}, {2, 0, 0}};
        std::size_t current = 0;
        const auto refuseAll = [](const cuda::RankedAlgo& a) -> std::optional<std::string> {
            return "refusal of " + std::to_string(a.algo);
        };
        try {
            cuda::runRanked(ranked, current, "backward-data", refuseAll,
                            [](const auto&, const auto&, const auto&) {});
            QFAIL("no error");
        } catch (const Error& e) {
            const std::string m = e.what();
            QVERIFY2(contains(m, "backward-data") && contains(m, "algorithm 1: refusal of 1") &&
                         contains(m, "algorithm 2: refusal of 2"),
                     m.c_str());
        }
        QVERIFY_THROWS_EXCEPTION(Error,
                                 cuda::runRanked(ranked, current, "backward-data", refuseAll,
                                                 [](const auto&, const auto&, const auto&) {}));
    }

    // NCCL is not a dependency of the plugin: it is opened when a job needs it, and a missing
    // one says which library and what to do.
    void ncclIsOpenedOnDemandAndNamedWhenMissing() {
        const QString plugin = loadedPluginPath();
        QVERIFY2(!plugin.isEmpty(), "the loader names no file for the plugin");
        QProcess readelf;
        readelf.start("readelf", {"--dynamic", plugin});
        if (!readelf.waitForFinished(30000) || readelf.exitCode() != 0)
            QSKIP("readelf (binutils) is needed to list the plugin's libraries");
        const std::string dynamic = readelf.readAllStandardOutput().toStdString();
        QVERIFY2(contains(dynamic, "(NEEDED)") && contains(dynamic, "libcudnn"), dynamic.c_str());
        QVERIFY2(!contains(dynamic, "libnccl"), dynamic.c_str());
#ifdef TB_HAVE_NCCL
        cuda::NcclApi api;
        const std::string error = cuda::openNccl("libnccl-that-is-not-installed.so.2", api);
        QVERIFY2(contains(error, "libnccl-that-is-not-installed.so.2") &&
                     contains(error, "ddp.backend=mpi"),
                 error.c_str());
        QVERIFY(!api.allReduce);
#endif
    }

    void stickyErrorsAreTheOnesThatLoseTheContext() {
        QVERIFY(cuda::losesContext(cudaErrorIllegalAddress));
        QVERIFY(cuda::losesContext(cudaErrorLaunchFailure));
        QVERIFY(cuda::losesContext(cudaErrorMisalignedAddress));
        QVERIFY(!cuda::losesContext(cudaErrorMemoryAllocation));
        QVERIFY(!cuda::losesContext(cudaErrorInvalidValue));
        QVERIFY(!cuda::losesContext(cudaSuccess));
    }

    // Last: it marks this process's context lost for good.
    void aLostContextMakesTheGpuUnusableUntilRestart() {
        QVERIFY(cuda::contextLostReason().empty());
        try {
            cuda::throwCudaError(cudaErrorIllegalAddress, "reluKernel", "elementwise.cu", 42);
            QFAIL("no error");
        } catch (const BackendUnavailable& e) {
            QVERIFY2(contains(e.what(), "Restart TrainBench") &&
                         contains(e.what(), "cudaErrorIllegalAddress") &&
                         contains(e.what(), "reluKernel at elementwise.cu:42"),
                     e.what());
        }
        char buf[1024] = {};
        QCOMPARE(tb_cuda_context_lost(buf, sizeof buf), 1);
        QVERIFY(contains(buf, "reluKernel"));
        // No backend is created afterwards, whatever the device.
        char err[1024] = {};
        QCOMPARE(tb_cuda_create_backend(0, err, sizeof err), nullptr);
        QVERIFY2(contains(err, "restart TrainBench"), err);
        // The engine's view, for the window's device list and device=auto.
        const CudaStatus& s = probeCudaLibraries();
        QVERIFY(!s.usable);
        QVERIFY2(contains(s.reason, "lost after cudaErrorIllegalAddress"), s.reason.c_str());
        QVERIFY(contains(s.advice, "Restart TrainBench"));
        QCOMPARE(resolveDevice("auto"), Device::cpu());
    }
};

QTEST_GUILESS_MAIN(TestCudaPlugin)
#include "tst_cuda_plugin.moc"
