// oracle_comparison.cc: test inputs and the error bounds of oracle_comparison.h.
#include "gpu/oracle_comparison.h"

#include <Eigen/LU>  // determinant(), which reference/su3.h uses
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "reference/gamma.h"
#include "reference/gauge_transform.h"
#include "reference/random.h"
#include "reference/su3.h"
#include "reference/su3_random.h"

namespace lqcd::gpu::testing {
namespace {

constexpr double kUd = 0x1p-53;
constexpr double kUf = 0x1p-24;
const double kSqrt2 = std::sqrt(2.0);
const double kHopTermSum = 2 * std::sqrt(6.0);  // sum of |terms| per hop, per unit M (item 3)

double ArithmeticRoundoffOf(Precision p) { return p == Precision::kDouble ? kUd : kUf; }

// Half a fixed-point level (of the full scale).
constexpr double kHalfLevel = 0.5 / 32767.0;

}  // namespace

GaugeField<double> RandomLinks(const Lattice& lattice, std::uint64_t seed, bool temporal_gauge) {
  GaugeField<double> u = RandomGaugeField<double>(lattice, seed);
  if (!temporal_gauge) return u;
  return TemporalGaugeFix(u).field;
}

GaugeField<double> SmoothLinks(const Lattice& lattice, std::uint64_t seed, double epsilon) {
  return RandomNearUnitGaugeField<double>(lattice, seed, epsilon);
}

GaugeField<double> IntegerLinks(const Lattice& lattice, std::uint64_t seed, bool temporal_gauge) {
  GaugeField<double> u(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(seed, kDims * static_cast<std::uint64_t>(site) + mu);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          const double re = static_cast<int>(rng.NextWord() % 5) - 2, im = static_cast<int>(rng.NextWord() % 5) - 2;
          u.Link(site, mu)(i, j) = {re, im};
        }
      }
    }
  }
  if (temporal_gauge) {
    for (int site = 0; site < lattice.volume(); ++site) {
      if (lattice.Coords(site)[3] < lattice.extent(3) - 1) u.Link(site, 3) = ColorMatrix<double>::Identity();
    }
  }
  return u;
}

SpinorField<double> IntegerSpinors(const Lattice& lattice, Subset subset, std::uint64_t seed) {
  SpinorField<double> psi(lattice, subset);
  for (int i = 0; i < psi.sites(); ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(psi.SiteIndex(i)));
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        const double re = static_cast<int>(rng.NextWord() % 7) - 3, im = static_cast<int>(rng.NextWord() % 7) - 3;
        psi[i](s, c) = {re, im};
      }
    }
  }
  return psi;
}

SpinorField<double> ChangeBasis(const SpinorField<double>& psi) {
  const SpinMatrix& s = DeGrandRossiToUkqcd();
  SpinorField<double> out(psi.lattice(), psi.subset());
  for (int i = 0; i < psi.sites(); ++i) out[i] = s * psi[i];
  return out;
}

namespace {
double MaxReal(const SiteSpinor<double>& psi) {
  return std::max(psi.real().cwiseAbs().maxCoeff(), psi.imag().cwiseAbs().maxCoeff());
}
}  // namespace

std::vector<double> Magnitudes(const SpinorField<double>& dr) {
  const SpinMatrix& s = DeGrandRossiToUkqcd();
  std::vector<double> m(dr.lattice().volume(), 0.0);
  for (int i = 0; i < dr.sites(); ++i) {
    const SiteSpinor<double> uk = s * dr[i];
    m[dr.SiteIndex(i)] = std::max(MaxReal(dr[i]), MaxReal(uk));
  }
  return m;
}

double SpinorStorageRoundoff(Precision precision) {
  switch (precision) {
    case Precision::kDouble: return 0;  // double -> double is exact; the basis change is counted apart
    case Precision::kSingle: return kUf;
    case Precision::kHalf: return kHalfLevel + 6 * kUf;
  }
  return 1;
}

