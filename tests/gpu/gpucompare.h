// Helpers for the GPU parity suite: move tensors to and from a backend, compare a GPU result
// with the CPU reference and print maxdiff / NMSE per check (llm.c style), and the skip reason.
#pragma once

#include "backend/backend.h"
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tb::test {

// How close a GPU result must be to the CPU reference, by the dtype the op computed in.
struct Tolerance {
    double rtol;     // per element: |got - ref| <= rtol * |ref| + atolFrac * max|ref|
    double atolFrac; // absolute slack as a fraction of the largest reference magnitude
    double nmse;     // sum (got - ref)^2 / sum ref^2 must stay below this
};

// f32: 1e-4 relative. f16 (unit roundoff u = 2^-11) and bf16 (u = 2^-8): every output is rounded
// once to the storage type, inputs or weights may be rounded once more on one side only, and the
// two backends sum in different orders; so a per-element error of a few u relative to the output
// scale, and an NMSE of a few u^2, with a margin of about 4x.
Tolerance toleranceFor(DType dtype);
// Exact equality (masks, indices, casts through the shared conversion code).
Tolerance exact();

struct Comparison {
    double maxAbs = 0.0;
    double maxRef = 0.0;
    double nmse = 0.0;
    int64_t worst = -1;  // index of the largest difference
    int64_t failing = 0; // elements outside the per-element bound
    bool ok = false;
};

// Compares two host f32 tensors of equal size and prints one line:
// "  conv fwd f16        maxdiff 1.2e-03 (of 4.1)  nmse 3.0e-07  ok".
Comparison compareTensors(const std::string& name, const Tensor& ref, const Tensor& got,
                          const Tolerance& tol);

// Copies a host f32 tensor onto a backend as `dtype` (f32, f16 or bf16 via the backend's cast;
// i32 / u8 by converting on the host first).
Tensor upload(Backend& backend, const Tensor& hostF32, DType dtype);
// Copies any tensor of a backend back to a host f32 tensor (casting on the backend).
Tensor download(Backend& backend, const Tensor& t);
// A device scalar or small vector of f32 values.
Tensor uploadValues(Backend& backend, const std::vector<float>& values);

// The GPU backend on cuda:0, or null with `reason` set from probeCuda() (for QSKIP).
std::unique_ptr<Backend> createGpuOrReason(std::string& reason);

} // namespace tb::test

// Fails the current Qt test when the comparison is out of tolerance (the line is printed anyway).
#define TB_EXPECT_CLOSE(name, ref, got, tol)                                                       \
    do {                                                                                           \
        const ::tb::test::Comparison tbCmp_ =                                                      \
            ::tb::test::compareTensors((name), (ref), (got), (tol));                               \
        QVERIFY2(tbCmp_.ok, qPrintable(QString("%1: %2 elements out of tolerance, maxdiff %3")     \
                                           .arg(QString::fromStdString(name))                      \
                                           .arg(tbCmp_.failing)                                    \
                                           .arg(tbCmp_.maxAbs)));                                  \
    } while (0)

// Skips the whole test class when no GPU can be used; ctest reports such a test as skipped.
#define TB_REQUIRE_GPU(backendPtr)                                                                 \
    do {                                                                                           \
        std::string tbReason_;                                                                     \
        backendPtr = ::tb::test::createGpuOrReason(tbReason_);                                     \
        if (!backendPtr)                                                                           \
            QSKIP(                                                                                 \
                qPrintable(QString("No usable GPU: %1").arg(QString::fromStdString(tbReason_))));  \
    } while (0)
