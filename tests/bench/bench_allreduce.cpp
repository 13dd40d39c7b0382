// The all-reduce data-parallel training averages gradients with, over the sizes a gradient
// bucket has (1 to 100 MB), against this machine's memory-copy bandwidth: on one machine the
// ranks exchange through shared memory, so copying is the limit. Run under mpirun:
//   mpirun -np 2 build/<preset>/tests/bench/tb_bench_allreduce
// Rank 0 prints, per size, the median time of an all-reduce, its algorithm bandwidth (bytes /
// time), its bus bandwidth (x 2(n-1)/n: what each rank sends and receives, as nccl-tests
// report it) and a single-threaded memcpy's bandwidth on the same bytes; then one JSON line.
#include "dist/mpicommunicator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace tb;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Repeats `op` for about `budget` seconds (at least 5 times) and returns the median seconds.
template <typename Op> double timeIt(Op op, double budget) {
    std::vector<double> times;
    const auto start = Clock::now();
    while (times.size() < 5 ||
           std::chrono::duration<double>(Clock::now() - start).count() < budget) {
        const auto t0 = Clock::now();
        op();
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return median(times);
}

} // namespace

int main() {
    Communicator& comm = MpiCommunicator::world();
    const int n = comm.size();
    nlohmann::json rows = nlohmann::json::array();
    if (comm.rank() == 0)
        std::printf("%d ranks; per size: the median of 5 to 100 repeats\n%8s %10s %12s %12s "
                    "%12s %8s\n",
                    n, "MB", "ms", "algbw GB/s", "busbw GB/s", "memcpy GB/s", "bus/cp");
    for (const double mb : {1.0, 4.0, 16.0, 25.0, 64.0, 100.0}) {
        const auto count = static_cast<std::size_t>(mb * 1024 * 1024 / sizeof(float));
        std::vector<float> data(count, 1.0f), copy(count);
        comm.allReduceSum(data.data(), count); // first touch and connections
        // Every rank makes the same number of calls: fewer for the larger sizes.
        const int repeats = std::clamp(static_cast<int>(200.0 / mb), 5, 100);
        std::vector<double> times;
        for (int i = 0; i < repeats; ++i) {
            const auto t0 = Clock::now();
            comm.allReduceSum(data.data(), count);
            times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        }
        const double seconds = median(times);
        const double bytes = static_cast<double>(count * sizeof(float));
        const double copySeconds =
            timeIt([&] { std::memcpy(copy.data(), data.data(), count * sizeof(float)); }, 0.3);
        const double algbw = bytes / seconds / 1e9, busbw = algbw * 2.0 * (n - 1) / n;
        const double copybw = bytes / copySeconds / 1e9;
        if (comm.rank() == 0) {
            std::printf("%8.0f %10.3f %12.2f %12.2f %12.2f %8.2f\n", mb, seconds * 1e3, algbw,
                        busbw, copybw, busbw / copybw);
            rows.push_back({{"mb", mb},
                            {"ms", seconds * 1e3},
                            {"algbw_gbs", algbw},
                            {"busbw_gbs", busbw},
                            {"memcpy_gbs", copybw}});
        }
    }
    if (comm.rank() == 0)
        std::printf("%s\n", nlohmann::json{{"ranks", n}, {"sizes", rows}}.dump().c_str());
    return 0;
}
