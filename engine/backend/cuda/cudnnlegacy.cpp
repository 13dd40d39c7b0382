// The deprecated cuDNN calls, in one place, with the deprecation warning silenced for this file
// only: cudnnCreate/Set/DestroyFilterDescriptor, cudnnCreate/Set/DestroyConvolutionDescriptor,
// cudnnSetConvolutionMathType, cudnnGetConvolution{Forward,BackwardData,BackwardFilter}
// Algorithm_v7 (+ MaxCount), cudnnConvolution{Forward,BackwardData,BackwardFilter},
// cudnnDeriveBNTensorDescriptor and cudnnBatchNormalization{ForwardTraining,ForwardInference,
// Backward}.
#include "cudnnlegacy.h"

#include "cudacheck.h"

#include <cstdio>
#include <string>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace tb::cuda::legacy {

namespace {

cudnnDataType_t cudnnTypeOf(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return CUDNN_DATA_FLOAT;
    case DType::F16:
        return CUDNN_DATA_HALF;
    case DType::BF16:
        return CUDNN_DATA_BFLOAT16;
    default:
        throw Error("cuDNN: unsupported dtype " + std::string(dtypeName(dtype)));
    }
}

int toInt(int64_t v) {
    if (v < 0 || v > INT32_MAX)
        throw Error("cuDNN: dimension " + std::to_string(v) + " out of range");
    return static_cast<int>(v);
}

// RAII 4-d NCHW tensor descriptor.
struct TensorDesc {
    cudnnTensorDescriptor_t desc = nullptr;
    TensorDesc(int n, int c, int h, int w, cudnnDataType_t type) {
        TB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc));
        TB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, type, n, c, h, w));
    }
    TensorDesc() { TB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc)); }
    ~TensorDesc() { (void)cudnnDestroyTensorDescriptor(desc); }
    TensorDesc(const TensorDesc&) = delete;
    TensorDesc& operator=(const TensorDesc&) = delete;
};

// The first algorithm in cuDNN's ranking that succeeded, is deterministic when asked and whose
// workspace fits; else the deterministic-if-asked one with the smallest workspace.
template <typename Perf>
const Perf& choose(const std::vector<Perf>& perfs, bool deterministic, std::size_t limit,
                   const char* pass) {
    const Perf* smallest = nullptr;
    for (const Perf& p : perfs) {
        if (p.status != CUDNN_STATUS_SUCCESS)
            continue;
        if (deterministic && p.determinism != CUDNN_DETERMINISTIC)
            continue;
        if (p.memory <= limit)
            return p;
        if (!smallest || p.memory < smallest->memory)
            smallest = &p;
    }
    if (smallest)
        return *smallest;
    throw Error(std::string("cuDNN offers no ") + (deterministic ? "deterministic " : "") +
                "algorithm for convolution " + pass + " of this shape and dtype");
}

} // namespace

class ConvPlan {
public:
    TensorDesc x, y;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnConvolutionFwdAlgo_t fwd{};
    cudnnConvolutionBwdDataAlgo_t bwdData{};
    cudnnConvolutionBwdFilterAlgo_t bwdFilter{};
    cudnnMathType_t fwdMath{}, bwdDataMath{}, bwdFilterMath{};
    std::size_t fwdWs = 0, bwdDataWs = 0, bwdFilterWs = 0;
    char summary[96] = {};

    ConvPlan(const ConvDesc& d, cudnnDataType_t type)
        : x(toInt(d.n), toInt(d.c), toInt(d.h), toInt(d.w), type),
          y(toInt(d.n), toInt(d.k), toInt(d.outH()), toInt(d.outW()), type) {
        TB_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
        TB_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, type, CUDNN_TENSOR_NCHW, toInt(d.k),
                                                  toInt(d.c), toInt(d.r), toInt(d.s)));
        TB_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
        // Compute in f32 for every storage type (PSEUDO_HALF / PSEUDO_BFLOAT16 configurations).
        TB_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, toInt(d.pad), toInt(d.pad),
                                                       toInt(d.stride), toInt(d.stride), 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    }
    ~ConvPlan() {
        (void)cudnnDestroyConvolutionDescriptor(conv);
        (void)cudnnDestroyFilterDescriptor(w);
    }
    ConvPlan(const ConvPlan&) = delete;
    ConvPlan& operator=(const ConvPlan&) = delete;
};

