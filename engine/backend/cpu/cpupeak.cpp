// measureCpuPeakGflops (and its bf16 twin), measureCpuBandwidthGBs and their cache (an entry per
// CPU, ISA and threads: the best figure seen and when it was last measured). The peak is oneDNN's
// sgemm on matrices that stay in each core's L2, rather than an FMA loop of our own: the engine is
// built for baseline x86-64, so a loop compiled here would run SSE while oneDNN JIT-compiles for
// the widest vectors the CPU has (AVX-512 where present) and its convolutions and matmuls are what
// a training step runs. So the figure is the achievable peak of the kernels we use, a little under
// the datasheet's. The bandwidth's triad is our own loop: at 12 bytes per 2 FLOPs even SSE outruns
// the memory.
#include "backend/cpu/cpupeak.h"

#include "backend/cpu/cpuisa.h"
#include "core/errors.h"
#include "io/cachefile.h"
#include "io/jsontext.h"

#include <dnnl.h>
#include <dnnl.hpp>
#include <nlohmann/json.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <vector>

namespace tb {

namespace {

namespace fs = std::filesystem;

// 3 matrices of 192x192 f32 take 432 KiB per thread: inside the L2 of current x86 cores, large
// enough that sgemm's blocking runs at full speed.
constexpr dnnl_dim_t kDim = 192;
// The best of many short trials (about a millisecond each on a current core): a peak, so a
// moment in which another process takes the core must not lower it.
constexpr int kCallsPerTrial = 20;
constexpr int kTrials = 50;

// The ISA oneDNN runs is part of the key: ONEDNN_MAX_CPU_ISA can cap it below the CPU's.
std::string cacheKey(const std::string& cpuModel, int threads) {
    return cpuModel + " / " + cpuLowPrecisionSupport().isa + " / " + std::to_string(threads) +
           " threads";
}

// The cache, or an empty object when it is missing, not a regular file (a FIFO would block)
// or not a JSON object; read with the engine's depth-bounded parser like every JSON we read.
nlohmann::json readCache(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return nlohmann::json::object();
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    nlohmann::json j = tryParseJson(text.str()).value_or(nlohmann::json());
    return j.is_object() ? j : nlohmann::json::object();
}

double secondsSinceEpoch() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

namespace {

// The best GFLOP/s of `threads` threads at once, each calling its own `makeGemm()` (a
// kDim-cubed product, true when it succeeded) inside the parallel region: oneDNN runs each
// serially there, so the figure is all cores computing at once without oneDNN's own threading
// overhead.
double bestGemmRate(int threads, const std::function<std::function<bool()>()>& makeGemm) {
    threads = std::max(1, threads);
    double best = 0.0;
    bool failed = false;
#pragma omp parallel num_threads(threads) reduction(|| : failed)
    {
        // A team of one is not parallel to OpenMP, so oneDNN would thread inside it over every
        // core: one thread is asked of it here (this thread's setting alone).
        omp_set_num_threads(1);
        const std::function<bool()> gemm = makeGemm();
        failed = !gemm(); // warm-up: JIT compilation and caches
        for (int trial = 0; trial < kTrials; ++trial) {
#pragma omp barrier
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < kCallsPerTrial; ++i)
                failed = !gemm() || failed;
#pragma omp barrier
#pragma omp master
            {
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                const double flops = 2.0 * kDim * kDim * kDim * kCallsPerTrial * threads;
                best = std::max(best, flops / s / 1e9);
            }
        }
    }
    return failed ? 0.0 : best;
}

} // namespace

double measureCpuPeakGflops(int threads) {
    const auto n = static_cast<std::size_t>(kDim * kDim);
    const double best = bestGemmRate(threads, [n]() -> std::function<bool()> {
        auto a = std::make_shared<std::vector<float>>(n, 0.5f);
        auto b = std::make_shared<std::vector<float>>(n, 0.25f);
        auto c = std::make_shared<std::vector<float>>(n, 0.0f);
        return [a, b, c] {
            return dnnl_sgemm('N', 'N', kDim, kDim, kDim, 1.0f, a->data(), kDim, b->data(), kDim,
                              0.0f, c->data(), kDim) == dnnl_success;
        };
    });
    if (best <= 0.0)
        throw Error("measuring the CPU peak: oneDNN's sgemm failed");
    return best;
}

double measureCpuBf16PeakGflops(int threads) {
    using dnnl::memory;
    const double best = bestGemmRate(threads, []() -> std::function<bool()> {
        try {
            auto engine = std::make_shared<dnnl::engine>(dnnl::engine::kind::cpu, 0);
            auto stream = std::make_shared<dnnl::stream>(*engine);
            const memory::desc ab({kDim, kDim}, memory::data_type::bf16, memory::format_tag::ab);
            const memory::desc any({kDim, kDim}, memory::data_type::bf16, memory::format_tag::any);
            const memory::desc cd({kDim, kDim}, memory::data_type::f32, memory::format_tag::ab);
            // The weights in the layout oneDNN chooses (VNNI-packed for bf16), as a layer's are
            // after their first reorder: no reorder inside the timed calls.
            const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ab, any, cd), *engine);
            auto matmul = std::make_shared<dnnl::matmul>(pd);
            auto a = std::make_shared<memory>(ab, *engine);
            auto b = std::make_shared<memory>(pd.weights_desc(), *engine);
            auto c = std::make_shared<memory>(cd, *engine);
            // bf16 0.5 and 0.25 (upper halves of the f32 patterns), so no denormals or NaNs.
            std::fill_n(static_cast<uint16_t*>(a->get_data_handle()), kDim * kDim, 0x3f00);
            std::fill_n(static_cast<uint16_t*>(b->get_data_handle()),
                        pd.weights_desc().get_size() / 2, 0x3e80);
            return [=] {
                try {
                    matmul->execute(
                        *stream, {{DNNL_ARG_SRC, *a}, {DNNL_ARG_WEIGHTS, *b}, {DNNL_ARG_DST, *c}});
                    stream->wait();
                    return true;
                } catch (const dnnl::error&) {
                    return false;
                }
            };
        } catch (const dnnl::error&) {
            return [] { return false; };
        }
    });
    if (best <= 0.0)
        throw Error("measuring the CPU's bf16 peak: oneDNN's bf16 matmul failed");
    return best;
}

