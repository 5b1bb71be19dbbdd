// su3_random.h: random SU(3) matrices and random gauge fields from the seeded Philox generator.
//
// Computes:
//   - HaarRandomSU3<T>(rng): one matrix distributed with the Haar measure of SU(3).
//   - RandomGaugeField<T>(lattice, seed): the "hot start", every link an independent Haar matrix.
//   - GaussianTracelessHermitian(rng), ExponentiateHermitian(h, epsilon) = exp(i epsilon h), and
//     RandomNearUnitGaugeField<T>(lattice, seed, epsilon): every link exp(i epsilon H) with an independent
//     random H, a smooth field for tests that need links close to the identity.
// The unit (free) field is GaugeField's default: GaugeField<T>(lattice) has every link = 1.
//
// Conventions (docs/conventions.md, "Random SU(3) matrices and gauge fields"):
//   - Reproducibility: link U_mu(n) of a random field uses RandomStream(seed, 4 * site + mu) and nothing else,
//     so a field depends only on (lattice, seed), never on loop order or machine. The fields are generated in
//     double and rounded to T, so the float field is the double field rounded. RandomGaugeField and
//     RandomNearUnitGaugeField with the SAME seed draw the same Gaussians; give independent fields
//     different seeds.
//   - Haar algorithm (Mezzadri, "How to generate random matrices from the classical compact groups",
//     Notices AMS 54 (2007)): Z = 3x3 matrix of independent standard complex Gaussians (E|z|^2 = 1);
//     Gram-Schmidt on its ROWS, Z = L Q with L lower triangular with a POSITIVE REAL diagonal; then
//     U = Q / (det Q)^(1/3) with the principal cube root.
//     Why Q is Haar on U(3): the law of Z is invariant under Z -> Z W for every unitary W (the rows are
//     isotropic Gaussian vectors). The decomposition Z = L Q with diag(L) > 0 is unique, and
//     Z W = L (Q W) is such a decomposition, so Q(Z W) = Q(Z) W: the law of Q is right-invariant, and the
//     only right-invariant probability measure on the compact group U(3) is the Haar measure. (The "phase
//     fix" of Mezzadri, multiplying by the phases of diag(R), is what makes a LAPACK-style Householder QR
//     unique; Gram-Schmidt has a positive diagonal by construction, so no fix is needed.)
//     Why U is Haar on SU(3): write f(Q) = Q e^{-i phi(Q) / 3}, phi = arg det Q in (-pi, pi]. For any
//     V in SU(3), det(V Q) = det Q, so phi(V Q) = phi(Q) (same branch) and f(V Q) = V f(Q). Hence the law
//     of U = f(Q) is invariant under U -> V U for all V in SU(3), and the Haar measure is the only such
//     probability measure on SU(3).
//     Numerics: the rows are orthogonalised twice ("twice is enough", Giraud, Langou, Rozloznik 2005), so
//     orthogonality holds to a few ulp however ill-conditioned Z is. The third row of U is then computed as
//     ThirdRow(a', b') = conj(a' x b') from the first two rows a' = w a, b' = w b, w = e^{-i phi/3}; this
//     equals w c exactly in exact arithmetic (for unitary Q, c = det(Q) conj(a x b)), and makes det U real
//     and positive to rounding.
//   - Near-unit links: H = sum_{a=1..8} h_a lambda_a / 2 with independent standard normal h_a and the
//     Gell-Mann matrices lambda_a (so E[Tr H^2] = 4); U = exp(i epsilon H), computed from the eigenvectors of
//     H as U = 1 + V (e^{i epsilon lambda} - 1) V^dag with e^{ix} - 1 = -2 sin^2(x/2) + i sin x, so U - 1 is
//     accurate to rounding RELATIVE to its size epsilon |H|.
// Errors: a negative or non-finite epsilon throws std::invalid_argument.
// Aliasing: none (everything returns new values).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "reference/gauge_field.h"
#include "reference/random.h"
#include "reference/su3.h"
#include "reference/types.h"

