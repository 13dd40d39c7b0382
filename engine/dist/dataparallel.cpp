// DataParallel: tensors cross ranks as plain host floats (the backend's copy() gives them in
// that layout, from whatever layout or device it keeps them in).
#include "dist/dataparallel.h"

#include "core/errors.h"

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
}

std::string DataParallel::deviceOfThisRank(bool gpuUsable) const {
    const std::string& d = m_config.device;
    if ((d == "auto" || d == "cuda") && gpuUsable)
        return "cuda:" + std::to_string(m_comm.localRank());
    return d;
}

std::string DataParallel::describe(const std::string& device) const {
    const int64_t perRank = m_config.batchSize * m_config.accumulateGradBatches;
    return "data-parallel: rank " + std::to_string(rank()) + " of " + std::to_string(size()) +
           " on " + device + ", an effective batch of " + std::to_string(perRank * size()) + " (" +
           std::to_string(size()) + " ranks x " + std::to_string(m_config.batchSize) + " x " +
           std::to_string(m_config.accumulateGradBatches) + ")";
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
    m_reducer =
        std::make_unique<GradientReducer>(graph.backend(), graph.params(), m_comm, bucketBytes);
    if (m_config.ddpOverlap)
        graph.setBackwardHook([this](Layer& layer) {
            if (m_armed)
                m_reducer->gradientsReady(layer.params());
        });
}

void DataParallel::beginLastBackward() {
    m_reducer->beginStep();
    m_armed = true;
}

double DataParallel::reduceGradients() {
    if (!m_armed)
        m_reducer->beginStep(); // a short last step of the epoch: nothing started yet
    m_armed = false;
    return m_reducer->finish();
}

void DataParallel::broadcastBuffers() {
    for (Tensor* t : m_buffers)
        broadcast(*t);
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

} // namespace tb
