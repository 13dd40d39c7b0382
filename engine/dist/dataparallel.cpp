// DataParallel: tensors cross ranks on the GPU with NCCL, or as plain host floats over MPI (the
// backend's copy() gives them in that layout, from whatever layout or device it keeps them in).
#include "dist/dataparallel.h"

#include <algorithm>
#include <functional>

#include "backend/devices.h"
#include "core/errors.h"
#include "nn/norm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>

namespace tb {

namespace {
// FNV-1a: the same on every machine and build, unlike std::hash.
uint64_t fingerprint(const std::string& text) {
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}
} // namespace

DataParallel::DataParallel(Communicator& comm, const RunConfig& config)
    : m_comm(comm), m_config(config) {}

DataParallel::~DataParallel() {
    if (m_graph)
        m_graph->setBackwardHook({});
    for (BatchNorm2d* bn : m_batchNorms)
        bn->synchronise({});
}

std::string DataParallel::deviceOfThisRank(bool gpuUsable) const {
    const std::string& d = m_config.device;
    if ((d == "auto" || d == "cuda") && gpuUsable)
        return "cuda:" + std::to_string(m_comm.localRank());
    return d;
}

int DataParallel::gpuOfThisRank() const {
    const std::string& d = m_config.device;
    if (d == "auto" || d == "cuda")
        return m_comm.localRank();
    if (d.rfind("cuda:", 0) == 0)
        return std::atoi(d.c_str() + 5);
    return -1;
}

std::string DataParallel::connect(Backend& backend) {
    const bool gpu = backend.device().isCuda();
    if (!gpu && m_config.ddpBackend == "nccl")
        throw ConfigError("ddp.backend", "nccl averages tensors on GPUs, and rank " +
                                             std::to_string(rank()) + " trains on " +
                                             backend.device().toString() + "; use mpi or auto");
    if (!gpu || m_config.ddpBackend == "mpi")
        return gpu ? "gradients are averaged over MPI through host memory (ddp.backend=mpi)"
                   : "gradients are averaged over MPI";
    // Rank 0 makes NCCL's id and hands it, or why it could not, to every rank.
    struct {
        char ok = 0;
        DeviceCollectivesId id;
        char reason[256] = {};
    } start;
    if (rank() == 0) {
        try {
            start.id = newDeviceCollectivesId();
            start.ok = 1;
        } catch (const Error& e) {
            std::strncpy(start.reason, e.what(), sizeof start.reason - 1);
        }
    }
    m_comm.broadcastBytes(&start, sizeof start, 0);
    if (!start.ok) {
        if (m_config.ddpBackend == "nccl")
            throw DistributedError(0, std::string("ddp.backend=nccl: ") + start.reason);
        return std::string("NCCL cannot be used (") + start.reason +
               "): gradients are averaged over MPI through host memory, a copy and a wait per "
               "bucket each step";
    }
    m_device = createDeviceCollectives(backend, start.id, rank(), size(), m_comm.timeout());
    return "gradients are averaged with " + m_device->description() +
           " on the GPUs, overlapping backward";
}

std::string DataParallel::describe(const std::string& device) const {
    const int64_t perRank = m_config.batchSize * m_config.accumulateGradBatches;
    return "data-parallel: rank " + std::to_string(rank()) + " of " + std::to_string(size()) +
           " on " + device + ", an effective batch of " + std::to_string(perRank * size()) + " (" +
           std::to_string(size()) + " ranks x " + std::to_string(m_config.batchSize) + " x " +
           std::to_string(m_config.accumulateGradBatches) + ")" + batchNormNote();
}

std::string DataParallel::batchNormNote() const {
    if (m_batchNorms.empty())
        return {};
    if (m_config.syncBatchnorm)
        return "; batch norm normalises with the statistics of the whole job's batch "
               "(sync_batchnorm)";
    return "; batch norm normalises each rank's batch with its own statistics and rank 0's "
           "running statistics are kept (sync_batchnorm=true uses the whole job's batch)";
}

void DataParallel::checkSameRun(const RunConfig& config, const Graph& graph) {
    nlohmann::json run = config.toJson();
    run.erase("name"); // may carry a rank; nothing of it trains
    const uint64_t mine = fingerprint(run.dump()) ^ (fingerprint(graph.name()) * 31) ^
                          static_cast<uint64_t>(graph.parameterCount());
    const std::vector<uint64_t> all = m_comm.allGather(mine);
    for (std::size_t r = 1; r < all.size(); ++r)
        if (all[r] != all[0])
            throw DistributedError(
                static_cast<int>(r),
                "rank " + std::to_string(r) +
                    " was given another run than rank 0 (a different config or model, " +
                    std::to_string(graph.parameterCount()) +
                    " parameters here): start every rank with the same arguments");
}

void DataParallel::broadcast(Tensor& tensor) {
    if (tensor.dtype() != DType::F32)
        throw DistributedError(-1, "only float32 state can be broadcast");
    if (m_device) {
        m_device->broadcast(tensor, 0);
        return;
    }
    Backend& b = m_graph->backend();
    Tensor host = Tensor::host(tensor.shape(), DType::F32);
    b.copy(tensor, host);
    m_comm.broadcast(host.data<float>(), static_cast<std::size_t>(host.numel()), 0);
    b.copy(host, tensor);
}

void DataParallel::broadcastState(Graph& graph) {
    m_graph = &graph;
    for (const NamedTensor& t : graph.stateDict())
        broadcast(*t.tensor);
    if (m_device)
        m_device->join();
}

void DataParallel::attach(Graph& graph) {
    m_graph = &graph;
    std::set<const Tensor*> values;
    for (Param* p : graph.params())
        values.insert(&p->value);
    m_buffers.clear();
    for (const NamedTensor& t : graph.stateDict())
        if (!values.count(t.tensor))
            m_buffers.push_back(t.tensor);
    const std::size_t bucketBytes = static_cast<std::size_t>(m_config.ddpBucketMb) << 20;
    m_reducer = std::make_unique<GradientReducer>(graph.backend(), graph.params(), m_comm,
                                                  m_device.get(), bucketBytes);
    if (m_config.ddpOverlap)
        graph.setBackwardHook([this](Layer& layer) {
            if (m_armed)
                m_reducer->gradientsReady(layer.params());
        });
    m_batchNorms.clear();
    for (Layer* layer : graph.layers())
        if (auto* bn = dynamic_cast<BatchNorm2d*>(layer))
            m_batchNorms.push_back(bn);
    if (m_config.syncBatchnorm)
        for (BatchNorm2d* bn : m_batchNorms)
            bn->synchronise({rank(), size(), [this](std::vector<double>& sums) {
                                 m_comm.allReduceSum(sums.data(), sums.size());
                             }});
}

void DataParallel::beginLastBackward() {
    m_reducer->beginStep();
    m_armed = true;
}

ExposedTime DataParallel::reduceGradients() {
    if (!m_armed)
        m_reducer->beginStep(); // a short last step of the epoch: nothing started yet
    m_armed = false;
    return m_reducer->finish();
}

void DataParallel::broadcastBuffers() {
    for (Tensor* t : m_buffers)
        broadcast(*t);
    if (m_device && !m_buffers.empty())
        m_device->join();
}

void DataParallel::sum(std::vector<double>& values) {
    m_comm.allReduceSum(values.data(), values.size());
}

std::vector<RankStepTimes> DataParallel::gatherTimes(const RankStepTimes& mine) {
    const std::vector<double> all =
        m_comm.gather({mine.stepMs, mine.dataWaitMs, mine.computeMs, mine.allReduceMs}, 0);
    std::vector<RankStepTimes> out;
    for (std::size_t i = 0; i + 3 < all.size(); i += 4)
        out.push_back({all[i], all[i + 1], all[i + 2], all[i + 3]});
    return out;
}

void DataParallel::gatherSpans(std::vector<ProfileSpan>& spans) {
    const std::vector<uint64_t> counts = m_comm.allGather(spans.size());
    if (std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) != counts.end())
        return; // gather() needs the same count from every rank
    std::vector<double> times;
    times.reserve(2 * spans.size());
    for (ProfileSpan& s : spans) {
        s.rank = rank();
        times.push_back(s.startMs);
        times.push_back(s.durationMs);
    }
    const std::vector<double> all = m_comm.gather(times, 0);
    if (all.size() != times.size() * static_cast<std::size_t>(size()))
        return; // a rank other than 0: the spans are rank 0's to keep
    const std::size_t own = spans.size();
    for (int r = 1; r < size(); ++r)
        for (std::size_t i = 0; i < own; ++i) {
            ProfileSpan s = spans[i];
            s.rank = r;
            s.startMs = all[r * times.size() + 2 * i];
            s.durationMs = all[r * times.size() + 2 * i + 1];
            spans.push_back(std::move(s));
        }
}

} // namespace tb
