#include "reference/observables/propagator.h"

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "reference/spinor_algebra.h"

namespace lqcd {

PointPropagator::PointPropagator(const Lattice& lattice, int source_site)
    : lattice_(lattice), source_site_(source_site) {
  if (source_site < 0 || source_site >= lattice.volume()) {
    throw std::invalid_argument("PointPropagator: source site " + std::to_string(source_site) + " is not on " +
                                lattice.ToString());
  }
  // The 12 zero columns made at once, one per thread: a column is 2 GB at 48^3 x 96, and making one means
  // touching and zeroing every page of it (copies of one zero field cost a further pass each).
  std::vector<std::optional<SpinorField<double>>> made(12);
#pragma omp parallel for schedule(static, 1)
  for (int k = 0; k < 12; ++k) made[k].emplace(lattice);
  columns_.reserve(12);
  for (auto& column : made) columns_.push_back(std::move(*column));
}

int PointPropagator::ColumnIndex(int spin, int colour) {
  if (spin < 0 || spin >= 4 || colour < 0 || colour >= 3) {
    throw std::invalid_argument("PointPropagator: no column (spin " + std::to_string(spin) + ", colour " +
                                std::to_string(colour) + ")");
  }
  return 3 * spin + colour;
}

const SpinorField<double>& PointPropagator::Column(int spin, int colour) const {
  return columns_[ColumnIndex(spin, colour)];
}

void PointPropagator::SetColumn(int spin, int colour, SpinorField<double> column) {
  if (column.lattice() != lattice_ || column.subset() != Subset::kFull) {
    throw std::invalid_argument("PointPropagator::SetColumn: needs a full-lattice field on " + lattice_.ToString() +
                                ", got " + column.lattice().ToString() + " " + ToString(column.subset()));
  }
  columns_[ColumnIndex(spin, colour)] = std::move(column);
}

SpinorField<double>& PointPropagator::MutableColumn(int spin, int colour) { return columns_[ColumnIndex(spin, colour)]; }

SpinColorMatrix<double> PointPropagator::At(int site) const {
  SpinColorMatrix<double> s;
  for (int col = 0; col < 12; ++col) {
    const SiteSpinor<double>& psi = columns_[col][site];
    for (int sp = 0; sp < 4; ++sp) {
      for (int c = 0; c < 3; ++c) s(3 * sp + c, col) = psi(sp, c);
    }
  }
  return s;
}

PointPropagator ComputePointPropagator(const Lattice& lattice, int source_site, const PointSourceSolve& solve) {
  PointPropagator s(lattice, source_site);
  for (int spin = 0; spin < 4; ++spin) {
    for (int colour = 0; colour < 3; ++colour) {
      s.SetColumn(spin, colour, solve(PointSource<double>(lattice, source_site, spin, colour), spin, colour));
    }
  }
  return s;
}

namespace {

// Time slice of `site` counted from the source time slice.
int RelativeTime(const Lattice& lattice, int site, int t0) {
  const int lt = lattice.extent(3);
  return ((lattice.Coords(site)[3] - t0) % lt + lt) % lt;
}

}  // namespace

std::vector<double> PionCorrelator(const PointPropagator& s) {
  const Lattice& lattice = s.lattice();
  std::vector<double> c(lattice.extent(3), 0.0);
  const int t0 = s.source_time();
  // Each site's sum over the columns on any thread, then added into C(t) in site order: the same additions in
  // the same order whatever the number of threads.
  std::vector<double> site_sums(lattice.volume());
#pragma omp parallel for schedule(static)
  for (int site = 0; site < lattice.volume(); ++site) {
    double sum = 0;
    for (int spin = 0; spin < 4; ++spin) {
      for (int colour = 0; colour < 3; ++colour) sum += s.Column(spin, colour)[site].squaredNorm();
    }
    site_sums[site] = sum;
  }
  for (int site = 0; site < lattice.volume(); ++site) c[RelativeTime(lattice, site, t0)] += site_sums[site];
  return c;
}

std::vector<double> ColumnNorms(const PointPropagator& s) {
  std::vector<double> norms(12);
#pragma omp parallel for schedule(static, 1)
  for (int k = 0; k < 12; ++k) norms[k] = std::sqrt(Norm2(s.Column(k / 3, k % 3)));
  return norms;
}

std::vector<Complex<double>> PionCorrelatorFromContraction(const PointPropagator& s,
                                                           const PointPropagator& dagger_propagator,
                                                           GammaBasis basis) {
  if (s.lattice() != dagger_propagator.lattice() || s.source_site() != dagger_propagator.source_site()) {
    throw std::invalid_argument("PionCorrelatorFromContraction: the propagators have different lattices or sources");
  }
  const Lattice& lattice = s.lattice();
  // gamma_5 (x) 1_colour as a 12x12 matrix, index 3 s + c.
  SpinColorMatrix<double> g5 = SpinColorMatrix<double>::Zero();
  const SpinMatrix& gamma5 = Gamma5(basis);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      for (int c = 0; c < 3; ++c) g5(3 * a + c, 3 * b + c) = gamma5(a, b);
    }
  }
  std::vector<Complex<double>> c(lattice.extent(3), Complex<double>(0));
  const int t0 = s.source_time();
  for (int site = 0; site < lattice.volume(); ++site) {
    const SpinColorMatrix<double> forward = s.At(site);                                 // S(x; x0)
    const SpinColorMatrix<double> backward = dagger_propagator.At(site).adjoint();      // S(x0; x)
    c[RelativeTime(lattice, site, t0)] += (g5 * forward * g5 * backward).trace();
  }
  return c;
}

