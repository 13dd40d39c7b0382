// CpuBackend: memory, copies, events, casts and the thread pool setup.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpuconv.h"
#include "backend/cpu/cpuisa.h"
#include "backend/cpu/cpulayernorm.h"
#include "backend/cpu/cpulayout.h"
#include "backend/cpu/cpumatmul.h"
#include "backend/cpu/elementaccess.h"
#include "backend/cpu/multiversion.h"
#include "backend/cpu/parallel.h"
#include "core/errors.h"
#include "core/floatenv.h"
#include "core/half.h"

#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include <unistd.h>

namespace tb {

namespace {

class CpuEvent final : public StreamEvent {
public:
    CpuEvent() : m_time(std::chrono::steady_clock::now()) {}
    bool completed() override { return true; }
    void wait() override {}
    float elapsedMs(const StreamEvent& earlier) override {
        const auto& e = static_cast<const CpuEvent&>(earlier);
        return std::chrono::duration<float, std::milli>(m_time - e.m_time).count();
    }

private:
    std::chrono::steady_clock::time_point m_time;
};

// oneDNN's kernels split work for the team size they ask OpenMP for and meet at barriers, so
// they hang if the team comes back smaller: never ask for more than OMP_THREAD_LIMIT allows,
// and no dynamic team sizes.
int computeThreads(int requested) {
    const int wanted =
        requested > 0 ? requested : static_cast<int>(std::thread::hardware_concurrency());
    omp_set_dynamic(0);
    return std::max(1, std::min(wanted, omp_get_thread_limit()));
}

// bf16 <-> f32, the conversions mixed precision runs most.
template <typename From, typename To>
TB_MULTIVERSION void convertChunk(const From* s, To* d, int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i)
        storeValue(d[i], loadValue(s[i]));
}

} // namespace

CpuBackend::CpuBackend(int threads)
    : m_threads(computeThreads(threads)), m_bf16Native(cpuLowPrecisionSupport().bf16Native),
      m_layouts(std::make_unique<CpuLayoutConverter>(dnnl::engine(dnnl::engine::kind::cpu, 0),
                                                     &m_reorders.activations)),
      m_conv(std::make_unique<CpuConvCache>(dnnl::engine(dnnl::engine::kind::cpu, 0), &m_reorders)),
      m_matmul(std::make_unique<CpuMatmulCache>()),
      m_layerNorm(std::make_unique<CpuLayerNormCache>()),
      m_inUse(std::make_shared<std::atomic<int64_t>>(0)),
      m_peak(std::make_shared<std::atomic<int64_t>>(0)) {
    // One pool: oneDNN runs on OpenMP, and our loops use the same pool.
    omp_set_num_threads(m_threads);
    m_scratch.resize(4);
}

CpuBackend::~CpuBackend() = default;

std::string CpuBackend::description() const {
    const dnnl_version_t* v = dnnl_version();
    return "cpu: oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch) + ", " + std::to_string(m_threads) + " threads";
}

Tensor CpuBackend::empty(const Shape& shape, DType dtype) {
    const std::size_t bytes = static_cast<std::size_t>(shape.numel()) * dtypeSize(dtype);
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (!p) {
        // Free pages, not counting reclaimable cache: a lower bound of what could be had.
        const auto pages = [](int name) {
            const long n = sysconf(name);
            return n > 0 ? static_cast<uint64_t>(n) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE))
                         : uint64_t{0};
        };
        throw OutOfMemoryError("cpu", bytes, pages(_SC_AVPHYS_PAGES), pages(_SC_PHYS_PAGES),
                               "Lower batch_size (with accumulate_grad_batches to keep the "
                               "effective batch).");
    }
    const int64_t inUse =
        m_inUse->fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    int64_t peak = m_peak->load();
    while (inUse > peak && !m_peak->compare_exchange_weak(peak, inUse)) {
    }
    auto buffer = std::make_shared<Buffer>(p, bytes, Device::cpu(), false,
                                           [inUseCounter = m_inUse](void* q, std::size_t n) {
                                               inUseCounter->fetch_sub(static_cast<int64_t>(n));
                                               std::free(q);
                                           });
    buffer->allowBackendLayouts();
    return Tensor(std::move(buffer), shape, dtype);
}

