// deviation_cdf.cc: see deviation_cdf.h.
#include "gpu/deviation_cdf.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lqcd::gpu {

std::vector<double> ComponentDeviations(const SpinorField<double>& a, const SpinorField<double>& b) {
  RequireCompatible(a, b, "ComponentDeviations");
  std::vector<double> d;
  d.reserve(12 * static_cast<std::size_t>(a.sites()));
  for (int i = 0; i < a.sites(); ++i) {
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) d.push_back(std::abs(a[i](s, c) - b[i](s, c)));
    }
  }
  return d;
}

std::vector<double> ExceedanceFractions(std::vector<double> deviations, const std::vector<double>& eps) {
  if (deviations.empty()) throw std::invalid_argument("ExceedanceFractions: no deviations");
  // NaN exceeds everything: map it to +infinity so that sorting and comparisons treat it so.
  for (double& d : deviations) {
    if (std::isnan(d)) d = INFINITY;
  }
  std::sort(deviations.begin(), deviations.end());
  std::vector<double> fractions;
  fractions.reserve(eps.size());
  for (double e : eps) {
    const auto first_at_least = std::lower_bound(deviations.begin(), deviations.end(), e);
    fractions.push_back(static_cast<double>(deviations.end() - first_at_least) / deviations.size());
  }
  return fractions;
}

std::vector<double> LogGrid(double first, double last, int per_decade) {
  if (!(first > 0 && first <= last && per_decade >= 1 && std::isfinite(last))) {
    throw std::invalid_argument("LogGrid: needs 0 < first <= last (finite) and per_decade >= 1");
  }
  std::vector<double> grid;
  const double start = std::log10(first), stop = std::log10(last);
  const int steps = static_cast<int>(std::floor((stop - start) * per_decade + 1e-9));
  for (int k = 0; k <= steps; ++k) grid.push_back(std::pow(10.0, start + static_cast<double>(k) / per_decade));
  return grid;
}

}  // namespace lqcd::gpu
