// staggered_blas.h: the vector operations the staggered solvers need, on device colour-vector fields of one
// parity (device_colour_vector_field.h), in double or single precision: the semantics of the CPU staggered
// backend (solvers/cpu_staggered.h): each operation in the fields' precision with the scalars rounded to it,
// reductions accumulated in double and deterministic (staggered_blas_launch.h: a fixed grid and fixed-order
// sums), returned to the host (each reduction waits for the device).
//
// Host-only header. Errors (std::invalid_argument, before any launch): fields of different lattices, parities or
// precisions; half-precision fields (the Dslash's only: a site's components share one norm).
#pragma once

#include <complex>

#include "gpu/device_colour_vector_field.h"

namespace lqcd::gpu::staggered_blas {

void Zero(DeviceColourVectorField& x);                                         // x = 0
void Copy(DeviceColourVectorField& y, const DeviceColourVectorField& x);       // y = x, bit for bit
void Convert(DeviceColourVectorField& y, const DeviceColourVectorField& x);    // y = x rounded to y's precision
double Norm2(const DeviceColourVectorField& x);                                // |x|^2
double ReDot(const DeviceColourVectorField& x, const DeviceColourVectorField& y);             // Re (x, y)
std::complex<double> Dot(const DeviceColourVectorField& x, const DeviceColourVectorField& y);  // (x, y)
bool AllFinite(const DeviceColourVectorField& x);
void Axpy(double a, const DeviceColourVectorField& x, DeviceColourVectorField& y);        // y += a x
void Caxpy(std::complex<double> a, const DeviceColourVectorField& x, DeviceColourVectorField& y);  // y += a x
double AxpyNorm(double a, const DeviceColourVectorField& x, DeviceColourVectorField& y);  // y += a x; |y|^2
void Xpay(const DeviceColourVectorField& x, double a, DeviceColourVectorField& y);        // y = x + a y
// x += alpha p; p = r + beta p (the old p in both): CG's solution update and next direction in one pass.
void CgSolutionDirection(double alpha, double beta, const DeviceColourVectorField& r, DeviceColourVectorField& x,
                         DeviceColourVectorField& p);

}  // namespace lqcd::gpu::staggered_blas
