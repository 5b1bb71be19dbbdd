// u3_projection.h: the U(3) projection of one colour matrix, W = V (V^dag V)^(-1/2), written once for the host
// and the GPU: the HISQ links' first level on the device (gpu/hisq_smearing.h) calls it in a kernel, and the host
// build of the same function is what the tests compare the device's links with, bit for bit.
//
// What is computed: the polar factor W of V = W (V^dag V)^(1/2) by the oracle's construction
// (reference/staggered/hisq_links.h, ProjectU3): with V^dag V = sum_i lambda_i v_i v_i^dag (lambda descending),
// u_i = V v_i / |V v_i| re-orthonormalised by two Gram-Schmidt passes, W = sum_i u_i v_i^dag; an eigenvalue at or
// below kCutoff x lambda_0 (the oracle's kU3ProjectionCutoff) gives no direction of its own, and u_i is completed to
// an orthonormal basis (conj(u_0 x u_1) for the last one, else the unit vector least parallel to the u_j before it).
// Only the eigen-decomposition differs from the oracle's (which uses Eigen's tridiagonal QR): cyclic Jacobi
// rotations of the Hermitian 3x3 V^dag V (Golub and Van Loan, "Matrix Computations", 4th ed., section 8.5.2, the
// 2x2 symmetric Schur decomposition, made complex by a phase that turns the off-diagonal element real). A rotation
// is skipped when its element is at most kRotationThreshold x trace(V^dag V) (below the rounding of V^dag V's
// entries, about 3 u |V|^2), and the sweeps stop at the first that rotates nothing. So the eigenvalues and
// eigenvectors carry the oracle's error bound (a few tens of u relative to |V|^2, moving W by at most that over
// lambda_min: the oracle test's ProjectionError(kappa)), and W agrees with the oracle's within twice that bound
// (u3_projection_test.cc, on the host).
//
// Arithmetic: additions, multiplications, divisions and square roots only, each IEEE double correctly rounded, in
// the order written; the device build has no fused multiply-adds (the kernel's file is compiled with --fmad=false)
// and the host targets x86-64 without FMA, so the host and the device compute the same bits.
//
// Storage: 18 doubles, element (i, j) = row i, column j at k = i + 3 j (Eigen's column-major order, a
// ColorMatrix<double>'s own layout), real part at 2 k, imaginary part at 2 k + 1.
// Aliasing: w may not be v.
#pragma once

#include <cmath>

#ifndef LQCD_HOST_DEVICE
#ifdef __CUDACC__
#define LQCD_HOST_DEVICE __host__ __device__
#else
#define LQCD_HOST_DEVICE
#endif
#endif

