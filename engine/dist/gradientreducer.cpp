// GradientReducer: each bucket is one float buffer, on the GPU for NCCL, else in host memory; the
// gradients are copied in (plain layout, whatever layout the backend keeps them in) and back
// after the average.
#include "dist/gradientreducer.h"

#include <algorithm>
#include <chrono>

namespace tb {

struct GradientReducer::Bucket {
    std::vector<std::size_t> params; // indices into m_params
    std::vector<int64_t> offsets;    // of each parameter's gradient in `data`, in floats
    Tensor data;                     // f32, on the device for NCCL, else on the host
    std::size_t ready = 0;           // gradients of this pass written so far
    std::unique_ptr<Communicator::Request> inFlight;
    bool started = false;
};

GradientReducer::GradientReducer(Backend& backend, std::vector<Param*> params, Communicator& comm,
                                 DeviceCollectives* device, std::size_t bucketBytes)
    : m_backend(backend), m_comm(comm), m_device(device), m_params(std::move(params)) {
    std::vector<std::size_t> current;
    int64_t floats = 0;
    const auto close = [&] {
        if (current.empty())
            return;
        auto b = std::make_unique<Bucket>();
        b->params = current;
        int64_t offset = 0;
        for (std::size_t i : current) {
            b->offsets.push_back(offset);
            offset += m_params[i]->grad.numel();
        }
        b->data =
            m_device ? m_backend.empty({offset}, DType::F32) : Tensor::host({offset}, DType::F32);
        for (std::size_t i : current)
            m_bucketOf[m_params[i]] = m_buckets.size();
        m_buckets.push_back(std::move(b));
        current.clear();
        floats = 0;
    };
    // As PyTorch's DDP, the first bucket (the last layers, which backward finishes first) holds
    // at most 1 MB, so the first all-reduce starts early in backward rather than after most of
    // the gradients; the others hold up to bucketBytes.
    constexpr std::size_t kFirstBucketBytes = std::size_t{1} << 20;
    for (std::size_t k = m_params.size(); k-- > 0;) {
        const int64_t n = m_params[k]->grad.numel();
        const std::size_t cap =
            m_buckets.empty() ? std::min(bucketBytes, kFirstBucketBytes) : bucketBytes;
        if (bucketBytes > 0 && !current.empty() &&
            static_cast<std::size_t>(floats + n) * sizeof(float) > cap)
            close();
        current.push_back(k);
        floats += n;
    }
    close();
}

GradientReducer::~GradientReducer() = default;

std::vector<std::vector<std::size_t>> GradientReducer::bucketLayout() const {
    std::vector<std::vector<std::size_t>> out;
    for (const auto& b : m_buckets)
        out.push_back(b->params);
    return out;
}

void GradientReducer::beginStep() {
    for (auto& b : m_buckets) {
        b->ready = 0;
        b->started = false;
        b->inFlight.reset();
    }
}

void GradientReducer::start(Bucket& b) {
    for (std::size_t j = 0; j < b.params.size(); ++j) {
        const Tensor& grad = m_params[b.params[j]]->grad;
        Tensor slot(b.data.buffer(), grad.shape(), DType::F32,
                    static_cast<std::size_t>(b.offsets[j]) * sizeof(float));
        m_backend.copy(grad, slot); // in the plain layout; to the host, it waits for the device
    }
    if (m_device)
        m_device->allReduceAverage(b.data);
    else
        b.inFlight = m_comm.allReduceSumAsync(b.data.data<float>(),
                                              static_cast<std::size_t>(b.data.numel()));
    b.started = true;
}

void GradientReducer::progress() {
    for (auto& b : m_buckets)
        if (b->inFlight)
            b->inFlight->test();
}

void GradientReducer::gradientsReady(const std::vector<Param*>& params) {
    for (const Param* p : params) {
        const auto it = m_bucketOf.find(p);
        if (it == m_bucketOf.end())
            continue;
        Bucket& b = *m_buckets[it->second];
        if (++b.ready == b.params.size() && !b.started)
            start(b);
    }
    progress();
}

ExposedTime GradientReducer::finish() {
    // Buckets start in the order backward completes them; the rest go now, in bucket order,
    // which every rank shares, so the collectives match.
    for (auto& b : m_buckets)
        if (!b->started)
            start(*b);
    ExposedTime exposed = m_device ? waitOnDevice() : waitOnHost();
    for (auto& b : m_buckets) {
        for (std::size_t j = 0; j < b->params.size(); ++j) {
            Tensor& grad = m_params[b->params[j]]->grad;
            const Tensor slot(b->data.buffer(), grad.shape(), DType::F32,
                              static_cast<std::size_t>(b->offsets[j]) * sizeof(float));
            m_backend.copy(slot, grad);
        }
        b->inFlight.reset();
    }
    return exposed;
}

ExposedTime GradientReducer::waitOnHost() {
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& b : m_buckets)
        b->inFlight->wait();
    ExposedTime exposed;
    exposed.hostMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const float scale = 1.0f / static_cast<float>(m_comm.size());
    for (auto& b : m_buckets) {
        float* v = b->data.data<float>();
        const int64_t n = b->data.numel();
        for (int64_t i = 0; i < n; ++i)
            v[i] *= scale;
    }
    return exposed;
}

ExposedTime GradientReducer::waitOnDevice() {
    // The compute stream waits for NCCL's; the host does not (ncclAvg already divided).
    ExposedTime exposed;
    exposed.waitStart = m_backend.recordEvent();
    m_device->join();
    exposed.waitEnd = m_backend.recordEvent();
    return exposed;
}

} // namespace tb