double SpinorStorageAbsoluteError(Precision precision) {
  // Half decodes q * fl(n * (1 / 32767)). For n below ~3.9e-34 that scale is a subnormal float, whose
  // rounding is absolute (at most 2^-150) rather than relative: |q| <= 32767 times it, plus 2^-150 for a
  // subnormal product: 4.6e-41, negligible next to the error of any site of normal size.
  return precision == Precision::kHalf ? 32768 * 0x1p-150 : 0;
}

std::vector<double> UploadErrors(const SpinorField<double>& dr, Precision precision) {
  std::vector<double> e = Magnitudes(dr);
  const double per_m = SpinorStorageRoundoff(precision) + 3 * kSqrt2 * kUd;
  for (double& x : e) x = x * per_m + SpinorStorageAbsoluteError(precision);
  return e;
}

// Item 2 of the header, in three cases.
//  18 reals: each stored real is off by eps (relative for double/single, in which |U_ij| <= 1 makes it
//    absolute too; half: half a level plus the float decode, 1/65534 + 2 u_f): E18 = sqrt 2 eps.
//  12 reals: rows a, b as above. c' = conj(a' x b') in u_c arithmetic: each component a_i b_j - a_j b_i has
//    the 4 real products summed (gamma_4 < 5 u_c, relative to |a_i||b_j| + |a_j||b_i| <= 1, per real), a
//    perturbation of a, b by E18 per element moves it by at most 4 E18, and the host link's own third row
//    differs from conj(a x b) by its unitarity residual r (measured here, +8 u_d for measuring it):
//    E12 = 4 E18 + 5 sqrt 2 u_c + r + 8 u_d.
//  8 reals: with e = E18 for the stored a2, a3, b1 and eps_theta for the phases (atan2 in double, 2 ulp of
//    pi = 8 u_d; single rounds the phase, pi u_f; half stores phase / pi to half a level and decodes with
//    three float roundings, pi (1/65534 + 3 u_f)):
//      dN2  <= 2 sqrt 2 N e + 2 e^2 + 5 u_c N^2                       (N2 = |a2|^2 + |a3|^2)
//      d|a1| <= min(sqrt d1, d1 / |a1|) + u_s |a1|,   d1 = dN2 + u_c + 2 r   (|sqrt(x + d) - sqrt x| <= min(sqrt d, d / sqrt x))
//      d|c1| <= min(sqrt d2, d2 / |c1|) + u_s |c1|,   d2 = dN2 + 2 N e + e^2 + 6 u_c N^2 + 2 r
//    with u_s the relative error of the square root (and of 1 / N2 below): u_c when correctly rounded
//    (double, single), 4 u_c for half's approximate sqrt and reciprocal (within 1 ulp, 2 allowed)
//      da1  <= d|a1| + sqrt 2 |a1| (eps_theta + t + u_c), dc1 alike, with t the sincos error: within 2 ulp,
//              t = 4 u_c, in double and single; half's __sincosf, t = 2^-21.41
//    and for b2 = -(conj(c1 a3) + b1 conj(a1) a2) / N2 (b3, c2, c3 alike): the numerator has magnitude
//    <= 2 N^2 (|b1|, |c1|, |a2|, |a3| <= N), moves by <= N (dc1 + N da1 + 3 e), and rounds by <= 16 u_c N^2;
//    dividing by N2 (relative error q = dN2 / (N^2 - dN2) + u_s):
//      |db2| <= (dc1 + N da1 + 3 e) / N (1 + q) + 16 u_c + q + u_c.
//    r = the host link's deviation from SU(3) (the reconstruction assumes exact SU(3)): it enters d1 and d2
//    (|a1|^2 + N^2 = 1 and |b1|^2 + |c1|^2 = N^2 hold only to r), and the rotated rows as 4 r / N.
double LinkErrorBound(const ColorMatrix<double>& u, Precision precision, Reconstruct reconstruct) {
  const double uc = ArithmeticRoundoffOf(precision);
  const double eps = precision == Precision::kDouble   ? 0.0
                     : precision == Precision::kSingle ? kUf
                                                       : kHalfLevel + 2 * kUf;
  const double e18 = kSqrt2 * eps;
  if (reconstruct == Reconstruct::k18) return e18;
  const double residual = std::max(UnitarityDeviation(u), DeterminantDeviation(u));
  if (reconstruct == Reconstruct::k12) {
    const Eigen::Matrix<Complex<double>, 1, 3> c = ThirdRow<double>(u.row(0), u.row(1));
    const double third_row_residual = (c - u.row(2)).cwiseAbs().maxCoeff();
    return 4 * e18 + 5 * kSqrt2 * uc + third_row_residual + 8 * kUd;
  }
  const double eps_theta = precision == Precision::kDouble   ? 8 * kUd
                           : precision == Precision::kSingle ? M_PI * kUf + 8 * kUd
                                                             : M_PI * (kHalfLevel + 3 * kUf) + 8 * kUd;
  const double e = e18;
  const double n = std::sqrt(std::norm(u(0, 1)) + std::norm(u(0, 2)));
  // sincos: within 2 ulp (4 u_c absolute) in double and single; half uses __sincosf, 2^-21.41 absolute.
  const double trig = precision == Precision::kHalf ? std::pow(2.0, -21.41) : 4 * uc;
  if (!(n >= kMinimum8ParameterN)) {
    // The singular form (device_gauge_field.h): the device holds D' = diag(a1', a1'^*, 1) with a1' =
    // (cos, sin) of the stored phase; it differs from D = diag(a1, a1^*, 1), a1 = U_00 / |U_00|, by the
    // phase's rounding (eps_theta) and the sincos error, per real at most eps_theta + trig; and D from U
    // by the link's own distance to the singular form (<= 2^-18, checked on upload).
    return (u - SingularForm8(u)).cwiseAbs().maxCoeff() + eps_theta + trig + 8 * kUd;
  }
  const double a1 = std::abs(u(0, 0)), c1 = std::abs(u(2, 0));
  const double dn2 = 2 * kSqrt2 * n * e + 2 * e * e + 5 * uc * n * n;
  // The host link satisfies |a1|^2 + N^2 = 1 and |b1|^2 + |c1|^2 = N^2 only to its residual r.
  const double d1 = dn2 + uc + 2 * residual, d2 = dn2 + 2 * n * e + e * e + 6 * uc * n * n + 2 * residual;
  auto sqrt_error = [](double d, double x) { return x > 0 ? std::min(std::sqrt(d), d / x) : std::sqrt(d); };
  // Rounding of the square roots and of 1 / N2: correctly rounded (u_c) in double and single; half uses
  // the approximate sqrt and reciprocal (PTX sqrt.approx / rcp.approx, within 1 ulp; 2 ulp = 4 u_c allowed).
  const double special = precision == Precision::kHalf ? 4 * uc : uc;
  const double d_a1_modulus = sqrt_error(d1, a1) + special * a1;
  const double d_c1_modulus = sqrt_error(d2, c1) + special * c1;
  const double da1 = d_a1_modulus + kSqrt2 * a1 * (eps_theta + trig + uc);
  const double dc1 = d_c1_modulus + kSqrt2 * c1 * (eps_theta + trig + uc);
  const double q = dn2 / (n * n - dn2) + special;
  const double rotated = (dc1 + n * da1 + 3 * e) / n * (1 + q) + 16 * uc + q + uc;
  return std::max({e, da1, dc1, rotated}) + 4 * residual / n;
}

