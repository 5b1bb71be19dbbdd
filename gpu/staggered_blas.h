// staggered_blas.h: the vector operations the staggered solvers need, on device colour-vector fields of one
// parity (device_colour_vector_field.h), in double, single or half precision: the semantics of the CPU staggered
// backend (solvers/cpu_staggered.h): each operation in the fields' precision with the scalars rounded to it,
// reductions accumulated in double and deterministic (staggered_blas_launch.h: a fixed grid and fixed-order
// sums). Deferred scalars (device_scalar.h, as gpu/blas.h): the *Deferred reductions return a DeviceReal at once,
// which the host reads when it needs it (Host() waits for that reduction only) and which later operations take
// as their scalar (or arithmetic on it: CG's alpha = rr / (p, A p) is then computed by the device, with the
// host's roundings), so the device never waits for the host between two kernels; the other reductions return
// numbers and wait. A number converts to a DeviceReal implicitly and goes to the kernel as an argument.
// Half (the low precision of the reliable-update solvers, as the Wilson half spinors in gpu/blas.h): every
// operation reads the values as stored (level * norm / 32767), computes in float as single precision does, and
// re-quantises each site it writes (norm = the site's largest |real|, each real the nearest of 32767 levels of
// it; a NaN or Inf makes the norm NaN, so AllFinite still sees it); reductions (Norm2, ReDot, Dot and AxpyNorm's
// norm) are of the values as stored, accumulated in double. Zero stores zero levels and norms; Copy copies the
// levels and norms bit for bit.
//
// Host-only header. Errors (std::invalid_argument, before any launch): fields of different lattices or parities;
// fields of different precisions, except in Convert (any pair of double, single and half); x the same field as p
// or r in CgSolutionDirection (each site reads r, x and p before it writes x and p).
#pragma once

#include <complex>
#include <cstdint>

#include "gpu/device_colour_vector_field.h"
#include "gpu/device_scalar.h"

namespace lqcd::gpu::staggered_blas {

void Zero(DeviceColourVectorField& x);                                         // x = 0
void Copy(DeviceColourVectorField& y, const DeviceColourVectorField& x);       // y = x, bit for bit (same pad)
void Convert(DeviceColourVectorField& y, const DeviceColourVectorField& x);    // y = x rounded to y's precision
// x = Z2 noise of `seed` on x's parity: the sites of solvers/staggered_pbp.h's FillZ2Noise(full, seed), bit for bit
// (each colour (+-1, 0) from the Philox stream of the site's lexicographic index; staggered_blas_launch.h).
void FillZ2Noise(DeviceColourVectorField& x, std::uint64_t seed);
double Norm2(const DeviceColourVectorField& x);                                // |x|^2
double ReDot(const DeviceColourVectorField& x, const DeviceColourVectorField& y);             // Re (x, y)
DeviceReal Norm2Deferred(const DeviceColourVectorField& x);
DeviceReal ReDotDeferred(const DeviceColourVectorField& x, const DeviceColourVectorField& y);
std::complex<double> Dot(const DeviceColourVectorField& x, const DeviceColourVectorField& y);  // (x, y)
bool AllFinite(const DeviceColourVectorField& x);
void Axpy(const DeviceReal& a, const DeviceColourVectorField& x, DeviceColourVectorField& y);  // y += a x
void Caxpy(std::complex<double> a, const DeviceColourVectorField& x, DeviceColourVectorField& y);  // y += a x
double AxpyNorm(const DeviceReal& a, const DeviceColourVectorField& x, DeviceColourVectorField& y);  // y += a x; |y|^2
DeviceReal AxpyNormDeferred(const DeviceReal& a, const DeviceColourVectorField& x, DeviceColourVectorField& y);
void Xpay(const DeviceColourVectorField& x, const DeviceReal& a, DeviceColourVectorField& y);  // y = x + a y
// x += alpha p; p = r + beta p (the old p in both): CG's solution update and next direction in one pass.
void CgSolutionDirection(const DeviceReal& alpha, const DeviceReal& beta, const DeviceColourVectorField& r,
                         DeviceColourVectorField& x, DeviceColourVectorField& p);

}  // namespace lqcd::gpu::staggered_blas