Tensor CpuBackend::emptyHost(const Shape& shape, DType dtype, bool /*pinned*/) {
    // Host memory is the CPU backend's device memory: page-locking would buy nothing.
    return Tensor::host(shape, dtype);
}

void CpuBackend::copy(const Tensor& src, Tensor& dst) {
    if (src.dtype() != dst.dtype() || src.numel() != dst.numel())
        throw Error("copy: tensors differ in dtype or size (" + src.shape().toString() + " " +
                    std::string(dtypeName(src.dtype())) + " to " + dst.shape().toString() + " " +
                    std::string(dtypeName(dst.dtype())) + ")");
    const int layout = layoutOf(src);
    // A blocked activation keeps its layout into our own buffer of the same shape (the
    // residual add's backward); anything else receives plain values.
    if (layout != 0 && (!(src.shape() == dst.shape()) || !mayBlock(dst))) {
        toPlain(src, dst);
        return;
    }
    if (src.raw() != dst.raw())
        std::memcpy(dst.raw(), src.raw(), src.bytes());
    setLayout(dst, layout);
}

void CpuBackend::fill(Tensor& t, float value) {
    const int64_t n = t.numel();
    setLayout(t, 0);
    switch (t.dtype()) {
    case DType::F32: {
        if (value == 0.0f) { // zeroing gradients: one memset beats waking the pool
            std::memset(t.raw(), 0, t.bytes());
            break;
        }
        float* p = t.data<float>();
        parallelFor(n, [&](int64_t i) { p[i] = value; });
        break;
    }
    case DType::F16:
    case DType::BF16: {
        const uint16_t h = t.dtype() == DType::F16 ? floatToHalf(value) : floatToBf16(value);
        uint16_t* p = t.data<uint16_t>();
        parallelFor(n, [&](int64_t i) { p[i] = h; });
        break;
    }
    case DType::I32: {
        int32_t* p = t.data<int32_t>();
        const auto v = static_cast<int32_t>(value);
        for (int64_t i = 0; i < n; ++i)
            p[i] = v;
        break;
    }
    case DType::U8:
        std::memset(t.raw(), static_cast<int>(value), t.bytes());
        break;
    }
}

std::unique_ptr<StreamEvent> CpuBackend::recordEvent() {
    return std::make_unique<CpuEvent>();
}

MemoryStats CpuBackend::memoryStats() const {
    MemoryStats s;
    s.inUse = static_cast<uint64_t>(m_inUse->load());
    s.reserved = s.inUse;
    s.peakInUse = static_cast<uint64_t>(m_peak->load());
    return s;
}

void CpuBackend::resetPeakMemory() {
    m_peak->store(m_inUse->load());
}

void CpuBackend::releaseCachedMemory() {
    m_scratch.assign(m_scratch.size(), Tensor());
    m_layouts->clear();
    m_conv->clear();
    m_matmul->clear();
}

void CpuBackend::setFlushDenormals(bool on) {
    // One team of the size every later region uses: OpenMP reuses these same threads.
#pragma omp parallel num_threads(m_threads)
    tb::setFlushDenormals(on);
}

void CpuBackend::setMemoryFormat(MemoryFormat format) {
    m_conv->setChannelsLast(format == MemoryFormat::ChannelsLast);
}

void CpuBackend::setConvAlgorithm(ConvAlgorithm algorithm) {
    m_conv->setWinograd(algorithm == ConvAlgorithm::Auto);
}

ConvAlgorithmCounts CpuBackend::convolutionAlgorithms() const {
    return m_conv->algorithmCounts();
}

std::string CpuBackend::convolutionLayouts() const {
    std::string names;
    for (int layout : {kChannelsLast, 16, 8, 0})
        if (m_convLayoutsSeen & (1u << layoutBit(layout)))
            names += (names.empty() ? "" : ",") + layoutName(layout);
    return names;
}