std::vector<double> LinkErrorBounds(const GaugeField<double>& u, const GaugeLayout& layout) {
  const Lattice& lat = u.lattice();
  std::vector<double> bounds(kDims * static_cast<std::size_t>(lat.volume()), 0.0);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const bool unit = layout.temporal_gauge_fixed && mu == 3 && lat.Coords(site)[3] < lat.extent(3) - 1;
      bounds[kDims * site + mu] = unit ? 0.0 : LinkErrorBound(u.Link(site, mu), layout.precision, layout.reconstruct);
    }
  }
  return bounds;
}

DslashBoundInputs DslashBoundInputsOf(Precision precision, Parity out_parity, const GaugeField<double>& u,
                                      const GaugeLayout& layout, const SpinorField<double>& in,
                                      const SpinorField<double>& d, const SpinorField<double>& out,
                                      const SpinorField<double>* x, double a, double b) {
  DslashBoundInputs r;
  r.precision = precision;
  r.out_parity = out_parity;
  r.in_magnitude = Magnitudes(in);
  r.in_error = UploadErrors(in, precision);
  r.link_error = LinkErrorBounds(u, layout);
  r.d_magnitude = Magnitudes(d);
  r.out_magnitude = Magnitudes(out);
  if (x != nullptr) {
    r.xpay = true;
    r.a = a;
    r.b = b;
    r.x_magnitude = Magnitudes(*x);
    r.x_error = UploadErrors(*x, precision);
  }
  return r;
}