double measureCpuBandwidthGBs(int threads) {
    threads = std::max(1, threads);
    // 3 x 64 MiB: beyond the last-level cache of any current CPU a 2-to-16-thread job runs on.
    constexpr int64_t kElements = int64_t{16} << 20;
    constexpr int kPasses = 10;
    std::vector<float> a(kElements), b(kElements), c(kElements);
    double best = 0.0;
#pragma omp parallel num_threads(threads)
    {
        // Each thread first touches the pages it then streams (NUMA-local, as STREAM does).
#pragma omp for schedule(static)
        for (int64_t i = 0; i < kElements; ++i) {
            a[i] = 0.0f;
            b[i] = 1.0f;
            c[i] = 2.0f;
        }
        for (int pass = 0; pass < kPasses; ++pass) {
            std::chrono::steady_clock::time_point t0;
#pragma omp barrier
#pragma omp master
            t0 = std::chrono::steady_clock::now();
#pragma omp for schedule(static)
            for (int64_t i = 0; i < kElements; ++i)
                a[i] = b[i] + 3.0f * c[i];
#pragma omp master
            {
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                best = std::max(best, 12.0 * static_cast<double>(kElements) / s / 1e9);
            }
        }
    }
    if (a[kElements / 2] != 7.0f) // keeps the triad from being optimised away
        throw Error("measuring the memory bandwidth: the triad computed a wrong value");
    return best;
}

namespace {

// The cache entry `key` of cachePath, measured again (and stored) when missing, old or below
// `achieved`; the best figure seen is kept.
CpuPeak cachedFigure(const std::string& key, const char* field, const std::string& cachePath,
                     double achieved, const std::function<double()>& measure) {
    nlohmann::json cache = readCache(cachePath);
    const double now = secondsSinceEpoch();
    double best = 0.0;
    if (const auto it = cache.find(key); it != cache.end() && it->is_object()) {
        const double value = it->value(field, 0.0), measuredAt = it->value("measured_at", 0.0);
        const double age = now - measuredAt;
        if (value > 0.0 && age >= 0.0 && age < kCpuPeakMaxAgeSeconds && value >= achieved)
            return {value, false};
        best = std::max(value, 0.0);
    }
    // Measured below what a run achieved: the old figure is the wrong one, whatever its size.
    if (best < achieved)
        best = 0.0;
    const double value = std::max(best, measure());
    cache[key] = {{field, value}, {"measured_at", now}};
    replaceCacheFile(cachePath, cache.dump(1) + "\n");
    return {value, true};
}

} // namespace

CpuPeak cachedCpuPeak(int threads, const std::string& cpuModel, const std::string& cachePath,
                      double achievedGflops) {
    return cachedFigure(cacheKey(cpuModel, threads), "gflops", cachePath, achievedGflops,
                        [&] { return measureCpuPeakGflops(threads); });
}

CpuPeak cachedCpuBf16Peak(int threads, const std::string& cpuModel, const std::string& cachePath) {
    return cachedFigure(cacheKey(cpuModel, threads) + " / bf16", "gflops", cachePath, 0.0,
                        [&] { return measureCpuBf16PeakGflops(threads); });
}

CpuPeak cachedCpuBandwidth(int threads, const std::string& cpuModel, const std::string& cachePath,
                           double achievedGBs) {
    return cachedFigure(cacheKey(cpuModel, threads) + " / memory bandwidth", "gbs", cachePath,
                        achievedGBs, [&] { return measureCpuBandwidthGBs(threads); });
}

} // namespace tb
