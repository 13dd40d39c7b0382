// The deprecated cuDNN calls, in one place, with the deprecation warning silenced for this file
// only: cudnnCreate/Set/DestroyFilterDescriptor, cudnnCreate/Set/DestroyConvolutionDescriptor,
// cudnnSetConvolutionMathType, cudnnGetConvolution{Forward,BackwardData,BackwardFilter}
// Algorithm_v7 (+ MaxCount) and WorkspaceSize, cudnnConvolution{Forward,BackwardData,
// BackwardFilter},
// cudnnDeriveBNTensorDescriptor and cudnnBatchNormalization{ForwardTraining,ForwardInference,
// Backward}.
#include "cudnnlegacy.h"

#include "cudacheck.h"

#include <optional>
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

// The ranking of one pass: cuDNN's entries that succeeded (deterministic ones when asked), each
// with the workspace cudnnGet*WorkspaceSize gives for it under its math type; those that fit the
// limit in cuDNN's order, or, when none fits, the one that needs least.
template <typename Perf, typename WorkspaceOf>
std::vector<RankedAlgo> rank(const std::vector<Perf>& perfs, bool deterministic, std::size_t limit,
                             WorkspaceOf&& workspaceOf, const char* pass) {
    std::vector<RankedAlgo> fitting;
    std::optional<RankedAlgo> smallest;
    for (const Perf& p : perfs) {
        if (p.status != CUDNN_STATUS_SUCCESS)
            continue;
        if (deterministic && p.determinism != CUDNN_DETERMINISTIC)
            continue;
        const std::optional<std::size_t> bytes = workspaceOf(p);
        if (!bytes)
            continue;
        const RankedAlgo a{static_cast<int>(p.algo), static_cast<int>(p.mathType), *bytes};
        if (a.workspaceBytes <= limit)
            fitting.push_back(a);
        else if (!smallest || a.workspaceBytes < smallest->workspaceBytes)
            smallest = a;
    }
    if (fitting.empty() && smallest)
        fitting.push_back(*smallest);
    if (fitting.empty())
        throw Error(std::string("cuDNN offers no ") + (deterministic ? "deterministic " : "") +
                    "algorithm for convolution " + pass + " of this shape and dtype");
    return fitting;
}

// Why cuDNN refused to run an algorithm, when the status says it did (not supported after all,
// or its launch failed) and the CUDA context is still sound; nullopt for any other status.
std::optional<std::string> refusal(cudnnStatus_t status) {
    const int family = static_cast<int>(status) / 1000;
    if (status == CUDNN_STATUS_SUCCESS || (family != 3 && family != 5))
        return std::nullopt;
    throwIfContextLost("cuDNN convolution", __FILE__, __LINE__);
    return std::string(cudnnGetErrorString(status)) + " (" +
           std::to_string(static_cast<int>(status)) + ")";
}

} // namespace

class ConvPlan {
public:
    TensorDesc x, y;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    std::vector<RankedAlgo> ranked[3];
    std::size_t current[3] = {0, 0, 0};

    ConvPlan(const ConvDesc& d, cudnnDataType_t type)
        : x(toInt(d.n), toInt(d.c), toInt(d.h), toInt(d.w), type),
          y(toInt(d.n), toInt(d.k), toInt(d.outH()), toInt(d.outW()), type) {
        TB_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
        TB_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, type, CUDNN_TENSOR_NCHW, toInt(d.k),
                                                  toInt(d.c / d.groups), toInt(d.r), toInt(d.s)));
        TB_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
        // Compute in f32 for every storage type (PSEUDO_HALF / PSEUDO_BFLOAT16 configurations).
        TB_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
            conv, toInt(d.pad), toInt(d.pad), toInt(d.stride), toInt(d.stride), toInt(d.dilation),
            toInt(d.dilation), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        TB_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, toInt(d.groups)));
    }
    ~ConvPlan() {
        (void)cudnnDestroyConvolutionDescriptor(conv);
        (void)cudnnDestroyFilterDescriptor(w);
    }
    ConvPlan(const ConvPlan&) = delete;
    ConvPlan& operator=(const ConvPlan&) = delete;

    // The descriptor is shared by the three passes; each algorithm runs with its math type.
    void useMath(int mathType) const {
        TB_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, static_cast<cudnnMathType_t>(mathType)));
    }
};

void ConvPlanDeleter::operator()(ConvPlan* plan) const {
    delete plan;
}

const char* convPassName(ConvPass pass) {
    switch (pass) {
    case ConvPass::Forward:
        return "forward";
    case ConvPass::BackwardData:
        return "backward-data";
    case ConvPass::BackwardFilter:
        return "backward-filter";
    }
    return "?";
}

