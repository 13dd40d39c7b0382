// Every cuDNN call of the legacy (non-graph) API that cuDNN 9 marks deprecated lives behind this
// header, in cudnnlegacy.cpp: convolution fwd / bwd-data / bwd-filter with algorithms ranked by
// cudnnGet*Algorithm_v7, and spatial batch norm. Moving to the graph API is a change here only.
#pragma once

#include "algofallback.h"
#include "backend/opdesc.h"
#include "core/dtype.h"

#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb::cuda::legacy {

enum class ConvPass { Forward, BackwardData, BackwardFilter };
const char* convPassName(ConvPass pass);

// The descriptors and ranked algorithms for one convolution shape and dtype (opaque: its types
// are the deprecated ones). Built once per key and cached by the backend.
class ConvPlan;
struct ConvPlanDeleter {
    void operator()(ConvPlan* plan) const;
};
using ConvPlanPtr = std::unique_ptr<ConvPlan, ConvPlanDeleter>;

// Ranks, for each pass, the algorithms cuDNN's heuristics offer (deterministic ones only when
// asked) whose workspace fits workspaceLimit, best first, each with the workspace it needs;
// when none fits, the one needing the least. Throws tb::Error when cuDNN offers none.
ConvPlanPtr createConvPlan(cudnnHandle_t handle, const ConvDesc& d, DType dtype, bool deterministic,
                           std::size_t workspaceLimit);
// A pass's ranking, and the index of the algorithm that runs now (moved on by runRanked when
// cuDNN refuses one at run time).
const std::vector<RankedAlgo>& convRanking(const ConvPlan& plan, ConvPass pass);
std::size_t& convCurrent(ConvPlan& plan, ConvPass pass);

// Each runs one pass with algorithm `a` and returns nullopt, or why cuDNN refused to run it
// (a NOT_SUPPORTED or EXECUTION_FAILED status, with no lost CUDA context behind it); any other
// failure throws. workspace holds at least a.workspaceBytes.
// y(n,k,oh,ow) = conv(x, w); overwrites y.
std::optional<std::string> convForward(cudnnHandle_t handle, const ConvPlan& plan,
                                       const RankedAlgo& a, const void* x, const void* w, void* y,
                                       void* workspace);
// dx(n,c,h,w) = backward-data(w, dy); overwrites dx.
std::optional<std::string> convBackwardData(cudnnHandle_t handle, const ConvPlan& plan,
                                            const RankedAlgo& a, const void* w, const void* dy,
                                            void* dx, void* workspace);
// dw(k,c,r,s) = backward-filter(x, dy) + beta * dw (beta 1 accumulates).
std::optional<std::string> convBackwardFilter(cudnnHandle_t handle, const ConvPlan& plan,
                                              const RankedAlgo& a, const void* x, const void* dy,
                                              void* dw, float beta, void* workspace);

// Spatial batch norm over x(n, c, h, w) of `dtype`; gamma, beta, statistics f32 of size c.
struct BatchNormShape {
    int n, c, h, w;
    DType dtype;
};
void batchNormForwardTraining(cudnnHandle_t handle, const BatchNormShape& s, const void* x, void* y,
                              const float* gamma, const float* beta, double momentum,
                              float* runningMean, float* runningVar, double eps, float* saveMean,
                              float* saveInvStd);
void batchNormForwardInference(cudnnHandle_t handle, const BatchNormShape& s, const void* x,
                               void* y, const float* gamma, const float* beta,
                               const float* runningMean, const float* runningVar, double eps);
// dx overwritten; dgamma and dbeta accumulate.
void batchNormBackward(cudnnHandle_t handle, const BatchNormShape& s, const void* x, const void* dy,
                       void* dx, const float* gamma, float* dgamma, float* dbeta,
                       const float* saveMean, const float* saveInvStd, double eps);

// The smallest epsilon cuDNN's batch norm accepts.
double batchNormMinEpsilon();

} // namespace tb::cuda::legacy
