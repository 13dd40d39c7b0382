// CudaBackend: construction, memory, copies, streams and events. The ops live in gemm.cpp,
// conv.cpp, batchnorm.cpp and ops.cpp.
#include "cudabackend.h"

#include "cudacheck.h"
#include "kernels.h"

#include "core/half.h"

#include <cstring>
#include <optional>

namespace tb::cuda {

namespace {

// cuBLAS's recommended workspace for Hopper; given from our allocator so cuBLAS never mallocs.
constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

void fillHost(Tensor& t, float value) {
    const int64_t n = t.numel();
    switch (t.dtype()) {
    case DType::F32:
        for (int64_t i = 0; i < n; ++i)
            t.data<float>()[i] = value;
        break;
    case DType::F16:
    case DType::BF16: {
        const uint16_t bits = t.dtype() == DType::F16 ? floatToHalf(value) : floatToBf16(value);
        for (int64_t i = 0; i < n; ++i)
            t.data<uint16_t>()[i] = bits;
        break;
    }
    case DType::I32:
        for (int64_t i = 0; i < n; ++i)
            t.data<int32_t>()[i] = static_cast<int32_t>(value);
        break;
    case DType::U8: // through int, as the CPU backend and the fill kernel (no UB outside 0..255)
        std::memset(t.raw(), static_cast<int>(value), static_cast<std::size_t>(n));
        break;
    }
}

} // namespace

std::size_t ConvKeyHash::operator()(const ConvKey& k) const {
    const ConvDesc& d = k.desc;
    std::size_t h = 1469598103934665603ull;
    for (int64_t v : {d.n, d.c, d.h, d.w, d.k, d.r, d.s, d.stride, d.pad, d.groups, d.dilation,
                      static_cast<int64_t>(k.dtype), static_cast<int64_t>(k.deterministic)})
        h = (h ^ static_cast<std::size_t>(v)) * 1099511628211ull;
    return h;
}

CudaBackend::CudaBackend(int index) : m_index(index) {
    DeviceScope scope(index);
    cudaDeviceProp prop{};
    TB_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    m_name = prop.name;
    TB_CUDA_CHECK(cudaDeviceGetAttribute(&m_smCount, cudaDevAttrMultiProcessorCount, index));
    m_label = "cuda:" + std::to_string(index) + " (" + m_name + ")";
    m_streams = std::make_shared<Streams>(index);
    m_allocator = std::make_shared<DeviceAllocator>(index, m_label);
    m_pinned = std::make_shared<PinnedHostPool>(index);
    try {
        TB_CUDNN_CHECK(cudnnCreate(&m_cudnn));
        TB_CUDNN_CHECK(cudnnSetStream(m_cudnn, stream()));
        TB_CUBLAS_CHECK(cublasCreate(&m_cublas));
        TB_CUBLAS_CHECK(cublasSetStream(m_cublas, stream()));
        // Default math: CUBLAS_COMPUTE_32F stays true f32 (no TF32), so f32 matches the CPU.
        TB_CUBLAS_CHECK(cublasSetMathMode(m_cublas, CUBLAS_DEFAULT_MATH));
        m_cublasWorkspace = empty(Shape{static_cast<int64_t>(kCublasWorkspaceBytes)}, DType::U8);
        TB_CUBLAS_CHECK(
            cublasSetWorkspace(m_cublas, m_cublasWorkspace.raw(), m_cublasWorkspace.bytes()));
    } catch (...) {
        // No destructor runs for a half-built backend: the handles would leak (e.g. an OOM here).
        if (m_cublas)
            (void)cublasDestroy(m_cublas);
        if (m_cudnn)
            (void)cudnnDestroy(m_cudnn);
        throw;
    }
}

CudaBackend::~CudaBackend() {
    // The scope covers the handles' destruction too: the last owner may be another thread, with
    // another device current.
    std::optional<DeviceScope> scope;
    try {
        scope.emplace(m_index);
        synchronize();
    } catch (...) { // never throw from a destructor; the device may be in an error state
    }
    for (const PendingCopy& p : m_pendingCopies)
        (void)cudaEventDestroy(p.done);
    m_pendingCopies.clear();
    for (cudaEvent_t e : m_spareEvents)
        (void)cudaEventDestroy(e);
    m_spareEvents.clear();
    if (m_cublas)
        (void)cublasDestroy(m_cublas);
    if (m_cudnn)
        (void)cudnnDestroy(m_cudnn);
    m_convPlans.clear();
    m_workspace = Tensor();
    m_cublasWorkspace = Tensor();
}

void CudaBackend::setDeterministic(bool on) {
    m_deterministic = on;
}

std::string CudaBackend::description() const {
    int runtime = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    const std::size_t cudnn = cudnnGetVersion();
    return "cuda:" + std::to_string(m_index) + ": " + m_name + ", CUDA runtime " +
           std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) + ", cuDNN " +
           std::to_string(cudnn / 10000) + "." + std::to_string(cudnn / 100 % 100) + "." +
           std::to_string(cudnn % 100) + (m_deterministic ? ", deterministic" : "");
}