namespace lqcd::gpu::u3 {

inline constexpr double kUnitRoundoff = 0x1p-53;
inline constexpr double kCutoff = 64 * kUnitRoundoff;  // = reference kU3ProjectionCutoff (the test checks)
inline constexpr double kRotationThreshold = kUnitRoundoff / 8;
inline constexpr int kMaxSweeps = 16;  // cyclic Jacobi converges quadratically: 3x3 matrices need about 4-6

enum class Status : int { kOk = 0, kNotFinite = 1, kNoConvergence = 2 };

struct Complex {
  double re, im;
};

LQCD_HOST_DEVICE inline Complex Times(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
LQCD_HOST_DEVICE inline Complex ConjTimes(Complex a, Complex b) {  // conj(a) b
  return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}
LQCD_HOST_DEVICE inline Complex Conj(Complex a) { return {a.re, -a.im}; }
LQCD_HOST_DEVICE inline double Norm2(Complex a) { return a.re * a.re + a.im * a.im; }
// x - x is 0 for every finite x and NaN for an infinity or a NaN (no isfinite: the same spelling on both sides).
LQCD_HOST_DEVICE inline bool Finite(double x) { return x - x == 0.0; }

// A 3x3 complex matrix, m[i][j] = row i, column j.
struct Matrix {
  Complex m[3][3];
};

// The rotation in the (p, q) plane that zeroes A_pq of the Hermitian A (the third index k = 3 - p - q):
// with A_pq = r e, |e| = 1, and G = diag(1, conj e) J, J = [[c, s], [-s, c]] the real symmetric Schur rotation
// of [[a, r], [r, b]] (tau = (b - a) / 2r, t = sign(tau) / (|tau| + sqrt(1 + tau^2)), c = 1 / sqrt(1 + t^2),
// s = t c), A becomes G^dag A G (diagonal a - t r and b + t r, A_pq = 0) and the eigenvectors E become E G.
LQCD_HOST_DEVICE inline void Rotate(Matrix& a, Matrix& e, int p, int q) {
  const int k = 3 - p - q;
  const Complex apq = a.m[p][q];
  const double r = sqrt(Norm2(apq));
  const Complex phase = {apq.re / r, apq.im / r};
  const double app = a.m[p][p].re, aqq = a.m[q][q].re;
  const double tau = (aqq - app) / (2 * r);
  const double t = (tau >= 0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1 + tau * tau));
  const double c = 1 / sqrt(1 + t * t);
  const double s = t * c;
  a.m[p][p] = {app - t * r, 0};
  a.m[q][q] = {aqq + t * r, 0};
  a.m[p][q] = a.m[q][p] = {0, 0};
  // Row k of A G (columns p and q mix); rows p and q of G^dag A are its conjugates, A staying Hermitian.
  const Complex x = a.m[k][p];
  const Complex y = ConjTimes(phase, a.m[k][q]);  // conj(e) A_kq
  a.m[k][p] = {c * x.re - s * y.re, c * x.im - s * y.im};
  a.m[k][q] = {s * x.re + c * y.re, s * x.im + c * y.im};
  a.m[p][k] = Conj(a.m[k][p]);
  a.m[q][k] = Conj(a.m[k][q]);
  for (int i = 0; i < 3; ++i) {
    const Complex ex = e.m[i][p];
    const Complex ey = ConjTimes(phase, e.m[i][q]);
    e.m[i][p] = {c * ex.re - s * ey.re, c * ex.im - s * ey.im};
    e.m[i][q] = {s * ex.re + c * ey.re, s * ex.im + c * ey.im};
  }
}

// y -= (x, y) x for the unit vector x ((x, y) conjugates x).
LQCD_HOST_DEVICE inline void RemoveComponent(const Complex (&x)[3], Complex (&y)[3]) {
  Complex d = {0, 0};
  for (int r = 0; r < 3; ++r) {
    const Complex xy = ConjTimes(x[r], y[r]);
    d = {d.re + xy.re, d.im + xy.im};
  }
  for (int r = 0; r < 3; ++r) {
    const Complex dx = Times(d, x[r]);
    y[r] = {y[r].re - dx.re, y[r].im - dx.im};
  }
}

LQCD_HOST_DEVICE inline double VectorNorm(const Complex (&y)[3]) { return sqrt(Norm2(y[0]) + Norm2(y[1]) + Norm2(y[2])); }

// The unit vector of the standard basis least parallel to the orthonormal left[0 .. count - 1], orthonormalised
// against them by two passes (the oracle's CompleteBasis).
LQCD_HOST_DEVICE inline void CompleteBasis(Complex (&left)[3][3], int count) {
  Complex best[3] = {};
  double best_norm = -1;
  for (int unit = 0; unit < 3; ++unit) {
    Complex y[3] = {};
    y[unit] = {1, 0};
    for (int pass = 0; pass < 2; ++pass) {
      for (int j = 0; j < count; ++j) RemoveComponent(left[j], y);
    }
    const double norm = VectorNorm(y);
    if (norm > best_norm) {
      best_norm = norm;
      for (int r = 0; r < 3; ++r) best[r] = y[r];
    }
  }
  for (int r = 0; r < 3; ++r) left[count][r] = {best[r].re / best_norm, best[r].im / best_norm};
}

// w = the U(3) projection of v (layouts in the file comment). kNotFinite: an entry of v is not finite (w is
// unchanged); kNoConvergence: kMaxSweeps sweeps left an element above the threshold (w unchanged).
LQCD_HOST_DEVICE inline Status ProjectU3(const double* v, double* w) {
  Matrix vm;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      const int k = i + 3 * j;
      vm.m[i][j] = {v[2 * k], v[2 * k + 1]};
      if (!Finite(v[2 * k]) || !Finite(v[2 * k + 1])) return Status::kNotFinite;
    }
  }
  // A = V^dag V (Hermitian: the upper triangle computed, the diagonal real), E = 1.
  Matrix a, e;
  for (int i = 0; i < 3; ++i) {
    for (int j = i; j < 3; ++j) {
      Complex sum = {0, 0};
      for (int r = 0; r < 3; ++r) {
        const Complex term = ConjTimes(vm.m[r][i], vm.m[r][j]);
        sum = {sum.re + term.re, sum.im + term.im};
      }
      if (i == j) sum.im = 0;
      a.m[i][j] = sum;
      a.m[j][i] = Conj(sum);
    }
    for (int j = 0; j < 3; ++j) e.m[i][j] = {i == j ? 1.0 : 0.0, 0};
  }
  const double threshold = kRotationThreshold * (a.m[0][0].re + a.m[1][1].re + a.m[2][2].re);
  bool converged = false;
  for (int sweep = 0; sweep < kMaxSweeps && !converged; ++sweep) {
    converged = true;
    const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (const auto& pq : pairs) {
      if (sqrt(Norm2(a.m[pq[0]][pq[1]])) <= threshold) continue;
      Rotate(a, e, pq[0], pq[1]);
      converged = false;
    }
  }
  if (!converged) return Status::kNoConvergence;

  // Eigenpairs in descending order of the eigenvalue (ties: the lower index first).
  int order[3] = {0, 1, 2};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2 - i; ++j) {
      if (a.m[order[j + 1]][order[j + 1]].re > a.m[order[j]][order[j]].re) {
        const int swap = order[j];
        order[j] = order[j + 1];
        order[j + 1] = swap;
      }
    }
  }
  double lambda[3];
  Complex right[3][3], left[3][3];
  for (int i = 0; i < 3; ++i) {
    lambda[i] = a.m[order[i]][order[i]].re;
    for (int r = 0; r < 3; ++r) right[i][r] = e.m[r][order[i]];
  }
  const double cutoff = kCutoff * lambda[0];
  for (int i = 0; i < 3; ++i) {
    if (lambda[i] > cutoff && lambda[i] > 0) {
      Complex y[3];
      for (int r = 0; r < 3; ++r) {  // y = V v_i
        Complex sum = {0, 0};
        for (int c = 0; c < 3; ++c) {
          const Complex term = Times(vm.m[r][c], right[i][c]);
          sum = {sum.re + term.re, sum.im + term.im};
        }
        y[r] = sum;
      }
      for (int pass = 0; pass < 2; ++pass) {
        for (int j = 0; j < i; ++j) RemoveComponent(left[j], y);
      }
      const double norm = VectorNorm(y);
      if (norm > 0 && Finite(norm)) {
        for (int r = 0; r < 3; ++r) left[i][r] = {y[r].re / norm, y[r].im / norm};
        continue;
      }
    }
    if (i == 2) {  // conj(u_0 x u_1): orthogonal to both, unit length in exact arithmetic
      const Complex(&x)[3] = left[0];
      const Complex(&z)[3] = left[1];
      for (int r = 0; r < 3; ++r) {
        const int r1 = (r + 1) % 3, r2 = (r + 2) % 3;
        const Complex p = Times(x[r1], z[r2]), m = Times(x[r2], z[r1]);
        left[2][r] = Conj({p.re - m.re, p.im - m.im});
      }
    } else {
      CompleteBasis(left, i);
    }
  }
  // W = sum_i u_i v_i^dag.
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      Complex sum = {0, 0};
      for (int n = 0; n < 3; ++n) {
        const Complex term = Times(left[n][i], Conj(right[n][j]));
        sum = {sum.re + term.re, sum.im + term.im};
      }
      const int k = i + 3 * j;
      w[2 * k] = sum.re;
      w[2 * k + 1] = sum.im;
    }
  }
  return Status::kOk;
}

}  // namespace lqcd::gpu::u3
