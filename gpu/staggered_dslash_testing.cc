#include "gpu/staggered_dslash_testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "gpu/oracle_comparison.h"
#include "gpu/staggered_dslash_launch.h"
#include "reference/staggered/hisq_links.h"
#include "reference/staggered/u3_compression.h"

namespace lqcd::gpu::testing {

StaggeredLinks<double> RandomHisqLinks(const Lattice& lattice, std::uint64_t seed) {
  const SmearedLinks s = HisqLinks(RandomLinks(lattice, seed, false), 0.0);
  return StaggeredLinks<double>{s.fat, s.naik};
}

StaggeredLinks<double> RandomNaiveLinks(const Lattice& lattice, std::uint64_t seed) {
  return StaggeredLinks<double>::Naive(RandomLinks(lattice, seed, false));
}

ColourVectorField<double> AbsoluteTerms(const StaggeredLinks<double>& links, const ColourVectorField<double>& in,
                                        Parity out_parity) {
  const Lattice& lattice = links.lattice();
  ColourVectorField<double> sum(lattice, SubsetOf(out_parity));
  ColourVectorField<double> full(lattice);  // in on the full lattice (zero on out_parity)
  Insert(full, in);
  for (int i = 0; i < sum.sites(); ++i) {
    const int site = sum.SiteIndex(i);
    const Coordinates n = lattice.Coords(site);
    for (int mu = 0; mu < 4; ++mu) {
      for (const int k : {1, 3}) {
        const GaugeField<double>* x = k == 1 ? &links.fat : links.long_links ? &*links.long_links : nullptr;
        if (x == nullptr) continue;
        Coordinates forward = n, backward = n;
        forward[mu] = (n[mu] + k) % lattice.extent(mu);
        backward[mu] = (n[mu] - k + 3 * lattice.extent(mu)) % lattice.extent(mu);
        const int f = lattice.Index(forward), b = lattice.Index(backward);
        for (int r = 0; r < 3; ++r) {
          double a = 0;
          for (int c = 0; c < 3; ++c) {
            a += std::abs(x->Link(site, mu)(r, c)) * std::abs(full[f](c));
            a += std::abs(x->Link(b, mu)(c, r)) * std::abs(full[b](c));
          }
          sum[i](r) += a;
        }
      }
    }
  }
  return sum;
}

namespace {

constexpr double kUnitRoundoffDouble = 0x1p-53;

double UnitRoundoff(Precision precision) { return precision == Precision::kDouble ? kUnitRoundoffDouble : 0x1p-24; }

// The common check: bound(i, c) per component.
template <typename Bound>
double Check(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle, const Bound& bound_of,
             const std::string& what) {
  double worst = 0;
  int failures = 0;
  for (int i = 0; i < computed.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const double error = std::abs(computed[i](c) - oracle[i](c));
      const double bound = bound_of(i, c);
      if (!(error <= bound) && ++failures <= 5) {
        ADD_FAILURE() << what << ": site " << computed.SiteIndex(i) << " colour " << c
                      << ": |computed - oracle| = " << error << " > bound " << bound;
      }
      if (bound > 0) worst = std::max(worst, error / bound);
    }
  }
  return worst;
}

double DslashFactor(Precision precision, int hops) {
  return std::sqrt(2.0) * 2 * ((6 + hops + 2) * UnitRoundoff(precision) + (6 + hops) * kUnitRoundoffDouble) * 1.01;
}

// Per component of out_parity, in the real parts: the sum over the 8 long hops of link_bound(site, mu) of the
// hop's link (the forward hop's at the site, the backward hop's at its neighbour n - 3 mu) times sum_j |v_j| at
// the neighbour; `in` on the other parity.
template <typename LinkBound>
ColourVectorField<double> LongHopBound(const ColourVectorField<double>& in, Parity out_parity,
                                       const LinkBound& link_bound) {
  const Lattice& lattice = in.lattice();
  ColourVectorField<double> full(lattice), extra(lattice, SubsetOf(out_parity));
  Insert(full, in);
  for (int i = 0; i < extra.sites(); ++i) {
    const int site = extra.SiteIndex(i);
    const Coordinates n = lattice.Coords(site);
    double sum = 0;
    for (int mu = 0; mu < 4; ++mu) {
      Coordinates forward = n, backward = n;
      forward[mu] = (n[mu] + 3) % lattice.extent(mu);
      backward[mu] = (n[mu] - 3 + 3 * lattice.extent(mu)) % lattice.extent(mu);
      const int f = lattice.Index(forward), b = lattice.Index(backward);
      for (int c = 0; c < 3; ++c) {
        sum += link_bound(site, mu) * std::abs(full[f](c)) + link_bound(b, mu) * std::abs(full[b](c));
      }
    }
    for (int c = 0; c < 3; ++c) extra[i](c) = sum;
  }
  return extra;
}

}  // namespace

