// deviation_cdf.h: the paper's accuracy measure (section 4.7, Eq. (3)). For the output of a GPU kernel and of
// the double-precision CPU oracle on the same input,
//     Delta(eps) = (1/N) sum_i delta_i(eps),   delta_i(eps) = 1 if |gpu_i - cpu_i| >= eps, else 0,
// over the N degrees of freedom of the output. We take the degrees of freedom to be the complex components
// (site, spin, colour) -- 12 per site -- and |.| the complex modulus: the ABSOLUTE deviation, as Eq. (3)
// writes it (no division by |cpu_i|). Delta is a stochastic estimate of the complementary CDF of the error.
//
// Host-only, no GPU. A non-finite deviation (NaN from a broken kernel) counts as exceeding every eps.
#pragma once

#include <vector>

#include "reference/spinor_field.h"

namespace lqcd::gpu {

// |a_i - b_i| for every complex component, in the fields' storage order. Same lattice and subset required
// (std::invalid_argument otherwise).
std::vector<double> ComponentDeviations(const SpinorField<double>& a, const SpinorField<double>& b);

// Delta(eps) for each eps in `eps` (any order): the fraction of `deviations` that are >= eps (NaN counts).
// Empty deviations: std::invalid_argument.
std::vector<double> ExceedanceFractions(std::vector<double> deviations, const std::vector<double>& eps);

// first, first * 10^(1/per_decade), ..., up to last (inclusive within rounding): a logarithmic grid.
// Needs 0 < first <= last and per_decade >= 1.
std::vector<double> LogGrid(double first, double last, int per_decade);

}  // namespace lqcd::gpu
