// Feature maps between scales on the GPU: joining and splitting along channels (strided copies,
// no kernel), nearest upsampling and bilinear resizing (a thread an output pixel; backward a
// thread an input pixel, gathering, so no atomics). Activations are plain NCHW here.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/resize_math.h"

namespace tb::cuda {

namespace {

template <typename Io>
__global__ void upsampleForwardKernel(const typename Io::Storage* x, typename Io::Storage* y,
                                      int64_t nc, int64_t h, int64_t w, int64_t scale) {
    const int64_t oh = h * scale, ow = w * scale;
    TB_GRID_STRIDE(i, nc * oh * ow) {
        const int64_t j = i % ow, r = (i / ow) % oh, plane = i / (ow * oh);
        Io::store(y, i, Io::load(x, (plane * h + r / scale) * w + j / scale));
    }
}

template <typename Io>
__global__ void upsampleBackwardKernel(const typename Io::Storage* dy, typename Io::Storage* dx,
                                       int64_t nc, int64_t h, int64_t w, int64_t scale) {
    const int64_t ow = w * scale;
    TB_GRID_STRIDE(i, nc * h * w) {
        const int64_t j = i % w, r = (i / w) % h, plane = i / (w * h);
        const int64_t first = (plane * h * scale + r * scale) * ow + j * scale;
        float sum = 0.0f;
        for (int64_t a = 0; a < scale; ++a)
            for (int64_t b = 0; b < scale; ++b)
                sum += Io::load(dy, first + a * ow + b);
        Io::store(dx, i, sum);
    }
}

template <typename Io>
__global__ void resizeBilinearForwardKernel(const typename Io::Storage* x, typename Io::Storage* y,
                                            int64_t nc, int64_t h, int64_t w, int64_t oh,
                                            int64_t ow) {
    TB_GRID_STRIDE(i, nc * oh * ow) {
        const int64_t j = i % ow, r = (i / ow) % oh, plane = i / (ow * oh);
        const auto load = [&](int64_t a, int64_t b) {
            return Io::load(x, (plane * h + a) * w + b);
        };
        Io::store(y, i, math::bilinearAt(load, r, j, h, w, oh, ow));
    }
}

template <typename Io>
__global__ void resizeBilinearBackwardKernel(const typename Io::Storage* dy,
                                             typename Io::Storage* dx, int64_t nc, int64_t h,
                                             int64_t w, int64_t oh, int64_t ow) {
    TB_GRID_STRIDE(i, nc * h * w) {
        const int64_t j = i % w, r = (i / w) % h, plane = i / (w * h);
        const auto load = [&](int64_t a, int64_t b) {
            return Io::load(dy, (plane * oh + a) * ow + b);
        };
        Io::store(dx, i, math::bilinearGradAt(load, r, j, h, w, oh, ow));
    }
}

} // namespace

void launchResizeBilinearForward(const void* x, void* y, DType dtype, int64_t nc, int64_t h,
                                 int64_t w, int64_t oh, int64_t ow, cudaStream_t stream) {
    const int64_t total = nc * oh * ow;
    if (total == 0)
        return;
    dispatchFloat(dtype, "resizeBilinearForward", [&](auto io) {
        using Io = decltype(io);
        resizeBilinearForwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(x), out<Io>(y), nc, h, w, oh, ow);
    });
    TB_KERNEL_CHECK("resizeBilinearForwardKernel");
}

void launchResizeBilinearBackward(const void* dy, void* dx, DType dtype, int64_t nc, int64_t h,
                                  int64_t w, int64_t oh, int64_t ow, cudaStream_t stream) {
    const int64_t total = nc * h * w;
    if (total == 0)
        return;
    dispatchFloat(dtype, "resizeBilinearBackward", [&](auto io) {
        using Io = decltype(io);
        resizeBilinearBackwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(dy), out<Io>(dx), nc, h, w, oh, ow);
    });
    TB_KERNEL_CHECK("resizeBilinearBackwardKernel");
}

void launchChannelCopy(const void* src, int64_t srcChannels, int64_t srcFirst, void* dst,
                       int64_t dstChannels, int64_t dstFirst, int64_t n, int64_t c, int64_t hw,
                       DType dtype, cudaStream_t stream) {
    if (n == 0 || c == 0 || hw == 0)
        return;
    const size_t plane = static_cast<size_t>(hw) * dtypeSize(dtype);
    // One row per image: c planes, between images a whole tensor's channels apart.
    TB_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(dst) + dstFirst * plane, dstChannels * plane,
                                    static_cast<const char*>(src) + srcFirst * plane,
                                    srcChannels * plane, c * plane, static_cast<size_t>(n),
                                    cudaMemcpyDeviceToDevice, stream));
}

void launchUpsampleNearestForward(const void* x, void* y, DType dtype, int64_t nc, int64_t h,
                                  int64_t w, int64_t scale, cudaStream_t stream) {
    const int64_t total = nc * h * w * scale * scale;
    if (total == 0)
        return;
    dispatchFloat(dtype, "upsampleNearestForward", [&](auto io) {
        using Io = decltype(io);
        upsampleForwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(x), out<Io>(y), nc, h, w, scale);
    });
    TB_KERNEL_CHECK("upsampleForwardKernel");
}

void launchUpsampleNearestBackward(const void* dy, void* dx, DType dtype, int64_t nc, int64_t h,
                                   int64_t w, int64_t scale, cudaStream_t stream) {
    const int64_t total = nc * h * w;
    if (total == 0)
        return;
    dispatchFloat(dtype, "upsampleNearestBackward", [&](auto io) {
        using Io = decltype(io);
        upsampleBackwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(dy), out<Io>(dx), nc, h, w, scale);
    });
    TB_KERNEL_CHECK("upsampleBackwardKernel");
}

} // namespace tb::cuda