std::vector<double> DslashErrorBound(const Lattice& lat, const DslashBoundInputs& in) {
  const double uc = ArithmeticRoundoffOf(in.precision);
  const double eps_out = in.precision == Precision::kDouble   ? kUd
                         : in.precision == Precision::kSingle ? kUf
                                                              : SpinorStorageRoundoff(Precision::kHalf);
  const double hop_rounding = kHopTermSum * (14 * uc + 15 * kUd);
  std::vector<double> bound(lat.volume(), 0.0);
  for (int site = 0; site < lat.volume(); ++site) {
    if (lat.SiteParity(site) != in.out_parity) continue;
    double d_error = 0;
    for (int mu = 0; mu < kDims; ++mu) {
      const int forward = lat.Forward(site, mu), backward = lat.Backward(site, mu);
      const int hops[2] = {forward, backward};
      const double link_errors[2] = {in.link_error[kDims * site + mu], in.link_error[kDims * backward + mu]};
      for (int k = 0; k < 2; ++k) {
        const double m = in.in_magnitude[hops[k]], e = in.in_error[hops[k]];
        d_error += kHopTermSum * e + (hop_rounding + 6 * kSqrt2 * link_errors[k]) * (m + e);
      }
    }
    double error = d_error;
    if (in.xpay) {
      const double ax = std::abs(in.a) * (in.x_magnitude[site] + in.x_error[site]);
      const double by = std::abs(in.b) * (in.d_magnitude[site] + d_error);
      error = std::abs(in.b) * d_error + std::abs(in.a) * in.x_error[site] + (4 * uc + 3 * kUd) * (ax + by);
    }
    bound[site] = error + eps_out * (in.out_magnitude[site] + error) + SpinorStorageAbsoluteError(in.precision);
  }
  return bound;
}

long RealsBeyondHalfAxpyNormBound(const SpinorField<double>& fused, const SpinorField<double>& separate,
                                  const SpinorField<double>& q, const SpinorField<double>& r_start, double c) {
  constexpr double kUf = 0x1p-24, kLevel = 0.5 / 32767;
  long beyond = 0;
  for (int i = 0; i < fused.sites(); ++i) {
    double n_q = 0, n_f = 0, n_s = 0;
    for (int k = 0; k < 12; ++k) {
      for (double v : {q[i](k).real(), q[i](k).imag()}) n_q = std::max(n_q, std::abs(v));
      for (double v : {fused[i](k).real(), fused[i](k).imag()}) n_f = std::max(n_f, std::abs(v));
      for (double v : {separate[i](k).real(), separate[i](k).imag()}) n_s = std::max(n_s, std::abs(v));
    }
    const double dq = std::abs(c) * kLevel * n_q * (1 + 2 * kLevel);
    const double cq = std::abs(c) * n_q * (1 + 2 * kLevel);
    for (int k = 0; k < 12; ++k) {
      const double allowed_re = dq + kLevel * (n_f + n_s) + 2 * kUf * (std::abs(r_start[i](k).real()) + cq);
      const double allowed_im = dq + kLevel * (n_f + n_s) + 2 * kUf * (std::abs(r_start[i](k).imag()) + cq);
      beyond += std::abs(fused[i](k).real() - separate[i](k).real()) <= allowed_re ? 0 : 1;
      beyond += std::abs(fused[i](k).imag() - separate[i](k).imag()) <= allowed_im ? 0 : 1;
    }
  }
  return beyond;
}