std::vector<double> KappaNormalisedCorrelator(const std::vector<double>& c, double kappa) {
  if (!(kappa > 0) || !std::isfinite(kappa)) {
    throw std::invalid_argument("KappaNormalisedCorrelator: kappa must be positive and finite");
  }
  std::vector<double> out(c.size());
  for (std::size_t t = 0; t < c.size(); ++t) out[t] = c[t] / (4 * kappa * kappa);
  return out;
}

std::vector<double> FoldCorrelator(const std::vector<double>& c) {
  if (c.empty()) throw std::invalid_argument("FoldCorrelator: empty correlator");
  const std::size_t lt = c.size();
  std::vector<double> out(lt);
  for (std::size_t t = 0; t < lt; ++t) out[t] = 0.5 * (c[t] + c[(lt - t) % lt]);
  return out;
}

std::vector<double> LogEffectiveMass(const std::vector<double>& c) {
  if (c.size() < 2) throw std::invalid_argument("LogEffectiveMass: needs at least 2 time slices");
  std::vector<double> m(c.size() - 1, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t t = 0; t + 1 < c.size(); ++t) {
    if (c[t] > 0 && c[t + 1] > 0) m[t] = std::log(c[t] / c[t + 1]);
  }
  return m;
}

namespace {

// log cosh(y) without overflow: |y| + log1p(exp(-2|y|)) - log 2.
double LogCosh(double y) {
  const double a = std::fabs(y);
  return a + std::log1p(std::exp(-2 * a)) - std::log(2.0);
}

}  // namespace

std::vector<double> CoshEffectiveMass(const std::vector<double>& c) {
  if (c.size() < 2 || c.size() % 2 != 0) {
    throw std::invalid_argument("CoshEffectiveMass: needs an even number (>= 2) of time slices, got " +
                                std::to_string(c.size()));
  }
  const double half = static_cast<double>(c.size()) / 2;
  std::vector<double> m(c.size() - 1, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t t = 0; t + 1 < c.size(); ++t) {
    if (!(c[t] > 0 && c[t + 1] > 0)) continue;
    const double target = std::log(c[t] / c[t + 1]);
    const double u = static_cast<double>(t) - half;
    // g(m) = log cosh(m u) - log cosh(m (u + 1)): increasing from 0 (u <= -1), decreasing from 0 (u >= 0).
    const double sign = u <= -1 ? 1.0 : -1.0;
    if (!(sign * target > 0)) continue;
    auto g = [&](double mass) { return sign * (LogCosh(mass * u) - LogCosh(mass * (u + 1))); };
    const double goal = sign * target;
    double lo = 0, hi = 1;
    while (g(hi) < goal) {
      lo = hi;
      hi *= 2;
      if (hi > 1e6) break;  // g(m) ~ m for large m: a ratio this large is not a mass
    }
    if (!(g(hi) >= goal)) continue;
    for (int i = 0; i < 200; ++i) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;  // bracket at the last bit
      (g(mid) < goal ? lo : hi) = mid;
    }
    m[t] = 0.5 * (lo + hi);
  }
  return m;
}

}  // namespace lqcd
