// Batch norm: cuDNN's spatial batch norm for f32 / f16, our own kernels (batchnorm.cu) for bf16
// and for an eps below cuDNN's minimum (CUDNN_BN_MIN_EPSILON; 0 in cuDNN 9, 1e-5 before). x, y, dx
// in the activation dtype; gamma, beta, statistics f32; running variance unbiased with PyTorch's
// momentum rule.
#include "cudabackend.h"

#include "cudacheck.h"
#include "kernels.h"
#include "tensorchecks.h"

#include <initializer_list>

namespace tb::cuda {

namespace {

// (n, c, h, w) or (n, c) as (n, c, 1, 1).
legacy::BatchNormShape bnShape(const Tensor& x, const Tensor& gamma, const char* op) {
    const Shape& s = x.shape();
    if (s.rank() != 2 && s.rank() != 4)
        throw Error(std::string(op) + ": x must be (n, c) or (n, c, h, w), got " + s.toString());
    const int64_t h = s.rank() == 4 ? s[2] : 1, w = s.rank() == 4 ? s[3] : 1;
    requireF32Vector(gamma, s[1], op, "gamma");
    if (s[0] > INT32_MAX || s[1] > INT32_MAX || h > INT32_MAX || w > INT32_MAX)
        throw Error(std::string(op) + ": x too large for cuDNN");
    return {static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(h),
            static_cast<int>(w), x.dtype()};
}

// beta, the statistics and the parameter gradients: f32 of size c, like gamma.
void checkChannels(std::initializer_list<const Tensor*> ts, int c, const char* op) {
    for (const Tensor* t : ts)
        requireF32Vector(*t, c, op, "beta, statistics and their gradients");
}

// cuDNN's legacy batch norm: f32 and f16 (bf16 support is not documented for it).
bool useCudnn(DType dtype) {
    return dtype == DType::F32 || dtype == DType::F16;
}

BnGeometry geometryOf(const legacy::BatchNormShape& s) {
    return {s.n, s.c, static_cast<int64_t>(s.h) * s.w};
}

} // namespace

void CudaBackend::batchNormForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                        Tensor& runningMean, Tensor& runningVar, float momentum,
                                        float eps, Tensor& y, Tensor& saveMean,
                                        Tensor& saveInvStd) {
    for (const Tensor* t : std::initializer_list<const Tensor*>{
             &x, &gamma, &beta, &runningMean, &runningVar, &y, &saveMean, &saveInvStd})
        requireDevice(*t, "batchNormForwardTrain");
    const legacy::BatchNormShape s = bnShape(x, gamma, "batchNormForwardTrain");
    if (y.numel() != x.numel() || y.dtype() != x.dtype())
        throw Error("batchNormForwardTrain: y does not match x");
    checkChannels({&beta, &runningMean, &runningVar, &saveMean, &saveInvStd}, s.c,
                  "batchNormForwardTrain");
    if (static_cast<int64_t>(s.n) * s.h * s.w <= 1)
        throw Error("batchNormForwardTrain: needs more than one value per channel");
    if (!(eps > 0.0f))
        throw Error("batchNormForwardTrain: eps must be positive");
    DeviceScope scope(m_index);
    if (useCudnn(s.dtype) && eps >= legacy::batchNormMinEpsilon()) {
        withOomRetry([&] {
            legacy::batchNormForwardTraining(m_cudnn, s, x.raw(), y.raw(), gamma.data<float>(),
                                             beta.data<float>(), momentum,
                                             runningMean.data<float>(), runningVar.data<float>(),
                                             eps, saveMean.data<float>(), saveInvStd.data<float>());
        });
        return;
    }
    const BnGeometry g = geometryOf(s);
    const int64_t splits = bnSplits(g, m_smCount);
    Tensor scratch = empty(Shape{bnScratchFloats(g, splits)}, DType::F32);
    launchBatchNormForwardTrain(x.raw(), y.raw(), s.dtype, g, gamma.data<float>(),
                                beta.data<float>(), runningMean.data<float>(),
                                runningVar.data<float>(), momentum, eps, saveMean.data<float>(),
                                saveInvStd.data<float>(), scratch.data<float>(), splits, stream());
}

void CudaBackend::batchNormForwardInference(const Tensor& x, const Tensor& gamma,
                                            const Tensor& beta, const Tensor& runningMean,
                                            const Tensor& runningVar, float eps, Tensor& y) {
    for (const Tensor* t :
         std::initializer_list<const Tensor*>{&x, &gamma, &beta, &runningMean, &runningVar, &y})
        requireDevice(*t, "batchNormForwardInference");
    const legacy::BatchNormShape s = bnShape(x, gamma, "batchNormForwardInference");
    if (y.numel() != x.numel() || y.dtype() != x.dtype())
        throw Error("batchNormForwardInference: y does not match x");
    checkChannels({&beta, &runningMean, &runningVar}, s.c, "batchNormForwardInference");
    if (x.numel() == 0) // cuDNN rejects empty descriptors
        return;
    DeviceScope scope(m_index);
    if (useCudnn(s.dtype) && eps >= legacy::batchNormMinEpsilon()) {
        withOomRetry([&] {
            legacy::batchNormForwardInference(m_cudnn, s, x.raw(), y.raw(), gamma.data<float>(),
                                              beta.data<float>(), runningMean.data<float>(),
                                              runningVar.data<float>(), eps);
        });
        return;
    }
    launchBatchNormForwardInference(x.raw(), y.raw(), s.dtype, geometryOf(s), gamma.data<float>(),
                                    beta.data<float>(), runningMean.data<float>(),
                                    runningVar.data<float>(), eps, stream());
}

void CudaBackend::batchNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                    const Tensor& saveMean, const Tensor& saveInvStd, float eps,
                                    Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    for (const Tensor* t : std::initializer_list<const Tensor*>{&x, &dy, &gamma, &saveMean,
                                                                &saveInvStd, &dx, &dgamma, &dbeta})
        requireDevice(*t, "batchNormBackward");
    const legacy::BatchNormShape s = bnShape(x, gamma, "batchNormBackward");
    if (dy.numel() != x.numel() || dx.numel() != x.numel() || dy.dtype() != x.dtype() ||
        dx.dtype() != x.dtype())
        throw Error("batchNormBackward: dy and dx must match x");
    checkChannels({&saveMean, &saveInvStd, &dgamma, &dbeta}, s.c, "batchNormBackward");
    if (x.numel() == 0) // nothing to add to dgamma / dbeta; cuDNN rejects empty descriptors
        return;
    DeviceScope scope(m_index);
    // The same path as the forward pass (cuDNN wants the same eps in both).
    if (useCudnn(s.dtype) && eps >= legacy::batchNormMinEpsilon()) {
        withOomRetry([&] {
            legacy::batchNormBackward(m_cudnn, s, x.raw(), dy.raw(), dx.raw(), gamma.data<float>(),
                                      dgamma.data<float>(), dbeta.data<float>(),
                                      saveMean.data<float>(), saveInvStd.data<float>(), eps);
        });
        return;
    }
    const BnGeometry g = geometryOf(s);
    const int64_t splits = bnSplits(g, m_smCount);
    Tensor scratch = empty(Shape{bnScratchFloats(g, splits)}, DType::F32);
    launchBatchNormBackward(x.raw(), dy.raw(), dx.raw(), s.dtype, g, gamma.data<float>(),
                            saveMean.data<float>(), saveInvStd.data<float>(), dgamma.data<float>(),
                            dbeta.data<float>(), scratch.data<float>(), splits, stream());
}

} // namespace tb::cuda
