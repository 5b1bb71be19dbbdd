#include "reference/observables/free_wilson.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace lqcd {

namespace {

constexpr double kPi = 3.14159265358979323846;

void CheckMass(double mass) {
  if (!(4 + mass > 0) || !std::isfinite(mass)) {
    throw std::invalid_argument("free Wilson propagator: need 4 + m > 0 and finite, got m = " + std::to_string(mass));
  }
}

// a(p) = m + sum (1 - cos p), s_mu(p) = sin p_mu, den = a^2 + s^2; throws on a zero mode.
struct MomentumTerms {
  double a = 0;
  std::array<double, kDims> s{};
  double den = 0;
};

MomentumTerms Terms(const std::array<double, kDims>& p, double mass) {
  MomentumTerms t;
  t.a = mass;
  double s2 = 0;
  for (int mu = 0; mu < kDims; ++mu) {
    t.a += 1 - std::cos(p[mu]);
    t.s[mu] = std::sin(p[mu]);
    s2 += t.s[mu] * t.s[mu];
  }
  t.den = t.a * t.a + s2;
  if (!(t.den > 0)) {
    throw std::invalid_argument("free Wilson propagator: zero mode at p = (" + std::to_string(p[0]) + ", " +
                                std::to_string(p[1]) + ", " + std::to_string(p[2]) + ", " + std::to_string(p[3]) +
                                ") with m = " + std::to_string(mass) + " (periodic boundary conditions and m = 0?)");
  }
  return t;
}

// Calls f(p, terms) for every allowed momentum.
template <typename F>
void ForEachMomentum(const Lattice& lattice, const FermionBoundary& boundary, double mass, F&& f) {
  std::array<std::vector<double>, kDims> momenta;
  for (int mu = 0; mu < kDims; ++mu) momenta[mu] = AllowedMomenta(lattice, boundary, mu);
  std::array<double, kDims> p{};
  for (double pt : momenta[3]) {
    p[3] = pt;
    for (double pz : momenta[2]) {
      p[2] = pz;
      for (double py : momenta[1]) {
        p[1] = py;
        for (double px : momenta[0]) {
          p[0] = px;
          f(p, Terms(p, mass));
        }
      }
    }
  }
}

}  // namespace

std::vector<double> AllowedMomenta(const Lattice& lattice, const FermionBoundary& boundary, int mu) {
  if (mu < 0 || mu >= kDims) throw std::invalid_argument("AllowedMomenta: no direction " + std::to_string(mu));
  const int l = lattice.extent(mu);
  const double theta = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? 0.5 : 0.0;
  std::vector<double> p(l);
  for (int k = 0; k < l; ++k) p[k] = 2 * kPi * (k + theta) / l;
  return p;
}

SpinMatrix FreeWilsonMomentumPropagator(const std::array<double, kDims>& p, double mass, GammaBasis basis) {
  CheckMass(mass);
  const MomentumTerms t = Terms(p, mass);
  SpinMatrix s = SpinMatrix::Identity() * Complex<double>(t.a);
  for (int mu = 0; mu < kDims; ++mu) s -= Complex<double>(0, t.s[mu]) * Gamma(basis, mu);
  return s / t.den;
}

SpinMatrix FreeWilsonPropagator(const Lattice& lattice, double mass, GammaBasis basis, const FermionBoundary& boundary,
                                const Coordinates& separation) {
  CheckMass(mass);
  // S(x) = alpha(x) - i sum_mu gamma_mu beta_mu(x) with alpha = (1/V) sum e^{ipx} a / den, beta = (1/V) sum e^{ipx} s / den.
  Complex<double> alpha = 0;
  std::array<Complex<double>, kDims> beta{};
  ForEachMomentum(lattice, boundary, mass, [&](const std::array<double, kDims>& p, const MomentumTerms& t) {
    double phase = 0;
    for (int mu = 0; mu < kDims; ++mu) phase += p[mu] * separation[mu];
    const Complex<double> e = std::polar(1.0 / t.den, phase);
    alpha += e * t.a;
    for (int mu = 0; mu < kDims; ++mu) beta[mu] += e * t.s[mu];
  });
  const double volume = lattice.volume();
  SpinMatrix s = SpinMatrix::Identity() * (alpha / volume);
  for (int mu = 0; mu < kDims; ++mu) s -= Complex<double>(0, 1) * (beta[mu] / volume) * Gamma(basis, mu);
  return s;
}

std::vector<double> FreeWilsonPionCorrelator(const Lattice& lattice, double mass, const FermionBoundary& boundary) {
  CheckMass(mass);
  const int lt = lattice.extent(3);
  const double spatial_volume = static_cast<double>(lattice.volume()) / lt;
  std::array<std::vector<double>, kDims> momenta;
  for (int mu = 0; mu < kDims; ++mu) momenta[mu] = AllowedMomenta(lattice, boundary, mu);
  std::vector<double> c(lt, 0.0);
  std::array<double, kDims> p{};
  for (double pz : momenta[2]) {
    p[2] = pz;
    for (double py : momenta[1]) {
      p[1] = py;
      for (double px : momenta[0]) {
        p[0] = px;
        for (int t = 0; t < lt; ++t) {
          // F(p_s, t) = (1/L_t) sum_{p_t} e^{i p_t t} S(p) = alpha - i gamma.beta
          Complex<double> alpha = 0;
          std::array<Complex<double>, kDims> beta{};
          for (double pt : momenta[3]) {
            p[3] = pt;
            const MomentumTerms terms = Terms(p, mass);
            const Complex<double> e = std::polar(1.0 / (terms.den * lt), pt * t);
            alpha += e * terms.a;
            for (int mu = 0; mu < kDims; ++mu) beta[mu] += e * terms.s[mu];
          }
          double f2 = std::norm(alpha);
          for (int mu = 0; mu < kDims; ++mu) f2 += std::norm(beta[mu]);
          c[t] += 12 * f2 / spatial_volume;
        }
      }
    }
  }
  return c;
}

double FreeWilsonInverseNorm(const Lattice& lattice, double mass, const FermionBoundary& boundary) {
  CheckMass(mass);
  double min_den = std::numeric_limits<double>::infinity();
  ForEachMomentum(lattice, boundary, mass,
                  [&](const std::array<double, kDims>&, const MomentumTerms& t) { min_den = std::min(min_den, t.den); });
  return 1 / std::sqrt(min_den);
}

}  // namespace lqcd