void CpuBackend::cast(const Tensor& src, Tensor& dst) {
    if (src.numel() != dst.numel())
        throw Error("cast: sizes differ");
    if (src.dtype() == dst.dtype())
        copy(src, dst);
    else
        toPlain(src, dst); // a blocked source: one reorder converts layout and type
}

void CpuBackend::convertElements(const Tensor& src, Tensor& dst) {
    const int64_t n = src.numel();
    if (src.dtype() == dst.dtype()) {
        if (src.raw() != dst.raw())
            std::memcpy(dst.raw(), src.raw(), src.bytes());
    } else if (src.dtype() == DType::F32 && dst.dtype() == DType::F16) {
        const float* s = src.data<float>();
        uint16_t* d = dst.data<uint16_t>();
        parallelFor(n, [&](int64_t i) { d[i] = floatToHalf(s[i]); });
    } else if (src.dtype() == DType::F32 && dst.dtype() == DType::BF16) {
        const float* s = src.data<float>();
        uint16_t* d = dst.data<uint16_t>();
        parallelChunks(n, [=](int64_t begin, int64_t end) { convertChunk(s, d, begin, end); });
    } else if (src.dtype() == DType::F16 && dst.dtype() == DType::F32) {
        const uint16_t* s = src.data<uint16_t>();
        float* d = dst.data<float>();
        parallelFor(n, [&](int64_t i) { d[i] = halfToFloat(s[i]); });
    } else if (src.dtype() == DType::BF16 && dst.dtype() == DType::F32) {
        const uint16_t* s = src.data<uint16_t>();
        float* d = dst.data<float>();
        parallelChunks(n, [=](int64_t begin, int64_t end) { convertChunk(s, d, begin, end); });
    } else {
        throw Error("cast: unsupported " + std::string(dtypeName(src.dtype())) + " to " +
                    std::string(dtypeName(dst.dtype())));
    }
}

Tensor CpuBackend::scratch(const Shape& shape, int slot) {
    Tensor& s = m_scratch[static_cast<std::size_t>(slot)];
    if (!s.defined() || s.buffer()->bytes() < static_cast<std::size_t>(shape.numel()) * 4)
        s = empty(shape, DType::F32);
    return Tensor(s.buffer(), shape, DType::F32);
}

Tensor CpuBackend::asF32(const Tensor& t, int slot) {
    if (t.dtype() == DType::F32 && layoutOf(t) == 0)
        return t;
    Tensor f = scratch(t.shape(), slot);
    toPlain(t, f);
    return f;
}

Tensor CpuBackend::widened(const Tensor& t, int slot) {
    if (t.dtype() == DType::F32)
        return t;
    Tensor f = scratch(t.shape(), slot);
    convertElements(t, f);
    setLayout(f, layoutOf(t));
    return f;
}

Tensor CpuBackend::asPlain(const Tensor& t, int slot) {
    if (layoutOf(t) == 0)
        return t;
    Tensor p(scratch(t.shape(), slot).buffer(), t.shape(), t.dtype());
    toPlain(t, p);
    return p;
}

void CpuBackend::toPlain(const Tensor& src, Tensor& dst) {
    if (layoutOf(src) == 0)
        convertElements(src, dst);
    else
        m_layouts->toPlain(src.raw(), dst.raw(), src.shape(), src.dtype(), dst.dtype(),
                           layoutOf(src));
    setLayout(dst, 0);
}

Tensor CpuBackend::f32Target(const Tensor& dst, int slot) {
    Tensor target = dst.dtype() == DType::F32 ? dst : scratch(dst.shape(), slot);
    setLayout(target, 0);
    return target;
}

void CpuBackend::storeF32(const Tensor& f32, Tensor& dst) {
    if (dst.dtype() != DType::F32)
        convertElements(f32, dst);
    setLayout(dst, layoutOf(f32));
}

bool CpuBackend::mayBlock(const Tensor& t) {
    return t.buffer()->backendLayoutsAllowed() &&
           (t.dtype() == DType::F32 || t.dtype() == DType::BF16);
}

std::unique_ptr<Backend> createCpuBackend(int threads) {
    return std::make_unique<CpuBackend>(threads);
}

} // namespace tb
