// blas_launch.h: the plain-struct interface between blas.cc (which has checked shapes and precisions)
// and the kernels of blas.cu. Internal to gpu/; no CUDA or Eigen types.
#pragma once

#include <memory>

#include "gpu/blas_operation.h"
#include "gpu/field_views.h"
#include "gpu/precision.h"
#include "gpu/scalar_program.h"

namespace lqcd::gpu::blas {

// One field of a call: the storage of each parity block it holds (parity block 1 only for full fields).
struct FieldRef {
  void* data[2] = {nullptr, nullptr};
  float* norm[2] = {nullptr, nullptr};  // half only
  int stride = 0;                       // sites per parity + pad
};

struct BlasLaunch {
  Operation op = Operation::kNorm2;
  Precision precision = Precision::kDouble;     // of every field (Convert: of the output)
  Precision in_precision = Precision::kDouble;  // Convert: of the input
  int sites = 0;                                // per parity block
  int parities = 1;                             // 1 or 2
  // Fields in the order of the operation's arguments in blas.h, e.g. Axpy: {x, y}; CgUpdate: {p, q, x, r};
  // BicgstabDirection: {r, v, p}; BicgstabUpdate: {p, t, x, r, r0};
  // BicgstabResidual: {t, s, r0}; BicgstabSolution: {p, s, x}; CgSolutionDirection: {r, x, p}; Convert: {y, x}.
  FieldRef field[5];
  // Scalars: a = (re, im) of the first scalar (a, alpha, beta), b = of the second (omega); or, when
  // `device_scalars`, the programs of deferred values (device_scalar.h) that the kernel evaluates.
  double a[2] = {0, 0};
  double b[2] = {0, 0};
  bool device_scalars = false;
  ScalarPair scalar_programs;
  // kSumPartials: `sites` groups of 3 doubles at `partials`; kSumRealPartials: `sites` doubles there, and with
  // `ranges` > 1 (at most 4) that many such runs one after another, each summed into its own double (no fields;
  // parities 1, precision double).
  const double* partials = nullptr;
  int ranges = 1;
  // Reductions: where the last block writes the result (a ScalarSlot's device copy and the device address of
  // its pinned host copy). Null for element-wise operations.
  double* result_device = nullptr;
  double* result_host = nullptr;
};

// Queues the operation on the default stream and returns at once; a reduction writes its doubles (Norm2,
// ReDot, AllFinite, AxpyNorm, CaxpyNorm, CgUpdate: 1; Dot: re, im; DotNorm: re, im, norm2; BicgstabUpdate and
// BicgstabResidual: norm2, re, im) to both result addresses when it completes.
void LaunchBlas(const BlasLaunch& launch);

// blas.cc: queues the one-thread kernel that evaluates `programs` into a fresh slot (device_scalar.h) and returns
// the device address of the values (a.re, a.im, b.re, b.im); `slot` keeps the slot until the caller has queued
// its kernel.
const double* EvaluatedBeforehand(const ScalarPair& programs, std::shared_ptr<void>& slot);

// Raw copy of one parity block (words and norms) between views of the same precision and any strides.
void CopyParityStorage(const SpinorView& to, const ConstSpinorView& from);

}  // namespace lqcd::gpu::blas