void ConvPlanDeleter::operator()(ConvPlan* plan) const {
    delete plan;
}

ConvPlanPtr createConvPlan(cudnnHandle_t handle, const ConvDesc& d, DType dtype, bool deterministic,
                           std::size_t workspaceLimit) {
    ConvPlanPtr plan(new ConvPlan(d, cudnnTypeOf(dtype)));
    ConvPlan& p = *plan;
    // f32 stays on FMA math (no TF32) so it matches the CPU to 1e-4; f16/bf16 use Tensor Cores.
    const cudnnMathType_t math = dtype == DType::F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
    TB_CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, math));
    // Each pass runs with the math type its ranking entry names, except that f32 stays on FMA:
    // an entry reported as CUDNN_DEFAULT_MATH would permit TF32 on Ampere and later.
    const auto mathOf = [&](cudnnMathType_t reported) {
        return dtype == DType::F32 ? CUDNN_FMA_MATH : reported;
    };

    int maxCount = 0, count = 0;
    TB_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &maxCount));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(static_cast<std::size_t>(maxCount));
    TB_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(handle, p.x.desc, p.w, p.conv, p.y.desc,
                                                          maxCount, &count, fwd.data()));
    fwd.resize(static_cast<std::size_t>(count));
    const auto& f = choose(fwd, deterministic, workspaceLimit, "forward");
    p.fwd = f.algo;
    p.fwdMath = mathOf(f.mathType);
    p.fwdWs = f.memory;

    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &maxCount));
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bd(static_cast<std::size_t>(maxCount));
    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        handle, p.w, p.y.desc, p.conv, p.x.desc, maxCount, &count, bd.data()));
    bd.resize(static_cast<std::size_t>(count));
    const auto& b = choose(bd, deterministic, workspaceLimit, "backward-data");
    p.bwdData = b.algo;
    p.bwdDataMath = mathOf(b.mathType);
    p.bwdDataWs = b.memory;

    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &maxCount));
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bf(static_cast<std::size_t>(maxCount));
    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, p.x.desc, p.y.desc, p.conv,
                                                                 p.w, maxCount, &count, bf.data()));
    bf.resize(static_cast<std::size_t>(count));
    const auto& g = choose(bf, deterministic, workspaceLimit, "backward-filter");
    p.bwdFilter = g.algo;
    p.bwdFilterMath = mathOf(g.mathType);
    p.bwdFilterWs = g.memory;

    std::snprintf(p.summary, sizeof p.summary, "fwd %d, bwd-data %d, bwd-filter %d",
                  static_cast<int>(p.fwd), static_cast<int>(p.bwdData),
                  static_cast<int>(p.bwdFilter));
    return plan;
}

std::size_t convWorkspaceBytes(const ConvPlan& plan, ConvPass pass) {
    switch (pass) {
    case ConvPass::Forward:
        return plan.fwdWs;
    case ConvPass::BackwardData:
        return plan.bwdDataWs;
    case ConvPass::BackwardFilter:
        return plan.bwdFilterWs;
    }
    return 0;
}

const char* convAlgoSummary(const ConvPlan& plan) {
    return plan.summary;
}

void convForward(cudnnHandle_t handle, const ConvPlan& plan, const void* x, const void* w, void* y,
                 void* workspace, std::size_t workspaceBytes) {
    const float alpha = 1.0f, beta = 0.0f;
    // The descriptor is shared by the three passes; each runs with its algorithm's math type.
    TB_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv, plan.fwdMath));
    TB_CUDNN_CHECK(cudnnConvolutionForward(handle, &alpha, plan.x.desc, x, plan.w, w, plan.conv,
                                           plan.fwd, workspace, workspaceBytes, &beta, plan.y.desc,
                                           y));
}

