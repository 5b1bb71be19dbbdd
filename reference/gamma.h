// gamma.h: Euclidean gamma matrices in two bases, and the change of basis between them.
//
// Both bases are Hermitian, {gamma_mu, gamma_nu} = 2 delta_mu,nu, and gamma_5 = gamma_1 gamma_2 gamma_3 gamma_4.
// Directions mu = 0..3 here are the paper's 1..4 (x, y, z, t).
//
//   kDeGrandRossi: the chiral basis of the paper's Appendix B (that of Chroma and MILC). Its projectors
//     1 +- gamma_mu all have four non-zero entries per row pair, so every hop loads the full spinor.
//     gamma_5 = diag(1, 1, -1, -1).
//   kUkqcd: the "non-relativistic" basis with gamma_4 diagonal, gamma_4 = diag(1, 1, -1, -1), so the
//     temporal projectors 1 - gamma_4 = diag(0, 0, 2, 2) and 1 + gamma_4 = diag(2, 2, 0, 0) keep only
//     the lower or upper two spin components. It is obtained as
//         gamma_mu(UKQCD) = S gamma_mu(DeGrand-Rossi) S^dag,   S = (1/sqrt 2) [[1, 1], [1, -1]] (x) 1_2,
//     (2x2 blocks in spin), and spinors transform as psi(UKQCD) = S psi(DeGrand-Rossi).
//     S is real, symmetric and its own inverse. See docs/conventions.md.
#pragma once

#include "reference/types.h"

namespace lqcd {

enum class GammaBasis { kDeGrandRossi, kUkqcd };

inline const char* ToString(GammaBasis b) { return b == GammaBasis::kDeGrandRossi ? "DeGrand-Rossi" : "UKQCD"; }

// gamma_mu, mu = 0..3 (x, y, z, t).
const SpinMatrix& Gamma(GammaBasis basis, int mu);

// gamma_5 = gamma_1 gamma_2 gamma_3 gamma_4 in the given basis.
const SpinMatrix& Gamma5(GammaBasis basis);

// S with psi(UKQCD) = S psi(DeGrand-Rossi) and gamma(UKQCD) = S gamma(DeGrand-Rossi) S^dag.
const SpinMatrix& DeGrandRossiToUkqcd();

// The spin projector 1 + sign * gamma_mu (sign = +1 or -1); the paper's P^{+-mu}.
SpinMatrix Projector(GammaBasis basis, int mu, int sign);

}  // namespace lqcd
