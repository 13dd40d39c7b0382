// GradientReducer: DistributedDataParallel's gradient averaging. The parameters are packed, in
// the reverse of their forward order (the order backward finishes them), into buckets of about
// ddp.bucket_mb (the first of at most 1 MB, as PyTorch's); as soon as backward has produced every gradient of a bucket, the bucket is
// filled and its all-reduce starts, overlapping the rest of backward. On GPU ranks with NCCL the
// buckets stay on the device and the all-reduce runs on NCCL's stream; otherwise they are host
// memory averaged with MPI_Iallreduce, which backward drives on between layers. finish() waits
// for what is still in flight (the exposed time, the part of the step the overlap did not hide)
// and writes the averages back. Between beginStep() and finish() it expects gradientsReady()
// once per layer.
#pragma once

#include "backend/backend.h"
#include "backend/devicecollectives.h"
#include "dist/communicator.h"
#include "nn/layer.h"

#include <cstddef>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tb {

// The all-reduce time backward did not hide: measured on the host (MPI), or on the GPU between
// two compute-stream events around the wait (NCCL), readable once both have completed.
struct ExposedTime {
    double hostMs = 0.0;
    std::unique_ptr<StreamEvent> waitStart, waitEnd;
};

class GradientReducer {
public:
    // `params` in forward order; bucketBytes 0 puts every gradient in one bucket (no overlap).
    // With `device` (NCCL) the buckets live on the backend's GPU and `comm` is not used.
    GradientReducer(Backend& backend, std::vector<Param*> params, Communicator& comm,
                    DeviceCollectives* device, std::size_t bucketBytes);
    ~GradientReducer();

    // Arms the buckets for this optimizer step's last backward pass.
    void beginStep();
    // Backward has written the final gradients of these parameters (one layer's).
    void gradientsReady(const std::vector<Param*>& params);
    // Waits for every bucket (starting any not started yet: a backward that skipped a layer,
    // or a step whose last backward was not armed) and writes the averaged gradients back.
    ExposedTime finish();

    std::size_t bucketCount() const { return m_buckets.size(); }
    // The parameters of each bucket, by their index in the forward order (for tests).
    std::vector<std::vector<std::size_t>> bucketLayout() const;

private:
    struct Bucket;
    void start(Bucket& bucket);
    void progress();
    ExposedTime waitOnHost();
    ExposedTime waitOnDevice();

    Backend& m_backend;
    Communicator& m_comm;
    DeviceCollectives* m_device;
    std::vector<Param*> m_params;
    std::vector<std::unique_ptr<Bucket>> m_buckets;
    std::unordered_map<const Param*, std::size_t> m_bucketOf;
};

} // namespace tb