Comparison CompareWithBound(const SpinorField<double>& device_dr, const SpinorField<double>& oracle_dr,
                            const std::vector<double>& ukqcd_bound, const std::vector<double>& out_magnitude) {
  Comparison result;
  for (int i = 0; i < oracle_dr.sites(); ++i) {
    const int site = oracle_dr.SiteIndex(i);
    const double tolerance = kSqrt2 * ukqcd_bound[site] + 3 * kSqrt2 * kUd * out_magnitude[site];
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        for (int part = 0; part < 2; ++part) {
          const double got = part == 0 ? device_dr[i](s, c).real() : device_dr[i](s, c).imag();
          const double want = part == 0 ? oracle_dr[i](s, c).real() : oracle_dr[i](s, c).imag();
          const double error = std::abs(got - want);
          const double ratio = tolerance > 0 ? error / tolerance : (error == 0 ? 0 : INFINITY);
          if (!(error <= tolerance)) {  // NaN fails too
            if (result.violations++ == 0) {
              std::ostringstream where;
              where << "site " << site << " spin " << s << " colour " << c << (part ? " imag" : " real") << ": got "
                    << got << ", oracle " << want << ", bound " << tolerance;
              result.first_violation = where.str();
            }
          }
          if (std::isnan(error)) {
            result.max_ratio = INFINITY;
          } else {
            result.max_ratio = std::max(result.max_ratio, ratio);
            result.max_error = std::max(result.max_error, error);
          }
        }
      }
    }
  }
  return result;
}

// ---- The clover term and the clover epilogues (items 7 and 8) ----

std::vector<CloverSiteBlocks> IntegerBlocks(const Lattice& lattice, std::uint64_t seed, int diagonal_low) {
  std::vector<CloverSiteBlocks> blocks(lattice.volume());
  for (int site = 0; site < lattice.volume(); ++site) {
    RandomStream rng(seed, static_cast<std::uint64_t>(site));
    for (ChiralBlock<double>& b : blocks[site]) {
      for (int i = 0; i < 6; ++i) {
        b(i, i) = diagonal_low + static_cast<int>(rng.NextWord() % 5);
        for (int j = 0; j < i; ++j) {
          const double re = static_cast<int>(rng.NextWord() % 5) - 2, im = static_cast<int>(rng.NextWord() % 5) - 2;
          b(i, j) = {re, im};
          b(j, i) = {re, -im};
        }
      }
    }
  }
  return blocks;
}

SpinColorMatrix<double> UkqcdMatrix(const CloverSiteBlocks& blocks) {
  SpinColorMatrix<double> h = SpinColorMatrix<double>::Zero(), t = SpinColorMatrix<double>::Zero();
  for (int s = 0; s < 2; ++s) {
    for (int c = 0; c < 3; ++c) {
      const int upper = 3 * s + c, lower = 3 * (s + 2) + c;
      h(upper, upper) = h(upper, lower) = h(lower, upper) = 1.0;
      h(lower, lower) = -1.0;
    }
  }
  for (int chirality = 0; chirality < 2; ++chirality) {
    t.block<6, 6>(6 * chirality, 6 * chirality) = HermitianRead(blocks[chirality]);
  }
  return 0.5 * (h * t * h);
}

CloverSiteBlocks SiteBlocks(const CloverField<double>& clover, int site, bool inverse) {
  return inverse ? CloverSiteBlocks{clover.InverseBlock(site, 0), clover.InverseBlock(site, 1)}
                 : CloverSiteBlocks{clover.Block(site, 0), clover.Block(site, 1)};
}

