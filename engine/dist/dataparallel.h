// DataParallel: what one rank of a DistributedDataParallel run does beyond a plain one, for the
// trainer to call at its few points: check at start that every rank trains the same run,
// broadcast rank 0's weights and buffers, average the gradients (GradientReducer, overlapped
// with backward), broadcast the buffers after each step (batch-norm running statistics, as
// PyTorch's broadcast_buffers), and sum each logged interval's figures over the ranks. With
// sync_batchnorm every batch norm normalises over the whole job's batch (nn/syncbatchnorm).
#pragma once

#include "backend/devicecollectives.h"
#include "dist/communicator.h"
#include "dist/gradientreducer.h"
#include "events/events.h"
#include "events/profilereport.h"
#include "nn/graph.h"
#include "train/runconfig.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

class BatchNorm2d;

class DataParallel {
public:
    DataParallel(Communicator& comm, const RunConfig& config);
    ~DataParallel();

    Communicator& comm() const { return m_comm; }
    int rank() const { return m_comm.rank(); }
    int size() const { return m_comm.size(); }

    // The device this rank trains on: config's, with "auto" and "cuda" meaning the GPU of the
    // rank's local rank (torchrun's LOCAL_RANK) when a GPU is usable.
    std::string deviceOfThisRank(bool gpuUsable) const;
    // The GPU this rank would train on, known without any CUDA call (the local rank, or the
    // index config names), or -1 for a CPU rank: the probe opens its context there alone.
    int gpuOfThisRank() const;
    // Chooses what averages the gradients (ddp.backend): NCCL when the rank trains on a GPU
    // and auto or nccl asks for it, else MPI through host memory. Collective. Throws
    // DistributedError when nccl was asked for and cannot be used. Returns a line for the log.
    std::string connect(Backend& backend);
    // "data-parallel: rank 1 of 2 on cpu, an effective batch of 128 (2 ranks x 64 x 1), ...".
    std::string describe(const std::string& device) const;
    // Throws DistributedError naming the first rank whose config or model differs from rank
    // 0's: every rank must be given the same run.
    void checkSameRun(const RunConfig& config, const Graph& graph);
    // Rank 0's parameters and buffers on every rank (at start, and after a resume).
    void broadcastState(Graph& graph);
    // Hooks the gradient buckets into the graph's backward pass, and with sync_batchnorm the
    // ranks into every batch norm.
    void attach(Graph& graph);
    // The next backward pass is the last of this optimizer step: its gradients are reduced
    // as they are produced (the others accumulate locally, as under no_sync()).
    void beginLastBackward();
    // Averages the gradients over the ranks; returns the time backward did not hide.
    ExposedTime reduceGradients();
    // Rank 0's buffers (batch-norm running statistics) to every rank, after an optimizer step.
    void broadcastBuffers();
    // Sums the values over the ranks, in place.
    void sum(std::vector<double>& values);
    // Every rank's times to rank 0, in rank order; empty on the other ranks.
    std::vector<RankStepTimes> gatherTimes(const RankStepTimes& mine);
    // A profile's spans of every rank to rank 0, appended to its own (each span's rank set;
    // times from each rank's own first profiled step). Every rank profiles the same steps of
    // the same model, so their spans differ only in times; ranks whose spans do not line up
    // leave rank 0's alone. Collective.
    void gatherSpans(std::vector<ProfileSpan>& spans);

private:
    void broadcast(Tensor& tensor);
    std::string batchNormNote() const;

    Communicator& m_comm;
    const RunConfig& m_config;
    std::unique_ptr<DeviceCollectives> m_device; // NCCL, when the gradients stay on the GPU
    Graph* m_graph = nullptr;
    std::unique_ptr<GradientReducer> m_reducer;
    std::vector<Tensor*> m_buffers; // the graph's state that is not a parameter
    std::vector<BatchNorm2d*> m_batchNorms;
    bool m_armed = false;
};

} // namespace tb
