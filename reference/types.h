// types.h: the small fixed-size Eigen types the CPU oracle is written in.
//
// Conventions (docs/conventions.md):
//   - Colour vectors and SU(3) links are 3-component / 3x3 complex matrices; a link acts on colour by
//     ordinary matrix-vector product, U * v.
//   - A spinor at one site is a 4x3 complex matrix psi(s, c): row = spin index s (0..3), column = colour
//     index c (0..2). A spin matrix G (4x4) acts as G * psi; a colour matrix U acts as psi * U^T
//     (each row, i.e. each spin component, is a colour vector multiplied by U).
//   - Real type T is a template parameter (double or float). Spin matrices (gamma matrices, projectors)
//     are exact small integers and i's, stored in double and cast where needed.
#pragma once

#include <Eigen/Core>
#include <complex>

namespace lqcd {

template <typename T>
using Complex = std::complex<T>;

template <typename T>
using ColorVector = Eigen::Matrix<Complex<T>, 3, 1>;

template <typename T>
using ColorMatrix = Eigen::Matrix<Complex<T>, 3, 3>;

// One site's spinor: rows are spin, columns are colour (see file comment).
template <typename T>
using SiteSpinor = Eigen::Matrix<Complex<T>, 4, 3>;

// Spin-space 4x4 matrix (gamma matrices, projectors), exact in double.
using SpinMatrix = Eigen::Matrix<Complex<double>, 4, 4>;

// 12x12 matrix on one site's spin x colour space, index 3*s + c (clover blocks, sparse assembly).
template <typename T>
using SpinColorMatrix = Eigen::Matrix<Complex<T>, 12, 12>;

// Number of space-time dimensions; directions mu = 0, 1, 2, 3 are x, y, z, t (the paper's mu = 1..4).
inline constexpr int kDims = 4;

}  // namespace lqcd