ColourVectorField<double> U3ReconstructionBound(const ColourVectorField<double>& in, Parity out_parity, double scale,
                                                Precision precision) {
  const double entry = std::sqrt(2.0) * 27 * UnitRoundoff(precision) * std::abs(scale);
  return LongHopBound(in, out_parity, [&](int, int) { return entry; });
}

// The device forms L = g S_dev with g = (fl(scale) c, fl(scale) s), (s, c) = sincos(fl(theta_T / 3)):
//   - S_dev from the 8 reals of S rounded to T, rebuilt as an 8-real Wilson link: |S_dev - S| <= E8 =
//     LinkErrorBound(S, precision, k8) per entry (|S_dev| <= 1 + E8);
//   - the phase: theta stored in T (pi u_T, none in double) after its computation in double (8 u_double, as
//     LinkErrorBound's phases), divided by 3 (pi u_c / 3), sincos within 2 ulp per part (4 sqrt 2 u_c as a
//     complex number): |f - e^{i theta / 3}| <= dphi; fl(scale) and the two products by it add 2 u_c relative;
//   - the complex products g S_dev: 2 sqrt 2 u_c |g| |S_dev| (each part one product and one fma);
//   - the host's S = e^{-i theta / 3} X in double: 4 u_double |scale|.
double NineNumberLinkErrorBound(const ColorMatrix<double>& long_link, double scale, Precision precision) {
  const double uc = UnitRoundoff(precision);
  const ColorMatrix<double> x = long_link / scale;
  const double theta = DeterminantPhase(x);
  const ColorMatrix<double> s = std::polar(1.0, -theta / 3) * x;
  const double e8 = LinkErrorBound(s, precision, Reconstruct::k8);
  const double stored_theta = (precision == Precision::kDouble ? 0.0 : M_PI * uc) + 8 * kUnitRoundoffDouble;
  const double dphi = stored_theta / 3 + M_PI * uc / 3 + 4 * std::sqrt(2.0) * uc;
  const double dg = dphi + 2.01 * uc;  // |g / scale - e^{i theta / 3}|
  return std::abs(scale) * (dg * (1 + e8) + e8 + 2 * std::sqrt(2.0) * uc * (1 + dg) * (1 + e8) +
                            4 * kUnitRoundoffDouble);
}

ColourVectorField<double> U9ReconstructionBound(const ColourVectorField<double>& in, const GaugeField<double>& long_links,
                                                Parity out_parity, double scale, Precision precision) {
  const Lattice& lattice = in.lattice();
  std::vector<double> link_bound(4 * static_cast<std::size_t>(lattice.volume()));
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < 4; ++mu) {
      link_bound[4 * site + mu] = NineNumberLinkErrorBound(long_links.Link(site, mu), scale, precision);
    }
  }
  return LongHopBound(in, out_parity, [&](int site, int mu) { return link_bound[4 * site + mu]; });
}

double CheckWithinBound(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle,
                        const ColourVectorField<double>& terms, Precision precision, int hops,
                        const std::string& what) {
  const double factor = DslashFactor(precision, hops);
  return Check(computed, oracle, [&](int i, int c) { return factor * terms[i](c).real(); }, what);
}

double CheckWithinBound(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle,
                        const ColourVectorField<double>& terms, const ColourVectorField<double>& extra,
                        Precision precision, int hops, const std::string& what) {
  const double factor = DslashFactor(precision, hops);
  return Check(computed, oracle, [&](int i, int c) { return factor * terms[i](c).real() + extra[i](c).real(); },
               what);
}

double CheckXpayWithinBound(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle,
                            const ColourVectorField<double>& terms, const ColourVectorField<double>& x,
                            const ColourVectorField<double>& d_in, double a, double b, Precision precision, int hops,
                            const std::string& what, const ColourVectorField<double>* extra) {
  const ColourVectorField<double> arithmetic = XpayArithmeticBound(terms, x, d_in, a, b, precision, hops);
  return Check(computed, oracle,
               [&](int i, int c) {
                 return arithmetic[i](c).real() + (extra != nullptr ? (*extra)[i](c).real() : 0.0);
               },
               what);
}

