// Every cuDNN call of the legacy (non-graph) API that cuDNN 9 marks deprecated lives behind this
// header, in cudnnlegacy.cpp: convolution fwd / bwd-data / bwd-filter with algorithm choice by
// cudnnGet*Algorithm_v7, and spatial batch norm. Moving to the graph API is a change here only.
#pragma once

#include "backend/opdesc.h"
#include "core/dtype.h"

#include <cudnn.h>

#include <cstddef>
#include <memory>

namespace tb::cuda::legacy {

enum class ConvPass { Forward, BackwardData, BackwardFilter };

// The descriptors and chosen algorithms for one convolution shape and dtype (opaque: its types
// are the deprecated ones). Built once per key and cached by the backend.
class ConvPlan;
struct ConvPlanDeleter {
    void operator()(ConvPlan* plan) const;
};
using ConvPlanPtr = std::unique_ptr<ConvPlan, ConvPlanDeleter>;

// Chooses, for each pass, the best algorithm cuDNN's heuristics rank first among those whose
// workspace fits workspaceLimit (and that are deterministic when asked). Throws tb::Error when
// cuDNN supports no algorithm for the shape and dtype.
ConvPlanPtr createConvPlan(cudnnHandle_t handle, const ConvDesc& d, DType dtype, bool deterministic,
                           std::size_t workspaceLimit);
std::size_t convWorkspaceBytes(const ConvPlan& plan, ConvPass pass);
// A short text of the chosen algorithms for logs ("fwd 1, bwd-data 1, bwd-filter 3").
const char* convAlgoSummary(const ConvPlan& plan);

// y(n,k,oh,ow) = conv(x, w); overwrites y.
void convForward(cudnnHandle_t handle, const ConvPlan& plan, const void* x, const void* w, void* y,
                 void* workspace, std::size_t workspaceBytes);
// dx(n,c,h,w) = backward-data(w, dy); overwrites dx.
void convBackwardData(cudnnHandle_t handle, const ConvPlan& plan, const void* w, const void* dy,
                      void* dx, void* workspace, std::size_t workspaceBytes);
// dw(k,c,r,s) = backward-filter(x, dy) + beta * dw (beta 1 accumulates).
void convBackwardFilter(cudnnHandle_t handle, const ConvPlan& plan, const void* x, const void* dy,
                        void* dw, float beta, void* workspace, std::size_t workspaceBytes);

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