std::vector<CloverSiteBlocks> AllSiteBlocks(const CloverField<double>& clover, bool inverse) {
  std::vector<CloverSiteBlocks> blocks(clover.lattice().volume());
  for (int site = 0; site < clover.lattice().volume(); ++site) blocks[site] = SiteBlocks(clover, site, inverse);
  return blocks;
}

ChiralBlock<double> HermitianRead(const ChiralBlock<double>& b) {
  ChiralBlock<double> h;
  for (int i = 0; i < 6; ++i) {
    h(i, i) = b(i, i).real();
    for (int j = 0; j < i; ++j) {
      h(i, j) = b(i, j);
      h(j, i) = std::conj(b(i, j));
    }
  }
  return h;
}

double Nu(const Complex<double>& z) { return std::abs(z.real()) + std::abs(z.imag()); }

double RowSum(const ChiralBlock<double>& b) {
  double rho = 0;
  for (int i = 0; i < 6; ++i) {
    double row = 0;
    for (int j = 0; j < 6; ++j) row += Nu(b(i, j));
    rho = std::max(rho, row);
  }
  return rho;
}

double LargestReal(const ChiralBlock<double>& b) {
  return std::max(b.real().cwiseAbs().maxCoeff(), b.imag().cwiseAbs().maxCoeff());
}

// Item 7, derived in docs/error_bounds.md ("GPU clover term"):
//   chiral sums a = u + l, b = u - l:  |a| <= sqrt 2 m + 2 e per real, input error 2 e;
//   per block: rho(C) (2 e) + depth u_c rho(C) |a| + sigma |a|, C = B / 2, where depth counts the roundings along
//   any term: the chiral sum 1, the 11-product sum 11, the output sum 1 (gamma_13 < 14 u_c), and for half the
//   block scale n * fl(1/32767) 2 and its product 1 (gamma_16 < 17 u_c); sigma = sum over a row's 11 stored reals of
//   their storage error: double 11 * 2^-1074 (halving a subnormal), single u_f rho(C) + 11 * 2^-150, half
//   11 * fl32(n_C) (1/2 + 2^-30) / 32767 (half a level of the stored float norm, plus the double arithmetic of the
//   levels).
double DeviceCloverError(Precision p, const CloverSiteBlocks& blocks, double m, double e) {
  const double uc = ArithmeticRoundoffOf(p);
  const double depth = p == Precision::kHalf ? 17 : 14;
  const double chiral = kSqrt2 * m + 2 * e;
  double error = 0;
  for (int chirality = 0; chirality < 2; ++chirality) {
    const ChiralBlock<double> b = HermitianRead(blocks[chirality]);
    const double rho_c = RowSum(b) / 2;
    double sigma = 0;
    switch (p) {
      case Precision::kDouble: sigma = 11 * 0x1p-1074; break;
      case Precision::kSingle: sigma = kUf * rho_c + 11 * 0x1p-150; break;
      case Precision::kHalf: sigma = 11 * (LargestReal(b) / 2) * (1 + kUf) * (0.5 + 0x1p-30) / 32767; break;
    }
    error += rho_c * (2 * e + depth * uc * chiral) + sigma * chiral;
  }
  return error;
}

double OutputStoreError(Precision p, double r, double error) {
  const double eps = p == Precision::kHalf ? SpinorStorageRoundoff(Precision::kHalf) : 0.0;
  return eps * (r + error) + SpinorStorageAbsoluteError(p);
}

double OracleError(const CloverSiteBlocks& blocks, double m) {
  return 12 * kUd * std::max(RowSum(HermitianRead(blocks[0])), RowSum(HermitianRead(blocks[1]))) * m;
}