void CudaBackend::requireDevice(const Tensor& t, const char* op) const {
    if (!t.defined() || t.device() != device())
        throw Error(std::string(op) + ": expected a tensor on " + device().toString() +
                    (t.defined() ? ", got one on " + t.device().toString() : ", got none"));
}

Tensor CudaBackend::empty(const Shape& shape, DType dtype) {
    const std::size_t bytes = static_cast<std::size_t>(shape.numel()) * dtypeSize(dtype);
    std::size_t granted = 0;
    void* ptr = m_allocator->allocate(bytes, &granted);
    auto buffer = std::make_shared<Buffer>(
        ptr, bytes, device(), false,
        [allocator = m_allocator](void* p, std::size_t) { allocator->release(p); });
    return Tensor(std::move(buffer), shape, dtype);
}

Tensor CudaBackend::emptyHost(const Shape& shape, DType dtype, bool pinned) {
    if (!pinned)
        return Tensor::host(shape, dtype);
    const std::size_t bytes = static_cast<std::size_t>(shape.numel()) * dtypeSize(dtype);
    std::size_t granted = 0;
    void* ptr = m_pinned->allocate(bytes, &granted);
    if (!ptr) // the system would not pin more: pageable memory still works, just synchronously
        return Tensor::host(shape, dtype);
    auto buffer =
        std::make_shared<Buffer>(ptr, bytes, Device::cpu(), true,
                                 [pool = m_pinned](void* p, std::size_t) { pool->release(p); });
    return Tensor(std::move(buffer), shape, dtype);
}