ConvPlanPtr createConvPlan(cudnnHandle_t handle, const ConvDesc& d, DType dtype, bool deterministic,
                           std::size_t workspaceLimit) {
    ConvPlanPtr plan(new ConvPlan(d, cudnnTypeOf(dtype)));
    ConvPlan& p = *plan;
    // f32 stays on FMA math (no TF32) so it matches the CPU to 1e-4; f16/bf16 use Tensor Cores
    // with the math type each ranking entry names (an entry reported as CUDNN_DEFAULT_MATH would
    // permit TF32 on Ampere and later, so f32 never takes the reported one).
    const auto mathOf = [&](cudnnMathType_t reported) {
        return dtype == DType::F32 ? CUDNN_FMA_MATH : reported;
    };
    // The workspace of one entry under the math type it will run with; nullopt when cuDNN
    // declines to size it (the entry is then not offered).
    const auto sized = [&](cudnnMathType_t math, auto&& query) -> std::optional<std::size_t> {
        p.useMath(mathOf(math));
        std::size_t bytes = 0;
        if (query(&bytes) != CUDNN_STATUS_SUCCESS)
            return std::nullopt;
        return bytes;
    };
    const auto fix = [&](std::vector<RankedAlgo> r) {
        for (RankedAlgo& a : r)
            a.mathType = static_cast<int>(mathOf(static_cast<cudnnMathType_t>(a.mathType)));
        return r;
    };

    int maxCount = 0, count = 0;
    TB_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &maxCount));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(static_cast<std::size_t>(maxCount));
    TB_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(handle, p.x.desc, p.w, p.conv, p.y.desc,
                                                          maxCount, &count, fwd.data()));
    fwd.resize(static_cast<std::size_t>(count));
    p.ranked[0] = fix(rank(
        fwd, deterministic, workspaceLimit,
        [&](const cudnnConvolutionFwdAlgoPerf_t& e) {
            return sized(e.mathType, [&](std::size_t* bytes) {
                return cudnnGetConvolutionForwardWorkspaceSize(handle, p.x.desc, p.w, p.conv,
                                                               p.y.desc, e.algo, bytes);
            });
        },
        "forward"));

    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &maxCount));
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bd(static_cast<std::size_t>(maxCount));
    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        handle, p.w, p.y.desc, p.conv, p.x.desc, maxCount, &count, bd.data()));
    bd.resize(static_cast<std::size_t>(count));
    p.ranked[1] = fix(rank(
        bd, deterministic, workspaceLimit,
        [&](const cudnnConvolutionBwdDataAlgoPerf_t& e) {
            return sized(e.mathType, [&](std::size_t* bytes) {
                return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, p.w, p.y.desc, p.conv,
                                                                    p.x.desc, e.algo, bytes);
            });
        },
        "backward-data"));

    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &maxCount));
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bf(static_cast<std::size_t>(maxCount));
    TB_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, p.x.desc, p.y.desc, p.conv,
                                                                 p.w, maxCount, &count, bf.data()));
    bf.resize(static_cast<std::size_t>(count));
    p.ranked[2] = fix(rank(
        bf, deterministic, workspaceLimit,
        [&](const cudnnConvolutionBwdFilterAlgoPerf_t& e) {
            return sized(e.mathType, [&](std::size_t* bytes) {
                return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, p.x.desc, p.y.desc,
                                                                      p.conv, p.w, e.algo, bytes);
            });
        },
        "backward-filter"));
    return plan;
}

const std::vector<RankedAlgo>& convRanking(const ConvPlan& plan, ConvPass pass) {
    return plan.ranked[static_cast<int>(pass)];
}

std::size_t& convCurrent(ConvPlan& plan, ConvPass pass) {
    return plan.current[static_cast<int>(pass)];
}

std::optional<std::string> convForward(cudnnHandle_t handle, const ConvPlan& plan,
                                       const RankedAlgo& a, const void* x, const void* w, void* y,
                                       void* workspace) {
    const float alpha = 1.0f, beta = 0.0f;
    plan.useMath(a.mathType);
    const cudnnStatus_t status =
        cudnnConvolutionForward(handle, &alpha, plan.x.desc, x, plan.w, w, plan.conv,
                                static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), workspace,
                                a.workspaceBytes, &beta, plan.y.desc, y);
    if (auto why = refusal(status))
        return why;
    TB_CUDNN_CHECK(status);
    return std::nullopt;
}

std::optional<std::string> convBackwardData(cudnnHandle_t handle, const ConvPlan& plan,
                                            const RankedAlgo& a, const void* w, const void* dy,
                                            void* dx, void* workspace) {
    const float alpha = 1.0f, beta = 0.0f;
    plan.useMath(a.mathType);
    const cudnnStatus_t status =
        cudnnConvolutionBackwardData(handle, &alpha, plan.w, w, plan.y.desc, dy, plan.conv,
                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), workspace,
                                     a.workspaceBytes, &beta, plan.x.desc, dx);
    if (auto why = refusal(status))
        return why;
    TB_CUDNN_CHECK(status);
    return std::nullopt;
}

std::optional<std::string> convBackwardFilter(cudnnHandle_t handle, const ConvPlan& plan,
                                              const RankedAlgo& a, const void* x, const void* dy,
                                              void* dw, float beta, void* workspace) {
    const float alpha = 1.0f;
    plan.useMath(a.mathType);
    const cudnnStatus_t status =
        cudnnConvolutionBackwardFilter(handle, &alpha, plan.x.desc, x, plan.y.desc, dy, plan.conv,
                                       static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo),
                                       workspace, a.workspaceBytes, &beta, plan.w, dw);
    if (auto why = refusal(status))
        return why;
    TB_CUDNN_CHECK(status);
    return std::nullopt;
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