std::vector<double> SiteErrors::Compared() const {
  std::vector<double> r(device.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = device[i] + oracle[i] / kSqrt2;
  return r;
}

std::vector<double> SiteErrors::Propagated() const {
  std::vector<double> r(device.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = device[i] + kSqrt2 * oracle[i];
  return r;
}

namespace {

// Item 4's combination a p + b q: the device's value (values off by ep, eq; sizes of the exact ones P, Q) and the
// oracle's (off by op, oq from exact). Device: |a| ep + |b| eq + 4 u_c (|a| (P + ep) + |b| (Q + eq)): each side
// is scaled by a coefficient rounded to the kernel's precision and added (three roundings), plus one for half's
// folded scale of x (kXpay); oracle: |a| op + |b| oq + 3 u_d (|a| (P + op) + |b| (Q + oq)).
struct Parts {
  double device, oracle;
};
Parts Combination(double uc, double a, double b, double p_size, Parts p, double q_size, Parts q) {
  a = std::abs(a);
  b = std::abs(b);
  return {a * p.device + b * q.device + 4 * uc * (a * (p_size + p.device) + b * (q_size + q.device)),
          a * p.oracle + b * q.oracle + 3 * kUd * (a * (p_size + p.oracle) + b * (q_size + q.oracle))};
}

double OracleRowSum(const CloverSiteBlocks& blocks) {
  return std::max(RowSum(HermitianRead(blocks[0])), RowSum(HermitianRead(blocks[1])));
}

void RequireSizes(const Lattice& lat, const EpilogueBoundInputs& in) {
  const std::size_t v = lat.volume();
  auto need = [&](const std::vector<double>& x, std::size_t n, const char* what) {
    if (x.size() != n) {
      throw std::invalid_argument(std::string("DslashEpilogueErrors: ") + what + " has " + std::to_string(x.size()) +
                                  " entries, expected " + std::to_string(n));
    }
  };
  need(in.in_magnitude, v, "in_magnitude");
  need(in.in_error, v, "in_error");
  need(in.link_error, kDims * v, "link_error");
  need(in.d_magnitude, v, "d_magnitude");
  need(in.out_magnitude, v, "out_magnitude");
  if (UsesX(in.epilogue)) {
    need(in.x_magnitude, v, "x_magnitude");
    need(in.x_error, v, "x_error");
  }
  if (UsesClover(in.epilogue)) {
    if (in.clover == nullptr || in.clover->size() != v) {
      throw std::invalid_argument("DslashEpilogueErrors: a clover epilogue needs the blocks of every site");
    }
  }
  const DslashEpilogue stored = PlainForm(in.epilogue);
  if (stored == DslashEpilogue::kCloverXpay || stored == DslashEpilogue::kXpayClover) {
    need(in.clover_magnitude, v, "clover_magnitude");
  }
}

}  // namespace

SiteErrors DslashEpilogueErrors(const Lattice& lat, const EpilogueBoundInputs& in) {
  RequireSizes(lat, in);
  const Precision p = in.precision;
  const double uc = ArithmeticRoundoffOf(p);
  SiteErrors errors{std::vector<double>(lat.volume(), 0.0), std::vector<double>(lat.volume(), 0.0)};
  for (int site = 0; site < lat.volume(); ++site) {
    if (lat.SiteParity(site) != in.out_parity) continue;
    // Items 3 (D in): the device's d against exact D on the reference input (input error, link error, 14 u_c
    // per hop) and the oracle's (15 u_d per hop).
    Parts d{0, 0};
    for (int mu = 0; mu < kDims; ++mu) {
      const int backward = lat.Backward(site, mu);
      const int hops[2] = {lat.Forward(site, mu), backward};
      const double link_errors[2] = {in.link_error[kDims * site + mu], in.link_error[kDims * backward + mu]};
      for (int k = 0; k < 2; ++k) {
        const double m = in.in_magnitude[hops[k]], e = in.in_error[hops[k]];
        d.device += kHopTermSum * e + (kHopTermSum * 14 * uc + 6 * kSqrt2 * link_errors[k]) * (m + e);
        d.oracle += kHopTermSum * 15 * kUd * m;
      }
    }
    // The exact D in's largest real in either basis: the oracle's plus sqrt 2 times its DR error.
    const double d_size = in.d_magnitude[site] + kSqrt2 * d.oracle;
    const Parts x{in.x_error.empty() ? 0.0 : in.x_error[site], 0.0};  // x is the reference itself for the oracle
    const double x_size = in.x_magnitude.empty() ? 0.0 : in.x_magnitude[site];
    Parts out{0, 0};
    switch (in.epilogue) {
      case DslashEpilogue::kNone: out = d; break;
      case DslashEpilogue::kXpay:
      case DslashEpilogue::kXpayDotNorm:  // the same output (the dot products come on top)
        out = Combination(uc, in.a, in.b, x_size, x, d_size, d);
        break;
      case DslashEpilogue::kClover: {
        const CloverSiteBlocks& blocks = (*in.clover)[site];
        out.device = DeviceCloverError(p, blocks, d_size, d.device);
        out.oracle = OracleError(blocks, in.d_magnitude[site]) + OracleRowSum(blocks) * d.oracle;
        break;
      }
      case DslashEpilogue::kCloverXpay:
      case DslashEpilogue::kCloverXpayDotNorm: {  // a (C x) + b (D in)
        const CloverSiteBlocks& blocks = (*in.clover)[site];
        const Parts cx{DeviceCloverError(p, blocks, x_size, x.device), OracleError(blocks, x_size)};
        const double cx_size = in.clover_magnitude[site] + kSqrt2 * cx.oracle;
        out = Combination(uc, in.a, in.b, cx_size, cx, d_size, d);
        break;
      }
      case DslashEpilogue::kXpayClover:
      case DslashEpilogue::kXpayCloverDotNorm: {  // a x + b (C D in)
        const CloverSiteBlocks& blocks = (*in.clover)[site];
        const Parts cd{DeviceCloverError(p, blocks, d_size, d.device),
                       OracleError(blocks, in.d_magnitude[site]) + OracleRowSum(blocks) * d.oracle};
        const double cd_size = in.clover_magnitude[site] + kSqrt2 * cd.oracle;
        out = Combination(uc, in.a, in.b, x_size, x, cd_size, cd);
        break;
      }
      case DslashEpilogue::kXpayAxpyNorm:
      case DslashEpilogue::kCloverXpayAxpyNorm:  // against the separate update: schur_operator_test, clover_dot_norm_test
        throw std::logic_error("DslashErrors: the axpy-norm epilogues have no oracle bound here");
    }
    // Item 5: the store, for an output whose exact size is at most the oracle's plus sqrt 2 its DR error.
    const double out_size = in.out_magnitude[site] + kSqrt2 * out.oracle;
    errors.device[site] = out.device + OutputStoreError(p, out_size, out.device);
    errors.oracle[site] = out.oracle;
  }
  return errors;
}

SiteErrors CloverTermErrors(const Lattice& lat, Precision precision, Parity parity,
                            const std::vector<CloverSiteBlocks>& clover, const std::vector<double>& in_magnitude,
                            const std::vector<double>& in_error, const std::vector<double>& out_magnitude) {
  const std::size_t v = lat.volume();
  if (clover.size() != v || in_magnitude.size() != v || in_error.size() != v || out_magnitude.size() != v) {
    throw std::invalid_argument("CloverTermErrors: every per-site input needs " + std::to_string(v) + " entries");
  }
  SiteErrors errors{std::vector<double>(v, 0.0), std::vector<double>(v, 0.0)};
  for (int site = 0; site < lat.volume(); ++site) {
    if (lat.SiteParity(site) != parity) continue;
    const double device = DeviceCloverError(precision, clover[site], in_magnitude[site], in_error[site]);
    const double oracle = OracleError(clover[site], in_magnitude[site]);
    errors.device[site] = device + OutputStoreError(precision, out_magnitude[site] + kSqrt2 * oracle, device);
    errors.oracle[site] = oracle;
  }
  return errors;
}

}  // namespace lqcd::gpu::testing