namespace lqcd {

// (g1 + i g2) / sqrt(2) with independent standard normals g1, g2: E z = 0, E |z|^2 = 1.
template <typename T>
Complex<T> ComplexGaussian(RandomStream& rng) {
  const double re = rng.Gaussian(), im = rng.Gaussian();
  return Complex<T>(static_cast<T>(re * M_SQRT1_2), static_cast<T>(im * M_SQRT1_2));
}

namespace internal {

template <typename T>
using Row3 = Eigen::Matrix<Complex<T>, 1, 3>;

// <a, v> = sum_i conj(a_i) v_i.
template <typename T>
Complex<T> RowInner(const Row3<T>& a, const Row3<T>& v) {
  return a.conjugate().cwiseProduct(v).sum();
}

// Removes from v its components along the orthonormal rows q[0..count-1], in two passes, and normalises.
// Throws std::runtime_error if nothing is left (a zero-probability event for Gaussian rows).
template <typename T>
Row3<T> OrthonormaliseAgainst(Row3<T> v, const Row3<T>* q, int count) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < count; ++k) v -= RowInner(q[k], v) * q[k];
  }
  const T norm = v.norm();
  if (!(norm > T(0)) || !std::isfinite(norm)) {
    throw std::runtime_error("HaarRandomSU3: Gaussian rows are linearly dependent (probability zero); " +
                             std::string("norm of the orthogonalised row = ") + std::to_string(double(norm)));
  }
  return v / norm;
}

}  // namespace internal

// One Haar-distributed SU(3) matrix, computed in arithmetic of type T (float, double or long double;
// the Gaussians themselves are doubles). Consumes 18 Gaussians from rng.
template <typename T>
ColorMatrix<T> HaarRandomSU3(RandomStream& rng) {
  internal::Row3<T> z[3];
  for (auto& row : z) {
    for (int j = 0; j < 3; ++j) row(j) = ComplexGaussian<T>(rng);
  }
  internal::Row3<T> q[3];
  for (int i = 0; i < 3; ++i) q[i] = internal::OrthonormaliseAgainst<T>(z[i], q, i);
  // det Q = c . (a x b) = <conj(a x b), c> = <ThirdRow(a, b), c>.
  const Complex<T> det_q = internal::RowInner<T>(ThirdRow<T>(q[0], q[1]), q[2]);
  const T phi = std::arg(det_q);
  const Complex<T> w = std::polar(T(1), -phi / T(3));
  ColorMatrix<T> u;
  u.row(0) = w * q[0];
  u.row(1) = w * q[1];
  u.row(2) = ThirdRow<T>(u.row(0), u.row(1));
  return u;
}

// The hot start: U_mu(n) = HaarRandomSU3 from RandomStream(seed, 4 * site + mu), in double, rounded to T.
template <typename T>
GaugeField<T> RandomGaugeField(const Lattice& lattice, std::uint64_t seed) {
  GaugeField<T> u(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(seed, kDims * static_cast<std::uint64_t>(site) + mu);
      u.Link(site, mu) = HaarRandomSU3<double>(rng).template cast<Complex<T>>();
    }
  }
  return u;
}

// H = sum_a h_a lambda_a / 2, h_a independent standard normals (8 Gaussians from rng, in the order a = 1..8).
// H is exactly Hermitian; its trace is zero to rounding.
ColorMatrix<double> GaussianTracelessHermitian(RandomStream& rng);

// exp(i epsilon h) for Hermitian h (checked to within 1e-12 |h|; std::invalid_argument otherwise), via the
// eigen-decomposition of h; U - 1 is accurate relative to epsilon |h| (see the file comment).
ColorMatrix<double> ExponentiateHermitian(const ColorMatrix<double>& h, double epsilon);

// exp(i epsilon H) with H = GaussianTracelessHermitian(rng): in SU(3), within about epsilon |H| of 1.
template <typename T>
ColorMatrix<T> NearUnitSU3(RandomStream& rng, double epsilon) {
  return ExponentiateHermitian(GaussianTracelessHermitian(rng), epsilon).template cast<Complex<T>>();
}

// Every link exp(i epsilon H) from RandomStream(seed, 4 * site + mu), in double, rounded to T.
// epsilon = 0 gives the unit field; small epsilon a smooth field (plaquette 1 - O(epsilon^2)).
template <typename T>
GaugeField<T> RandomNearUnitGaugeField(const Lattice& lattice, std::uint64_t seed, double epsilon) {
  if (!(epsilon >= 0) || !std::isfinite(epsilon)) {
    throw std::invalid_argument("RandomNearUnitGaugeField: epsilon = " + std::to_string(epsilon) +
                                " must be finite and non-negative");
  }
  GaugeField<T> u(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(seed, kDims * static_cast<std::uint64_t>(site) + mu);
      u.Link(site, mu) = NearUnitSU3<T>(rng, epsilon);
    }
  }
  return u;
}

}  // namespace lqcd
