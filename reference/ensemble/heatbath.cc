// heatbath.cc: see heatbath.h.
#include "reference/ensemble/heatbath.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/plaquette.h"
#include "reference/ensemble/portable_math.h"
#include "reference/su3.h"

namespace lqcd {
namespace {

// Runs update(site) for every site of one parity, in parallel; the updates must be independent.
template <typename Update>
void ForEachSiteOfParity(const Lattice& lat, Parity parity, const Update& update) {
  const int half = lat.half_volume();
#pragma omp parallel for schedule(static)
  for (int cb = 0; cb < half; ++cb) update(lat.FullIndex(parity, cb));
}

}  // namespace

void CheckBeta(double beta) {
  if (!(beta >= 0) || !std::isfinite(beta)) {
    throw std::invalid_argument("quenched update: beta must be finite and >= 0, got " + std::to_string(beta));
  }
}

std::uint64_t HeatbathStreamId(std::uint64_t sweep, int mu, int site, int subgroup, int volume) {
  const std::uint64_t per_sweep = std::uint64_t{kDims} * static_cast<std::uint64_t>(volume) * kNumSubgroups;
  if (sweep >= (kHotStartStreamTag - 1) / per_sweep) {
    throw std::overflow_error("HeatbathStreamId: sweep " + std::to_string(sweep) +
                              " is too large for the stream-id space of this lattice");
  }
  return ((sweep * kDims + mu) * static_cast<std::uint64_t>(volume) + site) * kNumSubgroups + subgroup;
}

ColorMatrix<double> StapleSum(const GaugeField<double>& u, int site, int mu) {
  const Lattice& lat = u.lattice();
  const int forward_mu = lat.Forward(site, mu);
  ColorMatrix<double> sum = ColorMatrix<double>::Zero();
  for (int nu = 0; nu < kDims; ++nu) {
    if (nu == mu) continue;
    const int forward_nu = lat.Forward(site, nu);
    const int backward_nu = lat.Backward(site, nu);
    const int forward_mu_backward_nu = lat.Backward(forward_mu, nu);
    // Upper staple: U_nu(n+mu) U_mu(n+nu)^dag U_nu(n)^dag.
    sum.noalias() += (u.Link(forward_mu, nu) * u.Link(forward_nu, mu).adjoint()) * u.Link(site, nu).adjoint();
    // Lower staple: U_nu(n+mu-nu)^dag U_mu(n-nu)^dag U_nu(n-nu).
    sum.noalias() += (u.Link(forward_mu_backward_nu, nu).adjoint() * u.Link(backward_nu, mu).adjoint()) *
                     u.Link(backward_nu, nu);
  }
  return sum;
}

void HeatbathSubgroup(ColorMatrix<double>& link, ColorMatrix<double>& w, int subgroup, double beta,
                      RandomStream& stream) {
  const Su2 q = ProjectSubgroup(w, subgroup);
  const double k = std::sqrt(q.Norm2());
  Su2 r;
  if (k > kNegligibleQuaternionNorm) {
    // Re Tr(R W) = k Re Tr(r S) + const with S = q / k; X = r S has weight exp((beta k / 3) Re Tr X),
    // i.e. a0 density sqrt(1 - a0^2) exp(a a0) with a = 2 beta k / 3; then r = X S^dag.
    const Su2 s = q * (1.0 / k);
    r = SampleHeatbathSu2(2.0 * beta * k / 3.0, stream) * s.Adjoint();
  } else {
    r = SampleHeatbathSu2(0.0, stream);
  }
  LeftMultiplySubgroup(r, subgroup, link);
  LeftMultiplySubgroup(r, subgroup, w);
}

void OverrelaxSubgroup(ColorMatrix<double>& link, ColorMatrix<double>& w, int subgroup) {
  const Su2 q = ProjectSubgroup(w, subgroup);
  const double k = std::sqrt(q.Norm2());
  if (!(k > kNegligibleQuaternionNorm)) return;
  const Su2 s_dag = (q * (1.0 / k)).Adjoint();
  // r S = S^dag: Re Tr(r q) = k Re Tr(S^dag) = k Re Tr(S) = Re Tr(q), and the new block's S is S^dag,
  // so a second application gives r' = S^2 and restores the link.
  const Su2 r = s_dag * s_dag;
  LeftMultiplySubgroup(r, subgroup, link);
  LeftMultiplySubgroup(r, subgroup, w);
}

void HeatbathLink(ColorMatrix<double>& link, const ColorMatrix<double>& staple, double beta, std::uint64_t seed,
                  const std::uint64_t (&stream_ids)[kNumSubgroups]) {
  ColorMatrix<double> w = link * staple;
  for (int subgroup = 0; subgroup < kNumSubgroups; ++subgroup) {
    RandomStream stream(seed, stream_ids[subgroup]);
    HeatbathSubgroup(link, w, subgroup, beta, stream);
  }
}

void OverrelaxLink(ColorMatrix<double>& link, const ColorMatrix<double>& staple) {
  ColorMatrix<double> w = link * staple;
  for (int subgroup = 0; subgroup < kNumSubgroups; ++subgroup) OverrelaxSubgroup(link, w, subgroup);
}

void HeatbathSweep(GaugeField<double>& u, double beta, std::uint64_t seed, std::uint64_t sweep) {
  CheckBeta(beta);
  const Lattice& lat = u.lattice();
  const int volume = lat.volume();
  HeatbathStreamId(sweep, kDims - 1, volume - 1, kNumSubgroups - 1, volume);  // range check, throws
  for (int mu = 0; mu < kDims; ++mu) {
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      ForEachSiteOfParity(lat, parity, [&](int site) {
        const ColorMatrix<double> staple = StapleSum(u, site, mu);
        std::uint64_t ids[kNumSubgroups];
        for (int s = 0; s < kNumSubgroups; ++s) ids[s] = HeatbathStreamId(sweep, mu, site, s, volume);
        HeatbathLink(u.Link(site, mu), staple, beta, seed, ids);
      });
    }
  }
}

