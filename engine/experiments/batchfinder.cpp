// The batch-size search and its trial: a short RunSession whose failure kind tells an
// out-of-memory apart from any other error (which ends the search: it is not about size).
#include "experiments/batchfinder.h"

#include "core/errors.h"

namespace tb {

BatchFinderResult searchLargestBatch(const BatchFinderOptions& o,
                                     const std::function<BatchTry(int64_t)>& trial,
                                     std::stop_token stop) {
    BatchFinderResult r;
    const auto attempt = [&](int64_t b) {
        r.tries.push_back(trial(b));
        if (o.onTry)
            o.onTry(r.tries.back());
        return r.tries.back().fits;
    };
    int64_t fits = 0, fails = 0; // the largest that fitted, the smallest that did not
    for (int64_t b = std::max<int64_t>(o.start, 1); b <= o.maxBatch; b *= 2) {
        if (stop.stop_requested()) {
            r.stopped = true;
            return r;
        }
        if (!attempt(b)) {
            fails = b;
            break;
        }
        fits = b;
        if (b > o.maxBatch / 2) // the next doubling would pass the cap
            break;
    }
    if (fails == 0 && fits > 0 && fits < o.maxBatch && !stop.stop_requested()) {
        if (attempt(o.maxBatch))
            fits = o.maxBatch;
        else
            fails = o.maxBatch;
    }
    while (fails > 0 && fits > 0 && fails - fits > 1) {
        if (stop.stop_requested()) {
            r.stopped = true;
            break;
        }
        const int64_t mid = fits + (fails - fits) / 2;
        (attempt(mid) ? fits : fails) = mid;
    }
    if (fits > 0)
        r.largest = fits;
    return r;
}

BatchFinderResult findLargestBatch(const RunConfig& base, const BatchFinderOptions& o,
                                   std::stop_token stop) {
    const auto trial = [&](int64_t batch) {
        RunConfig c = base;
        c.set("batch_size", std::to_string(batch));
        c.set("accumulate_grad_batches", "1");
        c.set("max_steps", std::to_string(o.steps));
        c.set("max_epochs", "0");
        c.set("drop_last", "false");
        c.validate();
        RunSession run(c, RunSessionOptions{}, {});
        const RunFinishedEvent f = run.run(stop);
        BatchTry t;
        t.batch = batch;
        t.peakMemoryBytes = f.summary.peakMemoryBytes;
        if (f.status == RunStatus::Stopped) {
            t.why = "stopped before the try ended"; // neither fits nor fails: the search ends
        } else if (f.status == RunStatus::Failed) {
            if (f.failure.kind != FailureKind::OutOfMemory)
                throw ConfigError("batch_size",
                                  "the run at batch " + std::to_string(batch) +
                                      " failed for another reason than memory: " + f.error);
            t.why = f.error;
        } else if (o.memoryLimitBytes > 0 && t.peakMemoryBytes > o.memoryLimitBytes) {
            t.why = "its peak memory " + formatBytes(t.peakMemoryBytes) + " passed the limit of " +
                    formatBytes(o.memoryLimitBytes);
        } else {
            t.fits = true;
        }
        return t;
    };
    return searchLargestBatch(o, trial, stop);
}

} // namespace tb
