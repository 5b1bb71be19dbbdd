#include "experiments/critical_mass.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/observables/propagator.h"
#include "reference/random.h"

namespace lqcd::experiments {

SpinorField<double> TimeSliceNoise(const Lattice& lattice, int t0, std::uint64_t seed) {
  if (t0 < 0 || t0 >= lattice.extent(3)) {
    throw std::invalid_argument("TimeSliceNoise: source time slice " + std::to_string(t0) + " outside 0.." +
                                std::to_string(lattice.extent(3) - 1));
  }
  SpinorField<double> eta(lattice);
  const double h = 1.0 / std::sqrt(2.0);
  for (int site = 0; site < lattice.volume(); ++site) {
    if (lattice.Coords(site)[3] != t0) continue;
    RandomStream rng(seed, static_cast<std::uint64_t>(site));
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        const std::uint32_t w = rng.NextWord();
        eta[site](s, c) = Complex<double>((w & 1u) ? -h : h, (w & 2u) ? -h : h);
      }
    }
  }
  return eta;
}

MesonCorrelators ContractOneEnd(const SpinorField<double>& phi, int t0, GammaBasis basis) {
  const Lattice& lattice = phi.lattice();
  if (phi.subset() != Subset::kFull) throw std::invalid_argument("ContractOneEnd: needs a full-lattice field");
  const int lt = lattice.extent(3);
  if (t0 < 0 || t0 >= lt) throw std::invalid_argument("ContractOneEnd: source time slice outside the lattice");
  MesonCorrelators c{std::vector<double>(lt, 0.0), std::vector<double>(lt, 0.0)};
  const Eigen::Matrix<Complex<double>, 4, 4> g4 = Gamma(basis, 3);
  for (int site = 0; site < lattice.volume(); ++site) {
    const int t = ((lattice.Coords(site)[3] - t0) % lt + lt) % lt;
    const SiteSpinor<double>& p = phi[site];
    c.pp[t] += p.squaredNorm();
    c.ap[t] -= (p.adjoint() * g4 * p).trace().real();
  }
  return c;
}

int DefaultPlateauFirst(int time_extent) { return time_extent / 4; }
// Not L_t / 2 - 1: there C(t) / C(t + 1) = cosh(m) / 1 is the ratio closest to 1, and noise pushing it below
// 1 leaves the cosh effective mass undefined.
int DefaultPlateauLast(int time_extent) { return std::max(time_extent / 2 - 2, DefaultPlateauFirst(time_extent)); }

PlateauEstimate EstimatePlateau(const MesonCorrelators& c, int t_first, int t_last) {
  const int lt = static_cast<int>(c.pp.size());
  if (static_cast<int>(c.ap.size()) != lt) throw std::invalid_argument("EstimatePlateau: C_PP and C_AP differ in length");
  if (t_first < 1 || t_last < t_first || t_last > lt / 2 - 1) {
    throw std::invalid_argument("EstimatePlateau: window [" + std::to_string(t_first) + ", " + std::to_string(t_last) +
                                "] must satisfy 1 <= first <= last <= L_t/2 - 1 = " + std::to_string(lt / 2 - 1));
  }
  const std::vector<double> m_eff = CoshEffectiveMass(c.pp);
  PlateauEstimate e;
  for (int t = t_first; t <= t_last; ++t) {
    e.pion_mass += m_eff[t];  // NaN propagates: an undefined effective mass makes the estimate undefined
    e.pcac_mass += (c.ap[t + 1] - c.ap[t - 1]) / (4.0 * c.pp[t]);
  }
  const int n = t_last - t_first + 1;
  e.pion_mass /= n;
  e.pcac_mass /= n;
  return e;
}

LineFit FitLine(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) {
    throw std::invalid_argument("FitLine: needs >= 2 points with as many x as y values");
  }
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (!(sxx > 0)) throw std::invalid_argument("FitLine: all x values are equal");
  LineFit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  return f;
}

std::vector<JackknifeValue> Jackknife(int n, int outputs,
                                      const std::function<std::vector<double>(const std::vector<int>&)>& estimator) {
  if (n < 1) throw std::invalid_argument("Jackknife: needs at least one configuration");
  std::vector<int> weights(n, 1);
  const std::vector<double> full = estimator(weights);
  if (static_cast<int>(full.size()) != outputs) throw std::invalid_argument("Jackknife: estimator output size mismatch");
  std::vector<JackknifeValue> out(outputs);
  for (int k = 0; k < outputs; ++k) out[k].value = full[k];
  if (n == 1) return out;
  std::vector<std::vector<double>> samples;
  for (int i = 0; i < n; ++i) {
    weights.assign(n, 1);
    weights[i] = 0;
    samples.push_back(estimator(weights));
  }
  for (int k = 0; k < outputs; ++k) {
    double mean = 0;
    for (const auto& s : samples) mean += s[k];
    mean /= n;
    double var = 0;
    for (const auto& s : samples) var += (s[k] - mean) * (s[k] - mean);
    out[k].error = std::sqrt(var * (n - 1) / n);
  }
  return out;
}