void convBackwardData(cudnnHandle_t handle, const ConvPlan& plan, const void* w, const void* dy,
                      void* dx, void* workspace, std::size_t workspaceBytes) {
    const float alpha = 1.0f, beta = 0.0f;
    TB_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv, plan.bwdDataMath));
    TB_CUDNN_CHECK(cudnnConvolutionBackwardData(handle, &alpha, plan.w, w, plan.y.desc, dy,
                                                plan.conv, plan.bwdData, workspace, workspaceBytes,
                                                &beta, plan.x.desc, dx));
}

void convBackwardFilter(cudnnHandle_t handle, const ConvPlan& plan, const void* x, const void* dy,
                        void* dw, float beta, void* workspace, std::size_t workspaceBytes) {
    const float alpha = 1.0f;
    TB_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv, plan.bwdFilterMath));
    TB_CUDNN_CHECK(cudnnConvolutionBackwardFilter(handle, &alpha, plan.x.desc, x, plan.y.desc, dy,
                                                  plan.conv, plan.bwdFilter, workspace,
                                                  workspaceBytes, &beta, plan.w, dw));
}

namespace {

// x/y descriptor and the derived (f32) per-channel descriptor of one batch-norm call.
struct BatchNormDescs {
    TensorDesc x;
    TensorDesc param;
    explicit BatchNormDescs(const BatchNormShape& s) : x(s.n, s.c, s.h, s.w, cudnnTypeOf(s.dtype)) {
        TB_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(param.desc, x.desc, CUDNN_BATCHNORM_SPATIAL));
    }
};

} // namespace

double batchNormMinEpsilon() {
    return CUDNN_BN_MIN_EPSILON;
}

void batchNormForwardTraining(cudnnHandle_t handle, const BatchNormShape& s, const void* x, void* y,
                              const float* gamma, const float* beta, double momentum,
                              float* runningMean, float* runningVar, double eps, float* saveMean,
                              float* saveInvStd) {
    const BatchNormDescs d(s);
    const float one = 1.0f, zero = 0.0f;
    // cuDNN updates the running variance with the unbiased estimate and uses
    // running = (1 - factor) * running + factor * batch, which is PyTorch's momentum rule.
    TB_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x.desc, x, d.x.desc, y, d.param.desc, gamma,
        beta, momentum, runningMean, runningVar, eps, saveMean, saveInvStd));
}

void batchNormForwardInference(cudnnHandle_t handle, const BatchNormShape& s, const void* x,
                               void* y, const float* gamma, const float* beta,
                               const float* runningMean, const float* runningVar, double eps) {
    const BatchNormDescs d(s);
    const float one = 1.0f, zero = 0.0f;
    TB_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x.desc, x, d.x.desc, y, d.param.desc, gamma,
        beta, runningMean, runningVar, eps));
}

void batchNormBackward(cudnnHandle_t handle, const BatchNormShape& s, const void* x, const void* dy,
                       void* dx, const float* gamma, float* dgamma, float* dbeta,
                       const float* saveMean, const float* saveInvStd, double eps) {
    const BatchNormDescs d(s);
    const float one = 1.0f, zero = 0.0f;
    // Data gradient overwritten (beta 0); parameter gradients accumulate (beta 1). With the saved
    // mean and 1/std given, epsilon is not used to recompute them, but cuDNN asks for the
    // forward's value.
    TB_CUDNN_CHECK(cudnnBatchNormalizationBackward(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &one, d.x.desc, x, d.x.desc, dy,
        d.x.desc, dx, d.param.desc, gamma, dgamma, dbeta, eps, saveMean, saveInvStd));
}

} // namespace tb::cuda::legacy

#pragma GCC diagnostic pop