void CudaBackend::copy(const Tensor& src, Tensor& dst) {
    if (!src.defined() || !dst.defined())
        throw Error("copy: undefined tensor");
    if (src.dtype() != dst.dtype() || src.numel() != dst.numel())
        throw Error("copy: needs equal dtype and element count (" + src.shape().toString() + " " +
                    std::string(dtypeName(src.dtype())) + " to " + dst.shape().toString() + " " +
                    std::string(dtypeName(dst.dtype())) + ")");
    const std::size_t bytes = src.bytes();
    // Same memory (a view onto itself): nothing to do, as on the CPU (memcpy onto itself is UB).
    if (bytes == 0 || src.raw() == dst.raw())
        return;
    const bool fromDevice = src.device().isCuda();
    const bool toDevice = dst.device().isCuda();
    if (!fromDevice && !toDevice) {
        std::memcpy(dst.raw(), src.raw(), bytes);
        return;
    }
    DeviceScope scope(m_index);
    if (!fromDevice && src.pinned()) {
        retireCopies();
        // Asynchronous: the copy stream first waits for compute work issued so far (it may still
        // read dst's memory), and later compute waits for the copy.
        m_streams->copyAfterCompute();
        TB_CUDA_CHECK(cudaMemcpyAsync(dst.raw(), src.raw(), bytes, cudaMemcpyHostToDevice,
                                      m_streams->copy()));
        m_streams->computeAfterCopy();
        holdUntilCopied(src.buffer());
        return;
    }
    // Pageable H2D (returns once the source is staged), D2D and D2H, in compute-stream order.
    TB_CUDA_CHECK(cudaMemcpyAsync(dst.raw(), src.raw(), bytes, cudaMemcpyDefault, stream()));
    if (!toDevice)
        TB_CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void CudaBackend::copyToDevice(const Tensor& src, Tensor& dst, StreamEvent* reusable) {
    if (!reusable || !src.defined() || !dst.defined() || src.device().isCuda() ||
        !dst.device().isCuda() || !src.pinned() || src.dtype() != dst.dtype() ||
        src.numel() != dst.numel()) {
        copy(src, dst); // waits for all compute, or is synchronous, or reports the mismatch
        return;
    }
    const auto* free = dynamic_cast<const CudaStreamEvent*>(reusable);
    if (!free)
        throw Error("copyToDevice: the event does not come from the CUDA backend");
    if (src.bytes() == 0)
        return;
    DeviceScope scope(m_index);
    retireCopies();
    // Batch N+1 is copied while batch N computes: only the compute that read dst last must be
    // done. Later compute waits for the copy.
    m_streams->copyAfter(free->event());
    TB_CUDA_CHECK(cudaMemcpyAsync(dst.raw(), src.raw(), src.bytes(), cudaMemcpyHostToDevice,
                                  m_streams->copy()));
    m_streams->computeAfterCopy();
    holdUntilCopied(src.buffer());
}

void CudaBackend::fill(Tensor& t, float value) {
    if (!t.device().isCuda()) {
        synchronize(); // the host memory may be the source of a copy in flight
        fillHost(t, value);
        return;
    }
    requireDevice(t, "fill");
    DeviceScope scope(m_index);
    launchFill(t.raw(), t.dtype(), t.numel(), value, stream());
}

void CudaBackend::synchronize() {
    DeviceScope scope(m_index);
    TB_CUDA_CHECK(cudaStreamSynchronize(m_streams->copy()));
    TB_CUDA_CHECK(cudaStreamSynchronize(m_streams->compute()));
    retireCopies();
}

void CudaBackend::holdUntilCopied(std::shared_ptr<Buffer> source) {
    cudaEvent_t done = nullptr;
    if (!m_spareEvents.empty()) {
        done = m_spareEvents.back();
        m_spareEvents.pop_back();
    } else if (cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess) {
        done = nullptr;
    }
    if (!done || cudaEventRecord(done, m_streams->copy()) != cudaSuccess) {
        // Cannot track the copy: wait for it instead, so the caller may reuse the buffer.
        (void)cudaGetLastError();
        if (done)
            (void)cudaEventDestroy(done);
        TB_CUDA_CHECK(cudaStreamSynchronize(m_streams->copy()));
        return;
    }
    m_pendingCopies.push_back({done, std::move(source)});
}

void CudaBackend::retireCopies() {
    // Copy-stream events complete in order, so the oldest decides.
    while (!m_pendingCopies.empty()) {
        const cudaEvent_t done = m_pendingCopies.front().done;
        const cudaError_t status = cudaEventQuery(done);
        if (status == cudaErrorNotReady) {
            (void)cudaGetLastError();
            return;
        }
        if (status != cudaSuccess) // the stream failed: nothing reads the buffer any more
            (void)cudaGetLastError();
        m_spareEvents.push_back(done);
        m_pendingCopies.pop_front(); // may hand a batch buffer back to its pool
    }
}

std::unique_ptr<StreamEvent> CudaBackend::recordEvent() {
    DeviceScope scope(m_index);
    return std::make_unique<CudaStreamEvent>(stream());
}

MemoryStats CudaBackend::memoryStats() const {
    return m_allocator->stats();
}

void CudaBackend::resetPeakMemory() {
    m_allocator->resetPeak();
}

void CudaBackend::releaseCachedMemory() {
    DeviceScope scope(m_index);
    m_workspace = Tensor(); // regrows on demand
    m_allocator->releaseCached();
    m_pinned->releaseCached();
}

void CudaBackend::withOomRetry(const std::function<void()>& call) {
    try {
        call();
        return;
    } catch (const CudaAllocFailed&) {
        // A library's failed cudaMalloc may leave the runtime's last error set, which the next
        // TB_KERNEL_CHECK would otherwise report against an innocent kernel.
        (void)cudaGetLastError();
        m_allocator->releaseCached();
    }
    try {
        call();
    } catch (const CudaAllocFailed& e) {
        (void)cudaGetLastError();
        // What the library wanted is not reported; the message keeps the library's words.
        throw OutOfMemoryError(m_label + " (" + e.what() + ")", 0, m_allocator->stats().deviceFree,
                               m_allocator->stats().deviceTotal,
                               m_allocator->outOfMemory(0).advice());
    }
}

void* CudaBackend::workspace(std::size_t bytes) {
    if (bytes == 0)
        return nullptr;
    if (!m_workspace.defined() || m_workspace.bytes() < bytes) {
        m_workspace = Tensor(); // back to the cache first, so a grow can reuse it
        m_workspace = empty(Shape{static_cast<int64_t>(bytes)}, DType::U8);
    }
    return m_workspace.raw();
}

Tensor CudaBackend::weightsAs(const Tensor& w, DType dtype) {
    if (w.dtype() == dtype)
        return w;
    Tensor cast = empty(w.shape(), dtype);
    launchCast(w.raw(), w.dtype(), cast.raw(), dtype, w.numel(), stream());
    return cast;
}

} // namespace tb::cuda