void OverrelaxationSweep(GaugeField<double>& u) {
  const Lattice& lat = u.lattice();
  for (int mu = 0; mu < kDims; ++mu) {
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      ForEachSiteOfParity(lat, parity, [&](int site) { OverrelaxLink(u.Link(site, mu), StapleSum(u, site, mu)); });
    }
  }
}

double ReunitarizeField(GaugeField<double>& u) {
  auto& links = u.links();
  const long n = static_cast<long>(links.size());
  double worst = 0;
  long first_bad = -1;  // an exception must not leave the parallel region: remember and throw after it
#pragma omp parallel for schedule(static) reduction(max : worst)
  for (long i = 0; i < n; ++i) {
    worst = std::fmax(worst, UnitarityDeviation(links[i]));
    try {
      links[i] = Reunitarize(links[i]);
    } catch (const std::domain_error&) {
#pragma omp critical(reunitarize_failure)
      if (first_bad < 0 || i < first_bad) first_bad = i;
    }
  }
  if (first_bad >= 0) {
    throw std::domain_error("ReunitarizeField: link " + std::to_string(first_bad % kDims) + " of site " +
                            std::to_string(first_bad / kDims) + " is not close to unitary (deviation " +
                            std::to_string(UnitarityDeviation(links[first_bad])) + ")");
  }
  return worst;
}

void HotStart(GaugeField<double>& u, std::uint64_t seed) {
  const int volume = u.lattice().volume();
#pragma omp parallel for schedule(static)
  for (int site = 0; site < volume; ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream stream(seed, kHotStartStreamTag | (std::uint64_t{kDims} * site + mu));
      // Gaussian rows that are (numerically) linearly dependent have probability ~1e-12 per link;
      // Reunitarize refuses them, and the next draws of the same stream are used instead.
      for (;;) {
        ColorMatrix<double> m;
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) {
            const double re = PortableGaussian(stream), im = PortableGaussian(stream);
            m(i, j) = Complex<double>(re, im);
          }
        }
        try {
          u.Link(site, mu) = Reunitarize(m);
          break;
        } catch (const std::domain_error&) {
        }
      }
    }
  }
}

double WilsonGaugeAction(const GaugeField<double>& u, double beta) {
  return beta * 6.0 * u.lattice().volume() * (1.0 - MeasurePlaquette(u).total);
}

double LocalLinkAction(const GaugeField<double>& u, int site, int mu, double beta) {
  return -beta / 3.0 * (u.Link(site, mu) * StapleSum(u, site, mu)).trace().real();
}

}  // namespace lqcd
