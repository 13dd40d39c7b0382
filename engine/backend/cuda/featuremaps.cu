// A detector's neck on the GPU: joining and splitting along channels (strided copies, no kernel)
// and nearest upsampling. Activations are plain NCHW here.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

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

} // namespace

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