double CriticalMassFit::SystematicError() const {
  return std::abs(pion_critical_mass.value - pcac_critical_mass.value);
}

double CriticalMassFit::TotalError() const {
  return std::hypot(pcac_critical_mass.error, SystematicError());
}

CriticalMassFit FitCriticalMass(const std::vector<MassCorrelators>& data, int t_first, int t_last) {
  if (data.size() < 2) throw std::invalid_argument("FitCriticalMass: needs at least two masses");
  const std::size_t configs = data[0].per_config.size();
  if (configs < 1) throw std::invalid_argument("FitCriticalMass: needs at least one configuration");
  for (const MassCorrelators& d : data) {
    if (d.per_config.size() != configs) {
      throw std::invalid_argument("FitCriticalMass: every mass needs the same configurations");
    }
  }
  const int n_mass = static_cast<int>(data.size());
  // Outputs: m_c(pion), B, m_c(PCAC), Z, then m_pi and m_PCAC per mass.
  auto estimator = [&](const std::vector<int>& weights) {
    std::vector<double> masses, pion2, pcac, out(4 + 2 * n_mass);
    for (int k = 0; k < n_mass; ++k) {
      const int lt = static_cast<int>(data[k].per_config[0].pp.size());
      MesonCorrelators mean{std::vector<double>(lt, 0.0), std::vector<double>(lt, 0.0)};
      int used = 0;
      for (std::size_t i = 0; i < configs; ++i) {
        if (!weights[i]) continue;
        const MesonCorrelators& c = data[k].per_config[i];
        if (static_cast<int>(c.pp.size()) != lt || static_cast<int>(c.ap.size()) != lt) {
          throw std::invalid_argument("FitCriticalMass: correlators of different lengths");
        }
        for (int t = 0; t < lt; ++t) {
          mean.pp[t] += c.pp[t];
          mean.ap[t] += c.ap[t];
        }
        ++used;
      }
      for (int t = 0; t < lt; ++t) {
        mean.pp[t] /= used;
        mean.ap[t] /= used;
      }
      const PlateauEstimate e = EstimatePlateau(mean, t_first, t_last);
      masses.push_back(data[k].mass);
      pion2.push_back(e.pion_mass * e.pion_mass);
      pcac.push_back(e.pcac_mass);
      out[4 + k] = e.pion_mass;
      out[4 + n_mass + k] = e.pcac_mass;
    }
    const LineFit pion = FitLine(masses, pion2), axial = FitLine(masses, pcac);
    out[0] = pion.Root();
    out[1] = pion.slope;
    out[2] = axial.Root();
    out[3] = axial.slope;
    return out;
  };
  const std::vector<JackknifeValue> j = Jackknife(static_cast<int>(configs), 4 + 2 * n_mass, estimator);
  CriticalMassFit fit;
  fit.pion_critical_mass = j[0];
  fit.pion_slope = j[1];
  fit.pcac_critical_mass = j[2];
  fit.pcac_slope = j[3];
  for (int k = 0; k < n_mass; ++k) {
    fit.pion_mass.push_back(j[4 + k]);
    fit.pcac_mass.push_back(j[4 + n_mass + k]);
  }
  return fit;
}

double MeanFieldCriticalMass(double plaquette) {
  if (!(plaquette > 0 && plaquette <= 1)) {
    throw std::invalid_argument("MeanFieldCriticalMass: plaquette must lie in (0, 1], got " + std::to_string(plaquette));
  }
  return 4.0 * std::pow(plaquette, 0.25) - 4.0;
}

double LatticeSpacingOverR0(double beta) {
  if (!(beta >= 5.7 && beta <= 6.92)) {
    throw std::invalid_argument("LatticeSpacingOverR0: the Necco-Sommer interpolation covers 5.7 <= beta <= 6.92, got " +
                                std::to_string(beta) + " (give the strange pion mass in lattice units instead)");
  }
  const double x = beta - 6.0;
  return std::exp(-1.6804 - 1.7331 * x + 0.7849 * x * x - 0.4428 * x * x * x);
}

double StrangePseudoscalarLatticeMass(double beta) {
  const double a_fermi = LatticeSpacingOverR0(beta) * kR0Fermi;
  return kStrangePseudoscalarGev * a_fermi / kHbarCGevFermi;
}

}  // namespace lqcd::experiments
