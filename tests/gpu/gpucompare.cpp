// GPU parity helpers: upload / download through a backend and the maxdiff / NMSE comparison.
#include "gpucompare.h"

#include "backend/devices.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tb::test {

Tolerance toleranceFor(DType dtype) {
    switch (dtype) {
    case DType::F16:
        return {4e-3, 4e-3, 1e-5};
    case DType::BF16:
        return {3e-2, 3e-2, 5e-4};
    default:
        return {1e-4, 1e-5, 1e-9};
    }
}

Tolerance exact() {
    return {0.0, 0.0, 0.0};
}

Comparison compareTensors(const std::string& name, const Tensor& ref, const Tensor& got,
                          const Tolerance& tol) {
    Comparison c;
    if (ref.numel() != got.numel() || ref.dtype() != DType::F32 || got.dtype() != DType::F32) {
        std::printf("  %-28s size or dtype mismatch\n", name.c_str());
        return c;
    }
    const float* r = ref.data<float>();
    const float* g = got.data<float>();
    const int64_t n = ref.numel();
    for (int64_t i = 0; i < n; ++i)
        c.maxRef = std::max(c.maxRef, static_cast<double>(std::fabs(r[i])));
    double err2 = 0.0, ref2 = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double d = std::fabs(static_cast<double>(g[i]) - r[i]);
        const bool sameNonFinite =
            !std::isfinite(r[i]) && (r[i] == g[i] || (std::isnan(r[i]) && std::isnan(g[i])));
        if (sameNonFinite)
            continue;
        if (!(d <= tol.rtol * std::fabs(r[i]) + tol.atolFrac * c.maxRef))
            ++c.failing;
        if (!(d <= c.maxAbs)) {
            c.maxAbs = d;
            c.worst = i;
        }
        err2 += d * d;
        ref2 += static_cast<double>(r[i]) * r[i];
    }
    c.nmse = ref2 > 0.0 ? err2 / ref2 : err2;
    c.ok = c.failing == 0 && c.nmse <= tol.nmse;
    std::printf("  %-28s maxdiff %.3e (of %.3g)  nmse %.3e  %s\n", name.c_str(), c.maxAbs, c.maxRef,
                c.nmse, c.ok ? "ok" : "FAIL");
    if (!c.ok && c.worst >= 0)
        std::printf("    worst at %lld: ref %.9g got %.9g\n", static_cast<long long>(c.worst),
                    static_cast<double>(r[c.worst]), static_cast<double>(g[c.worst]));
    return c;
}

Tensor upload(Backend& backend, const Tensor& hostF32, DType dtype) {
    if (dtype == DType::I32 || dtype == DType::U8) {
        Tensor h = Tensor::host(hostF32.shape(), dtype);
        for (int64_t i = 0; i < h.numel(); ++i) {
            const float v = hostF32.data<float>()[i];
            if (dtype == DType::I32)
                h.data<int32_t>()[i] = static_cast<int32_t>(v);
            else
                h.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        }
        Tensor d = backend.empty(h.shape(), dtype);
        backend.copy(h, d);
        return d;
    }
    Tensor f32 = backend.empty(hostF32.shape(), DType::F32);
    backend.copy(hostF32, f32);
    if (dtype == DType::F32)
        return f32;
    Tensor t = backend.empty(hostF32.shape(), dtype);
    backend.cast(f32, t);
    return t;
}

Tensor download(Backend& backend, const Tensor& t) {
    Tensor out = Tensor::host(t.shape(), DType::F32);
    if (t.dtype() == DType::I32 || t.dtype() == DType::U8) {
        Tensor h = Tensor::host(t.shape(), t.dtype());
        backend.copy(t, h);
        for (int64_t i = 0; i < h.numel(); ++i)
            out.data<float>()[i] = t.dtype() == DType::I32
                                       ? static_cast<float>(h.data<int32_t>()[i])
                                       : static_cast<float>(h.data<uint8_t>()[i]);
        return out;
    }
    if (t.dtype() == DType::F32) {
        backend.copy(t, out);
        return out;
    }
    Tensor f32 = backend.empty(t.shape(), DType::F32);
    backend.cast(t, f32);
    backend.copy(f32, out);
    return out;
}

Tensor uploadValues(Backend& backend, const std::vector<float>& values) {
    Tensor h = Tensor::host(Shape{static_cast<int64_t>(values.size())}, DType::F32);
    std::copy(values.begin(), values.end(), h.data<float>());
    Tensor d = backend.empty(h.shape(), DType::F32);
    backend.copy(h, d);
    return d;
}

std::unique_ptr<Backend> createGpuOrReason(std::string& reason) {
    const CudaStatus& status = probeCuda();
    if (!status.usable) {
        reason = status.reason;
        return nullptr;
    }
    try {
        return createBackend(Device::cuda(0), 1);
    } catch (const Error& e) {
        reason = e.what();
        return nullptr;
    }
}

} // namespace tb::test
