// blas_launch.h: the plain-struct interface between blas.cc (which has checked shapes and precisions)
// and the kernels of blas.cu. Internal to gpu/; no CUDA or Eigen types.
#pragma once

#include "gpu/blas_operation.h"
#include "gpu/field_views.h"
#include "gpu/precision.h"

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
  // BicgstabDirection: {r, v, p}; BicgstabUpdate: {p, t, x, r, r0}; Convert: {y, x}.
  FieldRef field[5];
  // Scalars: a = (re, im) of the first scalar (a, alpha, beta), b = of the second (omega).
  double a[2] = {0, 0};
  double b[2] = {0, 0};
};

// Runs the operation; reductions write their doubles to result (Norm2, ReDot, AllFinite, AxpyNorm,
// CaxpyNorm, CgUpdate: 1; Dot: re, im; DotNorm: re, im, norm2; BicgstabUpdate: norm2, re, im) after
// waiting for the device. Element-wise operations return at once (queued on the default stream).
void LaunchBlas(const BlasLaunch& launch, double* result);

// Raw copy of one parity block (words and norms) between views of the same precision and any strides.
void CopyParityStorage(const SpinorView& to, const ConstSpinorView& from);

}  // namespace lqcd::gpu::blas
