// describeFailure: the typed errors of core/errors.h mapped onto FailureKind.
#include "train/runfailure.h"

#include "core/errors.h"

namespace tb {

RunFailure describeFailure(const std::exception& error, const RunConfig& config) {
    RunFailure f;
    if (const auto* e = dynamic_cast<const ConfigError*>(&error)) {
        f.kind = FailureKind::Config;
        f.subject = e->field();
    } else if (const auto* d = dynamic_cast<const DatasetError*>(&error)) {
        f.kind = FailureKind::Dataset;
        f.subject = d->file();
    } else if (dynamic_cast<const OutOfMemoryError*>(&error) ||
               dynamic_cast<const std::bad_alloc*>(&error)) {
        f.kind = FailureKind::OutOfMemory;
        // Half the micro-batch, twice the accumulation: the same effective batch, so the
        // optimizer sees the same trajectory while activations take half the memory.
        if (config.batchSize > 1)
            f.retryChanges = {
                {"batch_size", std::to_string(config.batchSize / 2)},
                {"accumulate_grad_batches", std::to_string(config.accumulateGradBatches * 2)}};
    } else if (dynamic_cast<const NonFiniteLossError*>(&error)) {
        f.kind = FailureKind::NonFiniteLoss;
        f.subject = "lr";
    } else if (const auto* dist = dynamic_cast<const DistributedError*>(&error)) {
        f.kind = FailureKind::Distributed;
        if (dist->rank() >= 0)
            f.subject = "rank " + std::to_string(dist->rank());
    } else if (dynamic_cast<const BackendUnavailable*>(&error)) {
        f.kind = FailureKind::Backend;
        f.subject = "device";
    } else {
        f.kind = FailureKind::Internal;
    }
    return f;
}

} // namespace tb