ColourVectorField<double> XpayArithmeticBound(const ColourVectorField<double>& terms, const ColourVectorField<double>& x,
                                              const ColourVectorField<double>& d_in, double a, double b,
                                              Precision precision, int hops) {
  const double factor = DslashFactor(precision, hops);
  const double epilogue = std::sqrt(2.0) * 3 * (UnitRoundoff(precision) + kUnitRoundoffDouble) * 1.01;
  ColourVectorField<double> bound(terms.lattice(), terms.subset());
  for (int i = 0; i < bound.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      bound[i](c) = std::abs(b) * factor * terms[i](c).real() +
                    epilogue * (std::abs(a) * std::abs(x[i](c)) + std::abs(b) * std::abs(d_in[i](c)));
    }
  }
  return bound;
}

ColourVectorField<double> DslashArithmeticBound(const ColourVectorField<double>& terms, Precision precision, int hops) {
  const double factor = DslashFactor(precision, hops);
  ColourVectorField<double> bound(terms.lattice(), terms.subset());
  for (int i = 0; i < bound.sites(); ++i) {
    for (int c = 0; c < 3; ++c) bound[i](c) = factor * terms[i](c).real();
  }
  return bound;
}

ColourVectorField<double> HalfStorageBound(const ColourVectorField<double>& oracle,
                                           const ColourVectorField<double>& arithmetic) {
  const double per_unit_norm = std::sqrt(2.0) * (0.5 / 32767.0 + 5 * 0x1p-24) * 1.01;
  ColourVectorField<double> extra(oracle.lattice(), oracle.subset());
  for (int i = 0; i < extra.sites(); ++i) {
    double largest = 0, arithmetic_largest = 0;
    for (int c = 0; c < 3; ++c) {
      largest = std::max({largest, std::abs(oracle[i](c).real()), std::abs(oracle[i](c).imag())});
      arithmetic_largest = std::max(arithmetic_largest, arithmetic[i](c).real());
    }
    for (int c = 0; c < 3; ++c) extra[i](c) = per_unit_norm * (largest + arithmetic_largest);
  }
  return extra;
}

ReDotTerms SumReDotTerms(const ColourVectorField<double>& x, const ColourVectorField<double>& v, int begin, int end) {
  ReDotTerms t;
  for (int i = begin; i < end; ++i) {
    for (int c = 0; c < 3; ++c) {
      t.sum += static_cast<long double>(x[i](c).real()) * v[i](c).real() +
               static_cast<long double>(x[i](c).imag()) * v[i](c).imag();
      t.magnitude += std::abs(x[i](c).real() * v[i](c).real()) + std::abs(x[i](c).imag() * v[i](c).imag());
    }
  }
  return t;
}

double CheckReDotChunks(const double* partials, const ColourVectorField<double>& x,
                            const ColourVectorField<double>& out, const std::string& what) {
  double worst = 0;
  for (int chunk = 0; chunk < CurvatureChunks(out.sites()); ++chunk) {
    const ReDotTerms t = SumReDotTerms(x, out, chunk * kCurvatureChunkSites,
                                       std::min((chunk + 1) * kCurvatureChunkSites, out.sites()));
    const double bound = 11 * 1.01 * kUnitRoundoffDouble * static_cast<double>(t.magnitude);
    const double error = std::abs(partials[chunk] - static_cast<double>(t.sum));
    EXPECT_LE(error, bound) << what << " chunk " << chunk;
    worst = std::max(worst, error / bound);
  }
  return worst;
}

double CheckNormWithForwardXChunks(const double* partials, const ColourVectorField<double>& out,
                                   const ColourVectorField<double>& in, double weight, const std::string& what) {
  const Lattice& lattice = out.lattice();
  const auto norm2 = [](const ColourVectorField<double>& v, int i) {
    long double sum = 0;
    for (int c = 0; c < 3; ++c) {
      sum += static_cast<long double>(v[i](c).real()) * v[i](c).real() +
             static_cast<long double>(v[i](c).imag()) * v[i](c).imag();
    }
    return sum;
  };
  double worst = 0;
  for (int chunk = 0; chunk < CurvatureChunks(out.sites()); ++chunk) {
    long double sum = 0;
    for (int i = chunk * kCurvatureChunkSites; i < std::min((chunk + 1) * kCurvatureChunkSites, out.sites()); ++i) {
      const int forward = Lattice::CheckerboardIndex(lattice.Forward(lattice.FullIndex(out.parity(), i), 0));
      sum += norm2(out, i) + static_cast<long double>(weight) * norm2(in, forward);
    }
    const double bound = 13 * 1.01 * kUnitRoundoffDouble * static_cast<double>(sum);
    const double error = std::abs(partials[chunk] - static_cast<double>(sum));
    EXPECT_LE(error, bound) << what << " chunk " << chunk;
    worst = std::max(worst, error / bound);
  }
  return worst;
}

}  // namespace lqcd::gpu::testing
