// clover_dslash_test: the Dslash with its clover epilogues (wilson_dslash.h's ApplyCloverDslash), the GPU
// Wilson-clover operators (gpu_clover.h) and clover solves (spec_solver.h) against the CPU oracle
// (reference/clover.h and reference/wilson.h, double, DeGrand-Rossi).
//
//   - every precision x reconstruction x temporal gauge fixing x dagger x epilogue (C D in, a C x + b D in, and
//     a x + b C D in for D only) x T or T^{-1} x both parities within per-site bounds derived from the unit
//     roundoffs (oracle_comparison.h items 7-8, docs/error_bounds.md "GPU clover Dslash"); both trace
//     conventions of the clover term;
//   - small integers (links, spinors, clover blocks) give the oracle's result bit for bit in double and single;
//   - with c_sw = 0 the clover operator M = T - D/2 is the Wilson operator: bit for bit on integer spinors, and
//     within the bounds on random ones;
//   - ApplyCloverDslash refuses bad arguments (precisions, clover parity, dagger of the xpay-clover form, a
//     non-clover epilogue) with messages naming the problem;
//   - GpuClover (M, M^dag) and GpuCloverSchur (both forms: Apply, ApplyDagger, PrepareSource, Reconstruct,
//     RestrictGuess) in double, single and half within the bound of their launches chained; the
//     FullResidualPerSchurResidual values;
//   - SolveWithSpecOnGpu for double, mixed single and half, CGNR and gauge-fixed specs, both Schur forms,
//     reaches 1e-12 with |b - M x| / |b| recomputed on the host by the oracle.
// Every GPU test prints its worst error / bound per case (a ratio <= 1 passes) and skips itself without a GPU;
// the check that the oracle chains behind the bounds are the oracle's operators needs none.
#include "gpu/wilson_dslash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/clover_oracle_chain.h"
#include "gpu/gpu_clover.h"
#include "gpu/oracle_comparison.h"
#include "gpu/spec_solver.h"
#include "reference/clover.h"
#include "reference/error_testing.h"
#include "reference/gauge_transform.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/precision.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using testing::ApplyC;
using testing::ChainStep;
using testing::Combine;
using testing::Comparison;
using testing::DslashStep;
using testing::EpilogueBoundInputs;
using testing::EpilogueCase;
using testing::InverseStep;
using testing::LaunchBound;
using testing::Magnitudes;
using testing::OperatorSetup;
using testing::OracleLaunch;
using testing::RunOracle;
using testing::SchurChainOf;
using testing::SiteErrors;
using testing::UploadErrors;

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
constexpr DslashEpilogue kCloverEpilogues[] = {DslashEpilogue::kClover, DslashEpilogue::kCloverXpay,
                                               DslashEpilogue::kXpayClover};
constexpr double kUd = 0x1p-53;
const double kSqrt2 = std::sqrt(2.0);

// a and b of the epilogues: dyadic, so exact in every precision.
constexpr double kA = 1.25, kB = -0.375;

// c_sw = 1 and m = 1 for the launches and operators: on Haar-random links (the roughest field, the largest clover
// entries) the eigenvalues of T(n) lie in [3.9, 6.1] (condition number <= 1.51); the solves take m = -1.5 (T in
// [1.47, 3.58], condition 2.24; ~60 BiCGstab iterations). ExpectWellConditioned asserts positive T with a
// condition number below 4 wherever a field is made.
CloverParams Params(double mass, double c_sw, CloverTrace trace = CloverTrace::kTraceless) {
  CloverParams p;
  p.mass = mass;
  p.c_sw = c_sw;
  p.basis = GammaBasis::kDeGrandRossi;
  p.trace = trace;
  return p;
}

void ExpectWellConditioned(const CloverField<double>& clover) {
  std::printf("clover field c_sw %.2f m %.2f %s: eigenvalues of T in [%.3f, %.3f], condition <= %.3f\n",
              clover.params().c_sw, clover.params().mass, ToString(clover.params().trace), clover.min_eigenvalue(),
              clover.max_eigenvalue(), clover.max_condition());
  ASSERT_LT(clover.max_condition(), 4.0);
  ASSERT_GT(clover.min_eigenvalue(), 0.0);
}

std::vector<double> Sum(std::vector<double> a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

// The worst ratio seen per precision, printed at the end of a test (docs/error_bounds.md quotes them).
struct Worst {
  double ratio[3] = {0, 0, 0};
  void Add(Precision p, const Comparison& r) {
    double& w = ratio[static_cast<int>(p)];
    w = std::max(w, r.max_ratio);
  }
  void Print(const char* what) const {
    std::printf("%s: worst error/bound double %.3f, single %.3f, half %.3f\n", what, ratio[0], ratio[1], ratio[2]);
  }
};

bool ExpectWithinBound(const std::string& name, const Comparison& r) {
  std::printf("%-44s max |error| %.2e  max error/bound %.3f\n", name.c_str(), r.max_error, r.max_ratio);
  EXPECT_EQ(r.violations, 0) << name << ": " << r.first_violation;
  return r.violations == 0;
}

class CloverDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  // Extents all different and Lx / 2 odd, so index mix-ups cannot cancel; small enough for seconds.
  const Lattice lattice_{6, 4, 10, 8};
};

// ---- One launch against the oracle ----

// The device's result of one launch, downloaded to DR. out is poisoned first (NaN in every precision): a site
// the kernel misses fails the comparison.
SpinorField<double> RunDevice(const EpilogueCase& c, const DeviceGaugeField& gauge, const DeviceCloverField& clover,
                              const OracleLaunch& o, const FermionBoundary& boundary) {
  const Lattice& lat = gauge.lattice();
  DeviceSpinorField in(lat, SubsetOf(Opposite(c.out_parity)), c.precision);
  DeviceSpinorField x(lat, SubsetOf(c.out_parity), c.precision), out(lat, SubsetOf(c.out_parity), c.precision);
  in.Upload(o.in);
  x.Upload(o.x);
  out.FillBytes(0xff);
  CloverEpilogue e;
  e.kind = c.epilogue;
  e.clover = clover.View(c.out_parity, c.inverse);
  e.x = x.View();
  e.a = kA;
  e.b = kB;
  ApplyCloverDslash(out.View(), gauge, in.View(), c.dagger, e, boundary);
  return out.Download();
}

// Every precision x reconstruction for one field: daggers, epilogues, T / T^{-1} and parities.
void CheckEveryVariant(const GaugeField<double>& u, const CloverField<double>& clover, bool gauge_fixed,
                       const std::vector<Precision>& precisions, const std::vector<Reconstruct>& reconstructions,
                       std::uint64_t seed, Worst& worst, const std::string& label = "") {
  const Lattice& lat = u.lattice();
  const std::vector<CloverSiteBlocks> blocks[2] = {testing::AllSiteBlocks(clover, false),
                                                   testing::AllSiteBlocks(clover, true)};
  // The oracle's launches, shared by every precision and link form.
  struct Launch {
    Parity parity;
    Dagger dagger;
    DslashEpilogue epilogue;
    bool inverse;
    OracleLaunch oracle;
  };
  std::vector<Launch> launches;
  for (Parity parity : {Parity::kEven, Parity::kOdd}) {
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      for (DslashEpilogue epilogue : kCloverEpilogues) {
        if (epilogue == DslashEpilogue::kXpayClover && dagger == Dagger::kYes) continue;  // D only
        for (bool inverse : {false, true}) {
          launches.push_back({parity, dagger, epilogue, inverse,
                              RunOracle(u, clover, parity, dagger, epilogue, inverse, kA, kB, seed++)});
        }
      }
    }
  }
  for (Precision precision : precisions) {
    const DeviceCloverField device_clover(clover, {precision, 0});
    for (Reconstruct reconstruct : reconstructions) {
      const GaugeLayout layout{precision, reconstruct, gauge_fixed, 0};
      const DeviceGaugeField gauge(u, layout);
      const std::vector<double> link_error = testing::LinkErrorBounds(u, layout);
      for (const Launch& l : launches) {
        const EpilogueCase c{precision, reconstruct, gauge_fixed, l.dagger, l.epilogue, l.inverse, l.parity};
        const SpinorField<double> got = RunDevice(c, gauge, device_clover, l.oracle, clover.params().boundary);
        const SiteErrors bound = LaunchBound(lat, c, l.oracle, link_error, blocks[l.inverse]);
        const Comparison r = testing::CompareWithBound(got, l.oracle.out, bound.Compared(), l.oracle.out_magnitude);
        ExpectWithinBound(label + c.Name(), r);
        worst.Add(precision, r);
      }
    }
  }
}

// 2 gauge fixings x 3 precisions x 3 reconstructions x (2 daggers x 2 epilogues + 1) x T / T^{-1} x 2 parities
// = 360 launches.
TEST_F(CloverDslashTest, EveryEpilogueVariantMatchesTheOracle) {
  Worst worst;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 1101, gauge_fixed);
    const CloverField<double> clover(u, Params(1.0, 1.0));  // built from the links used: gauge fixed or not
    ExpectWellConditioned(clover);
    CheckEveryVariant(u, clover, gauge_fixed, {std::begin(kPrecisions), std::end(kPrecisions)},
                      {std::begin(kReconstructions), std::end(kReconstructions)}, 1200, worst);
  }
  worst.Print("clover epilogues, Haar-random links");
}

// The trace convention changes only the clover field's values (kWithTrace keeps Im tr Q / 4 per plane); every
// epilogue in double and half with 12 reals, on both conventions of one configuration.
TEST_F(CloverDslashTest, BothTraceConventionsMatchTheOracle) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 1102, false);
  Worst worst;
  double largest_difference = 0;
  const CloverField<double> traceless(u, Params(1.0, 1.0, CloverTrace::kTraceless));
  const CloverField<double> with_trace(u, Params(1.0, 1.0, CloverTrace::kWithTrace));
  for (int site = 0; site < lattice_.volume(); ++site) {
    for (int chirality = 0; chirality < 2; ++chirality) {
      largest_difference =
          std::max(largest_difference,
                   (traceless.Block(site, chirality) - with_trace.Block(site, chirality)).cwiseAbs().maxCoeff());
    }
  }
  std::printf("largest |T_traceless - T_with_trace| entry: %.3f\n", largest_difference);
  ASSERT_GT(largest_difference, 0.01)
      << "the two conventions must give different fields for this test to mean anything";
  for (const CloverField<double>* clover : {&traceless, &with_trace}) {
    ExpectWellConditioned(*clover);
    CheckEveryVariant(u, *clover, false, {Precision::kDouble, Precision::kHalf}, {Reconstruct::k12}, 1210, worst,
                      std::string(ToString(clover->params().trace)) + " ");
  }
  worst.Print("clover epilogues, both trace conventions");
}

// ---- Small integers: exact ----

// Integer links in [-2, 2], integer spinors in [-3, 3], integer Hermitian clover blocks (T and T^{-1} different
// integer blocks, so using the wrong view fails), a = 2, b = -3, in the UKQCD basis on both sides: every real of D
// in is an integer of size <= 6 * 72 + 72 = 504 (a spatial hop's U h has reals <= 3 * (2 * 6 + 2 * 6) = 72, a
// temporal one 2 * 36 on the spins it keeps), the chiral sums are <= 1008, C = B / 2 has half-integer entries with
// row sums rho(C) <= 4 + 5 * 2 = 14, so C D in <= 2 * 14 * 1008 < 2^15 and every intermediate, a and b applied, is a
// multiple of 1/2 below 2^17: exact in double and in single (2^23 halves) whatever the order of the operations. The
// oracle: ApplyHoppingParity in the UKQCD basis (exact on integers) and the dense (1/2) H diag(B_+, B_-) H.
TEST_F(CloverDslashTest, SmallIntegersGiveTheOraclesResultExactly) {
  const std::vector<CloverSiteBlocks> t = testing::IntegerBlocks(lattice_, 1301, 4);
  const std::vector<CloverSiteBlocks> t_inverse = testing::IntegerBlocks(lattice_, 1302, 1);
  const double a = 2, b = -3;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::IntegerLinks(lattice_, 1303, gauge_fixed);
    for (Precision precision : {Precision::kDouble, Precision::kSingle}) {
      const DeviceGaugeField gauge(u, {precision, Reconstruct::k18, gauge_fixed, 0});
      const DeviceCloverField clover(lattice_, t, t_inverse, {precision, 0});
      for (Parity parity : {Parity::kEven, Parity::kOdd}) {
        const Parity other = Opposite(parity);
        const SpinorField<double> in = testing::IntegerSpinors(lattice_, SubsetOf(other), 1304);
        const SpinorField<double> x = testing::IntegerSpinors(lattice_, SubsetOf(parity), 1305);
        DeviceSpinorField in_device(lattice_, SubsetOf(other), precision);
        DeviceSpinorField x_device(lattice_, SubsetOf(parity), precision), out(lattice_, SubsetOf(parity), precision);
        in_device.Upload(in, GammaBasis::kUkqcd);
        x_device.Upload(x, GammaBasis::kUkqcd);
        for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          SpinorField<double> d(lattice_, SubsetOf(parity));
          ApplyHoppingParity(d, u, in, GammaBasis::kUkqcd, FermionBoundary::AntiperiodicTime(), dagger);
          for (DslashEpilogue epilogue : kCloverEpilogues) {
            if (epilogue == DslashEpilogue::kXpayClover && dagger == Dagger::kYes) continue;
            for (bool inverse : {false, true}) {
              const std::vector<CloverSiteBlocks>& blocks = inverse ? t_inverse : t;
              SpinorField<double> want(lattice_, SubsetOf(parity));
              for (int i = 0; i < want.sites(); ++i) {
                const SpinColorMatrix<double> c = testing::UkqcdMatrix(blocks[want.SiteIndex(i)]);
                const SiteSpinor<double> cx = FromSpinColorVector<double>(c * ToSpinColorVector(x[i]));
                const SiteSpinor<double> cd = FromSpinColorVector<double>(c * ToSpinColorVector(d[i]));
                want[i] = epilogue == DslashEpilogue::kClover       ? cd
                          : epilogue == DslashEpilogue::kCloverXpay ? SiteSpinor<double>(a * cx + b * d[i])
                                                                    : SiteSpinor<double>(a * x[i] + b * cd);
              }
              CloverEpilogue e;
              e.kind = epilogue;
              e.clover = clover.View(parity, inverse);
              e.x = x_device.View();
              e.a = a;
              e.b = b;
              out.FillBytes(0xff);
              ApplyCloverDslash(out.View(), gauge, in_device.View(), dagger, e);
              const SpinorField<double> got = out.Download(GammaBasis::kUkqcd);
              const EpilogueCase c{precision, Reconstruct::k18, gauge_fixed, dagger, epilogue, inverse, parity};
              long mismatches = 0;
              for (int i = 0; i < got.sites(); ++i) {
                if (got[i] != want[i] && mismatches++ == 0) {
                  ADD_FAILURE() << c.Name() << " site " << want.SiteIndex(i) << ": got\n"
                                << got[i] << "\nwant\n"
                                << want[i];
                }
              }
              EXPECT_EQ(mismatches, 0) << c.Name();
            }
          }
        }
      }
    }
  }
}

// ---- c_sw = 0: the clover operator is the Wilson operator ----

// With c_sw = 0 every block is (4 + m) 1 (clover_test), stored as C = (4 + m) / 2 with zero off-diagonal entries.
// GpuClover's epilogue computes 1 * (C x) + (-1/2) D in, C x through the chiral sums u +- l and the blocks;
// GpuWilson's computes (4 + m) x + (-1/2) D in. On integer links and spinors with m = 1 every one of those
// operations is exact (integers, halves, 2.5 times integers, products with the zero entries adding exact zeros),
// so both store the exact value of M x: bit for bit, and equal to 5 x - D x / 2 from the oracle's ApplyHopping in
// the UKQCD basis (also exact; ApplyWilson itself is not, it scales by 1 / (2 kappa) = 5 after multiplying by
// kappa = 0.1). On random inputs the two round differently; each is within its bound of its oracle (the
// clover-xpay bound of ApplyWilsonClover, the xpay bound of (4 + m) x - D x / 2), and so within the sum of the two
// (plus the two oracles' measured difference) of each other.
TEST_F(CloverDslashTest, ZeroCswCloverOperatorIsTheWilsonOperator) {
  const double mass = 1.0;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::IntegerLinks(lattice_, 1401, gauge_fixed);
    const CloverField<double> clover(u, Params(mass, 0.0));
    for (int site = 0; site < lattice_.volume(); ++site) {
      for (int chirality = 0; chirality < 2; ++chirality) {
        ASSERT_EQ(clover.Block(site, chirality), (4 + mass) * ChiralBlock<double>::Identity()) << "site " << site;
      }
    }
    const auto gauge = UploadGauge<double>(u, {Reconstruct::k18, gauge_fixed, 0});
    const GpuClover<double> m_clover(gauge, UploadClover<double>(clover));
    const WilsonParams w = clover.params().wilson();
    const GpuWilson<double> m_wilson(gauge, w);
    const SpinorField<double> in = testing::IntegerSpinors(lattice_, Subset::kFull, 1402);
    GpuSpinorField<double> in_device(lattice_, Subset::kFull), out_clover(lattice_, Subset::kFull),
        out_wilson(lattice_, Subset::kFull);
    in_device.Upload(in, GammaBasis::kUkqcd);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      if (dagger == Dagger::kNo) {
        m_clover.Apply(out_clover, in_device);
        m_wilson.Apply(out_wilson, in_device);
      } else {
        m_clover.ApplyDagger(out_clover, in_device);
        m_wilson.ApplyDagger(out_wilson, in_device);
      }
      SpinorField<double> d(lattice_);
      ApplyHopping(d, u, in, GammaBasis::kUkqcd, w.boundary, dagger);
      const SpinorField<double> oracle = Combine(4 + mass, in, -0.5, d);
      const SpinorField<double> got_clover = out_clover.Download(GammaBasis::kUkqcd);
      const SpinorField<double> got_wilson = out_wilson.Download(GammaBasis::kUkqcd);
      long differ = 0, off_oracle = 0;
      for (int i = 0; i < oracle.sites(); ++i) {
        differ += got_clover[i] == got_wilson[i] ? 0 : 1;
        off_oracle += got_clover[i] == oracle[i] ? 0 : 1;
      }
      const std::string what =
          std::string(gauge_fixed ? "gauge fixed " : "") + (dagger == Dagger::kYes ? "M^dag" : "M");
      EXPECT_EQ(differ, 0) << what << ": GpuClover (c_sw = 0) and GpuWilson differ";
      EXPECT_EQ(off_oracle, 0) << what << ": GpuClover (c_sw = 0) differs from the exact oracle";
    }
  }
}

// The bound of the full operator out_p = a T x_p + b D x_p' (kCloverXpay, a = 1, b = -1/2) or of
// (4 + m) x_p - D x_p' / 2 (kXpay), summed over the two parities (disjoint sites).
struct FullOperatorOracle {
  SpinorField<double> d, tx, out;  // D x, T x, M x on the full lattice
};
SiteErrors FullOperatorBound(const Lattice& lat, Precision precision, const std::vector<double>& link_error,
                             const std::vector<CloverSiteBlocks>* blocks, const SpinorField<double>& x,
                             const std::vector<double>& x_error, const FullOperatorOracle& o, double wilson_diagonal) {
  SiteErrors total{std::vector<double>(lat.volume(), 0.0), std::vector<double>(lat.volume(), 0.0)};
  for (Parity p : {Parity::kEven, Parity::kOdd}) {
    EpilogueBoundInputs b;
    b.precision = precision;
    b.out_parity = p;
    b.epilogue = blocks != nullptr ? DslashEpilogue::kCloverXpay : DslashEpilogue::kXpay;
    b.in_magnitude = Magnitudes(x);
    b.in_error = x_error;
    b.link_error = link_error;
    b.clover = blocks;
    b.d_magnitude = Magnitudes(o.d);
    b.x_magnitude = b.in_magnitude;
    b.x_error = b.in_error;
    b.clover_magnitude = Magnitudes(o.tx);
    b.out_magnitude = Magnitudes(o.out);
    b.a = blocks != nullptr ? 1.0 : wilson_diagonal;
    b.b = -0.5;
    const SiteErrors e = testing::DslashEpilogueErrors(lat, b);
    total.device = Sum(total.device, e.device);
    total.oracle = Sum(total.oracle, e.oracle);
  }
  return total;
}

template <typename P>
void CheckZeroCswOnRandomInputs(const Lattice& lat, Worst& worst) {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  const double mass = 1.0;
  const GaugeField<double> u = testing::RandomLinks(lat, 1411, false);
  const CloverField<double> clover(u, Params(mass, 0.0));
  const auto gauge = UploadGauge<P>(u, {Reconstruct::k18, false, 0});
  const GpuClover<P> m_clover(gauge, UploadClover<P>(clover));
  const GpuWilson<P> m_wilson(gauge, clover.params().wilson());
  const std::vector<double> link_error = testing::LinkErrorBounds(u, {precision, Reconstruct::k18, false, 0});
  const std::vector<CloverSiteBlocks> blocks = testing::AllSiteBlocks(clover, false);
  SpinorField<double> x(lat);
  FillGaussian(x, 1412);
  GpuSpinorField<P> x_device(lat, Subset::kFull), out_clover(lat, Subset::kFull), out_wilson(lat, Subset::kFull);
  x_device.Upload(x);
  for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
    if (dagger == Dagger::kNo) {
      m_clover.Apply(out_clover, x_device);
      m_wilson.Apply(out_wilson, x_device);
    } else {
      m_clover.ApplyDagger(out_clover, x_device);
      m_wilson.ApplyDagger(out_wilson, x_device);
    }
    FullOperatorOracle oc{SpinorField<double>(lat), SpinorField<double>(lat), SpinorField<double>(lat)};
    ApplyHopping(oc.d, u, x, GammaBasis::kDeGrandRossi, clover.params().boundary, dagger);
    ApplyCloverBlocks(oc.tx, clover, x);
    ApplyWilsonClover(oc.out, u, clover, x, dagger);
    const FullOperatorOracle ow{oc.d, oc.tx, Combine(4 + mass, x, -0.5, oc.d)};
    const std::vector<double> x_error = UploadErrors(x, precision);
    const SiteErrors bc = FullOperatorBound(lat, precision, link_error, &blocks, x, x_error, oc, 0);
    const SiteErrors bw = FullOperatorBound(lat, precision, link_error, nullptr, x, x_error, ow, 4 + mass);
    const std::string name = std::string(ToString(precision)) + (dagger == Dagger::kYes ? " M^dag" : " M") + " c_sw=0";
    const SpinorField<double> got_clover = out_clover.Download(), got_wilson = out_wilson.Download();
    const std::vector<double> r = Magnitudes(oc.out);
    Comparison cmp = testing::CompareWithBound(got_clover, oc.out, bc.Compared(), r);
    ExpectWithinBound(name + " clover vs oracle", cmp);
    worst.Add(precision, cmp);
    ExpectWithinBound(name + " wilson vs oracle", testing::CompareWithBound(got_wilson, ow.out, bw.Compared(), r));
    // Each device result is within its bound of its oracle; the two oracles differ by at most delta (measured,
    // per DR real); each download adds 3 sqrt 2 u_d R, which CompareWithBound counts once: add the other.
    std::vector<double> mutual = Sum(bc.Compared(), bw.Compared());
    for (int i = 0; i < oc.out.sites(); ++i) {
      const double delta = (oc.out[i] - ow.out[i]).cwiseAbs().maxCoeff();
      mutual[i] += (delta + 3 * kSqrt2 * kUd * r[i]) / kSqrt2;
    }
    cmp = testing::CompareWithBound(got_clover, got_wilson, mutual, r);
    ExpectWithinBound(name + " clover vs wilson", cmp);
  }
}

TEST_F(CloverDslashTest, ZeroCswCloverOperatorIsWithinTheBoundOfWilsonOnRandomInputs) {
  Worst worst;
  const Lattice lat(4, 6, 4, 8);
  CheckZeroCswOnRandomInputs<double>(lat, worst);
  CheckZeroCswOnRandomInputs<float>(lat, worst);
  CheckZeroCswOnRandomInputs<Half>(lat, worst);
  worst.Print("c_sw = 0 clover operator");
}

// ---- Refusals ----

TEST_F(CloverDslashTest, BadArgumentsAreRefused) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 1501, false);
  const CloverField<double> host(u, Params(1.0, 1.0));
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k12, false, 0});
  const DeviceCloverField clover(host, {Precision::kSingle, 0}), clover_double(host, {Precision::kDouble, 0});
  DeviceSpinorField even(lattice_, Subset::kEven, Precision::kSingle), odd(lattice_, Subset::kOdd, Precision::kSingle);
  DeviceSpinorField even_double(lattice_, Subset::kEven, Precision::kDouble);
  auto epilogue = [&](DslashEpilogue kind, const CloverView& view) {
    CloverEpilogue e;
    e.kind = kind;
    e.clover = view;
    e.x = even.View();
    e.a = 1;
    e.b = -0.5;
    return e;
  };
  auto error = [&](const SpinorView& out, const ConstSpinorView& in, Dagger dagger, const CloverEpilogue& e) {
    return ErrorOf([&] { ApplyCloverDslash(out, gauge, in, dagger, e); });
  };
  // The clover field in double, the spinors and links in single.
  EXPECT_CONTAINS(error(even.View(), odd.View(), Dagger::kNo,
                        epilogue(DslashEpilogue::kClover, clover_double.View(Parity::kEven, true))),
                  "the clover field is in double precision but out in single");
  // The spinors in double, links and clover in single.
  EXPECT_CONTAINS(error(even_double.View(), odd.View(), Dagger::kNo,
                        epilogue(DslashEpilogue::kClover, clover.View(Parity::kEven, true))),
                  "precision");
  // The clover view of the other parity.
  EXPECT_CONTAINS(error(even.View(), odd.View(), Dagger::kNo,
                        epilogue(DslashEpilogue::kCloverXpay, clover.View(Parity::kOdd, false))),
                  "the clover field must be on the parity of out");
  // a x + b C D^dag in does not exist.
  EXPECT_CONTAINS(error(even.View(), odd.View(), Dagger::kYes,
                        epilogue(DslashEpilogue::kXpayClover, clover.View(Parity::kEven, true))),
                  "is not provided");
  // Epilogues without a clover term belong to ApplyWilsonDslash(Xpay).
  EXPECT_CONTAINS(
      error(even.View(), odd.View(), Dagger::kNo, epilogue(DslashEpilogue::kNone, clover.View(Parity::kEven, true))),
      "epilogue none has no clover term");
  EXPECT_CONTAINS(
      error(even.View(), odd.View(), Dagger::kNo, epilogue(DslashEpilogue::kXpay, clover.View(Parity::kEven, true))),
      "epilogue xpay has no clover term");
  // x on the wrong parity, and a clover view without memory.
  CloverEpilogue wrong_x = epilogue(DslashEpilogue::kCloverXpay, clover.View(Parity::kEven, false));
  wrong_x.x = odd.View();
  EXPECT_CONTAINS(error(even.View(), odd.View(), Dagger::kNo, wrong_x), "x must be on the parity of out");
  CloverEpilogue no_memory = epilogue(DslashEpilogue::kClover, clover.View(Parity::kEven, true));
  no_memory.clover.data = nullptr;
  EXPECT_CONTAINS(error(even.View(), odd.View(), Dagger::kNo, no_memory), "the clover field has no device memory");
  // The good call is accepted.
  EXPECT_EQ(error(even.View(), odd.View(), Dagger::kYes,
                  epilogue(DslashEpilogue::kCloverXpay, clover.View(Parity::kEven, false))),
            "");
}

// ---- The operators of gpu_clover.h against the oracle's ----

// The chains of launches of PrepareSource and Reconstruct, beside the Schur application's (SchurChainOf,
// clover_oracle_chain.h), with the same steps.

// PrepareSource: s = T_p'p'^{-1} b_p', b'_p = b_p + (1/2) D s (then T_pp^{-1} of it for the unit-diagonal form).
ChainStep SourceChainOf(const OperatorSetup& s, CloverSchurForm form, Parity p, const SpinorField<double>& b) {
  const SpinorField<double> b_p = Extract(b, p), b_other = Extract(b, Opposite(p));
  const std::vector<double> b_p_error = UploadErrors(b_p, s.precision);
  const ChainStep first = InverseStep(s, b_other, UploadErrors(b_other, s.precision));
  ChainStep second = DslashStep(s, p, Dagger::kNo, DslashEpilogue::kXpay, first.out, first.errors.Propagated(), &b_p,
                                &b_p_error, 1.0, 0.5, false);
  if (form == CloverSchurForm::kComplement) return second;
  return InverseStep(s, second.out, second.errors.Propagated());
}

// Reconstruct: x_p copied; x_p' = T_p'p'^{-1} (b_p' + (1/2) D x_p).
ChainStep ReconstructChainOf(const OperatorSetup& s, const SpinorField<double>& x_p, const SpinorField<double>& b) {
  const Lattice& lat = b.lattice();
  const Parity other = Opposite(x_p.parity());
  const SpinorField<double> b_other = Extract(b, other);
  const std::vector<double> b_error = UploadErrors(b_other, s.precision);
  const ChainStep first = DslashStep(s, other, Dagger::kNo, DslashEpilogue::kXpay, x_p, UploadErrors(x_p, s.precision),
                                     &b_other, &b_error, 1.0, 0.5, false);
  const ChainStep second = InverseStep(s, first.out, first.errors.Propagated());
  SpinorField<double> x(lat);
  Insert(x, x_p);
  Insert(x, second.out);
  // On x_p's sites the device's value is the uploaded x_p (the copy is exact): its upload error, no oracle error.
  return {{Sum(second.errors.device, UploadErrors(x_p, s.precision)), second.errors.oracle}, std::move(x)};
}

template <typename P>
void CheckOperators(Reconstruct reconstruct, Worst& worst) {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  const Lattice lat(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 1601, false);
  const CloverField<double> clover(u, Params(1.0, 1.0));
  ExpectWellConditioned(clover);
  const std::vector<CloverSiteBlocks> t = testing::AllSiteBlocks(clover, false);
  const std::vector<CloverSiteBlocks> t_inverse = testing::AllSiteBlocks(clover, true);
  const std::vector<double> link_error = testing::LinkErrorBounds(u, {precision, reconstruct, false, 0});
  const OperatorSetup setup{u, clover, t, t_inverse, precision, link_error};
  const auto gauge = UploadGauge<P>(u, {reconstruct, false, 0});
  const GpuCloverTerm term = UploadClover<P>(clover);
  const GpuClover<P> m(gauge, term);
  const std::string layout = std::string(ToString(precision)) + "/" + ToString(reconstruct);
  auto report = [&](const std::string& what, const SpinorField<double>& got, const SpinorField<double>& want,
                    const SiteErrors& bound) {
    const Comparison r = testing::CompareWithBound(got, want, bound.Compared(), Magnitudes(want));
    ExpectWithinBound(layout + " " + what, r);
    worst.Add(precision, r);
  };

  SpinorField<double> x(lat), b(lat);
  FillGaussian(x, 1602);
  FillGaussian(b, 1603);
  GpuSpinorField<P> x_device(lat, Subset::kFull), b_device(lat, Subset::kFull);
  x_device.Upload(x);
  b_device.Upload(b);

  // M and M^dag: out_p = 1 (T x_p) - (1/2) D x_p' per parity (one clover-xpay launch each).
  for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
    GpuSpinorField<P> out = m.NewField();
    if (dagger == Dagger::kNo) {
      m.Apply(out, x_device);
    } else {
      m.ApplyDagger(out, x_device);
    }
    FullOperatorOracle o{SpinorField<double>(lat), SpinorField<double>(lat), SpinorField<double>(lat)};
    ApplyHopping(o.d, u, x, GammaBasis::kDeGrandRossi, clover.params().boundary, dagger);
    ApplyCloverBlocks(o.tx, clover, x);
    ApplyWilsonClover(o.out, u, clover, x, dagger);
    report(dagger == Dagger::kNo ? "M" : "M^dag", out.Download(), o.out,
           FullOperatorBound(lat, precision, setup.link_error, &t, x, UploadErrors(x, precision), o, 0));
  }

  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    for (Parity p : {Parity::kEven, Parity::kOdd}) {
      const GpuCloverSchur<P> schur(gauge, term, form, p);
      const std::string name = schur.Name() + " ";
      SpinorField<double> in(lat, SubsetOf(p));
      FillGaussian(in, 1604 + static_cast<int>(p));
      GpuSpinorField<P> in_device = schur.NewField();
      in_device.Upload(in);
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        GpuSpinorField<P> out = schur.NewField();
        if (dagger == Dagger::kNo) {
          schur.Apply(out, in_device);
        } else {
          schur.ApplyDagger(out, in_device);
        }
        SpinorField<double> oracle(lat, SubsetOf(p));
        ApplyCloverSchur(oracle, u, clover, in, form, dagger);
        const ChainStep chain = SchurChainOf(setup, form, dagger, in);
        report(name + (dagger == Dagger::kNo ? "Apply" : "ApplyDagger"), out.Download(), oracle, chain.errors);
      }
      {
        GpuSpinorField<P> source = schur.NewField();
        schur.PrepareSource(source, b_device);
        report(name + "PrepareSource", source.Download(), PrepareCloverSchurSource(u, clover, b, p, form),
               SourceChainOf(setup, form, p, b).errors);
      }
      {
        SpinorField<double> x_p = Extract(x, p);
        GpuSpinorField<P> xp_device = schur.NewField(), x_full(lat, Subset::kFull);
        xp_device.Upload(x_p);
        schur.Reconstruct(x_full, xp_device, b_device);
        report(name + "Reconstruct", x_full.Download(), ReconstructCloverSolution(u, clover, x_p, b),
               ReconstructChainOf(setup, x_p, b).errors);
      }
      {  // RestrictGuess: the parity-p block, bit for bit.
        GpuSpinorField<P> restricted = schur.NewField();
        schur.RestrictGuess(restricted, x_device);
        EXPECT_EQ(MaxAbsDifference(restricted.Download(), Extract(x_device.Download(), p)), 0.0) << name;
      }
      const double norm_t = std::max(std::fabs(clover.min_eigenvalue()), std::fabs(clover.max_eigenvalue()));
      const double expected_ratio = form == CloverSchurForm::kComplement ? 1.0 : norm_t;
      EXPECT_EQ(schur.FullResidualPerSchurResidual(), expected_ratio) << name;
      EXPECT_EQ(schur.parity(), p);
      EXPECT_EQ(schur.form(), form);
    }
  }
}

TEST_F(CloverDslashTest, CloverOperatorsMatchTheOracle) {
  Worst worst;
  CheckOperators<double>(Reconstruct::k18, worst);
  CheckOperators<float>(Reconstruct::k8, worst);
  CheckOperators<Half>(Reconstruct::k12, worst);
  worst.Print("GpuClover and GpuCloverSchur");
}

// ---- Solves ----

constexpr double kSolveTolerance = 1e-12;

// |b - M x| / |b| recomputed on the host with the oracle's ApplyWilsonClover, and the largest value it may take
// when the device's own full residual (in double, with the outer links) met the tolerance:
//   b - M x_h = S (b_d - M_U x_d) - S db - M dx,  b_d = S b + db the uploaded source, x_h = S x_d + dx the
//   downloaded solution (|db| <= 3 sqrt 2 u_d |b|, |dx| <= 3 sqrt 2 u_d |x|, normwise from the per-real basis
//   change of oracle_comparison.h item 1), ||M|| <= ||T|| + ||D|| / 2 <= max|lambda(T)| + 4 sqrt 2;
//   |b_d - M_U x_d| <= |fl(b_d - M_U x_d)| + R_dev <= tol |b_d| (1 + 2 g) + R_dev, g = gamma_{24 V} for the
//   device's norms (double accumulation of 24 V squares);
//   the host's value is its fl(b - M x_h) within R_host, and its ratio of norms within (1 + 2 g).
// R_dev and R_host are normwise sums of per-real bounds: the clover-xpay launch's device part (with the outer
// links' error, no input error) and the oracle's part, each plus one rounding of the subtraction u_d (|b| + |M x|).
struct HostCheck {
  double residual;
  double allowed;
};
HostCheck CheckOnTheHost(const GaugeField<double>& u, const CloverField<double>& clover,
                         const std::vector<double>& link_error, const SpinorField<double>& x,
                         const SpinorField<double>& b) {
  const Lattice& lat = u.lattice();
  FullOperatorOracle o{SpinorField<double>(lat), SpinorField<double>(lat), SpinorField<double>(lat)};
  ApplyHopping(o.d, u, x, GammaBasis::kDeGrandRossi, clover.params().boundary, Dagger::kNo);
  ApplyCloverBlocks(o.tx, clover, x);
  ApplyWilsonClover(o.out, u, clover, x, Dagger::kNo);
  const double nb = std::sqrt(Norm2(b)), nx = std::sqrt(Norm2(x));
  const double residual = std::sqrt(Norm2(Difference(b, o.out))) / nb;

  const std::vector<CloverSiteBlocks> t = testing::AllSiteBlocks(clover, false);
  // No input error: the device's residual is of its own x_d (x_h's difference from it is dx above).
  const SiteErrors e =
      FullOperatorBound(lat, Precision::kDouble, link_error, &t, x, std::vector<double>(lat.volume(), 0.0), o, 0);
  const std::vector<double> mb = Magnitudes(b), mmx = Magnitudes(o.out);
  double r_dev2 = 0, r_host2 = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    const double subtraction = kUd * (mb[site] + mmx[site] + e.device[site]);
    r_dev2 += 24 * std::pow(e.device[site] + subtraction, 2);
    r_host2 += 24 * std::pow(e.oracle[site] + subtraction, 2);
  }
  const double n = 24.0 * lat.volume();
  const double g = n * kUd / (1 - n * kUd);
  const double m_norm = std::max(std::fabs(clover.min_eigenvalue()), std::fabs(clover.max_eigenvalue())) + 4 * kSqrt2;
  const double basis = 3 * kSqrt2 * kUd * (nb + m_norm * nx);
  const double device_side = kSolveTolerance * nb * (1 + 3 * kSqrt2 * kUd) * (1 + 2 * g);
  return {residual, (device_side + std::sqrt(r_dev2) + std::sqrt(r_host2) + basis) / nb * (1 + 2 * g)};
}

TEST_F(CloverDslashTest, SpecSolvesReachTheToleranceOnTheHost) {
  const Lattice lat(8, 8, 8, 8);
  const GaugeField<double> plain = testing::RandomLinks(lat, 1701, false);
  const GaugeField<double> fixed = TemporalGaugeFix(plain).field;
  const CloverParams params = Params(-1.5, 1.0);
  SpinorField<double> b(lat);
  FillGaussian(b, 1702);
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double>& u = gauge_fixed ? fixed : plain;
    GpuGaugeLinks links(u, gauge_fixed);
    GpuCloverTerms clover(u, params);  // built from the links solved on
    ExpectWellConditioned(clover.host());
    const std::vector<const char*> specs =
        gauge_fixed ? std::vector<const char*>{"bicgstab:double/12/gf", "bicgstab-reliable:half/12/gf:0.1"}
                    : std::vector<const char*>{"bicgstab:double", "bicgstab-reliable:single:0.1",
                                               "bicgstab-reliable:half/12:0.1", "cg:double"};
    for (const char* text : specs) {
      for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
        solvers::SolverSpec spec = solvers::SolverSpec::Parse(text);
        spec.tolerance = kSolveTolerance;
        spec.max_iterations = 5000;
        GpuSpinorField<double> x(lat, Subset::kFull), b_device(lat, Subset::kFull);
        b_device.Upload(b);
        const solvers::SolveResult r = SolveWithSpecOnGpu(spec, links, clover, form, x, b_device);
        const std::string name = std::string(text) + " " + ToString(form);
        std::printf("%-44s %-11s iterations %5d (updates %3d)  device residual %.3e  %.3f s  %s\n", name.c_str(),
                    solvers::ToString(r.status), r.iterations, r.high_precision_updates, r.true_residual, r.seconds,
                    r.solver.c_str());
        EXPECT_TRUE(r.converged()) << name << ": " << r.reason;
        if (!r.converged()) continue;
        const std::vector<double> link_error = testing::LinkErrorBounds(
            u, {Precision::kDouble, static_cast<Reconstruct>(spec.outer().link_reals), gauge_fixed, 0});
        const HostCheck host = CheckOnTheHost(u, clover.host(), link_error, x.Download(), b);
        std::printf("%-44s host |b - M x| / |b| = %.3e (allowed %.3e)\n", name.c_str(), host.residual, host.allowed);
        EXPECT_LE(host.residual, host.allowed) << name;
      }
    }
  }
}

// The block form (SolveBlockWithSpecOnGpu on GpuCloverSchur's multi-RHS application): every system of a block
// reaches the tolerance on the host within the same bound as a separate solve, in both forms and with a mixed
// precision spec; plain double BiCGstab in the complement form, whose block operator is the single one bit for
// bit (multi_rhs_clover_dslash_test), takes each system's separate iteration count.
TEST_F(CloverDslashTest, BlockSpecSolvesReachTheToleranceOnTheHost) {
  const Lattice lat(8, 8, 8, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 1711, false);
  const CloverParams params = Params(-1.5, 1.0);
  GpuGaugeLinks links(u, false);
  GpuCloverTerms clover(u, params);
  ExpectWellConditioned(clover.host());
  constexpr int kSystems = 3;
  std::vector<SpinorField<double>> b;
  for (int k = 0; k < kSystems; ++k) {
    b.emplace_back(lat);
    FillGaussian(b.back(), 1712 + k);
  }
  for (const char* text : {"bicgstab:double", "bicgstab-reliable:half/12:0.1"}) {
    for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
      solvers::SolverSpec spec = solvers::SolverSpec::Parse(text);
      spec.tolerance = kSolveTolerance;
      spec.max_iterations = 5000;
      std::vector<GpuSpinorField<double>> x, b_device;
      for (int k = 0; k < kSystems; ++k) {
        x.emplace_back(lat, Subset::kFull);
        b_device.emplace_back(lat, Subset::kFull);
        b_device.back().Upload(b[k]);
      }
      const std::vector<solvers::SolveResult> block = SolveBlockWithSpecOnGpu(spec, links, clover, form, x, b_device);
      ASSERT_EQ(block.size(), static_cast<std::size_t>(kSystems));
      const std::vector<double> link_error = testing::LinkErrorBounds(u, {Precision::kDouble, Reconstruct::k18, false, 0});
      for (int k = 0; k < kSystems; ++k) {
        const std::string name = std::string(text) + " " + ToString(form) + " system " + std::to_string(k);
        EXPECT_TRUE(block[k].converged()) << name << ": " << block[k].reason;
        const HostCheck host = CheckOnTheHost(u, clover.host(), link_error, x[k].Download(), b[k]);
        std::printf("%-52s block iterations %5d  host |b - M x| / |b| = %.3e (allowed %.3e)\n", name.c_str(),
                    block[k].iterations, host.residual, host.allowed);
        EXPECT_LE(host.residual, host.allowed) << name;
        if (spec.scheme == solvers::MixedScheme::kNone && form == CloverSchurForm::kComplement) {
          GpuSpinorField<double> x_single(lat, Subset::kFull);
          const solvers::SolveResult single = SolveWithSpecOnGpu(spec, links, clover, form, x_single, b_device[k]);
          EXPECT_EQ(block[k].iterations, single.iterations) << name;
        }
      }
    }
  }
}

// ---- No GPU: the oracle chains behind the bounds are the oracle's operators ----

// The bounds above follow the oracle's intermediate values (SchurChainOf, SourceChainOf, ReconstructChainOf):
// those must be what reference/clover.h computes, bit for bit, or the bound would describe another computation.
TEST(CloverDslashBoundTest, OracleChainsAreTheOracleOperators) {
  const Lattice lat(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 1801, false);
  const CloverField<double> clover(u, Params(1.0, 1.0));
  const std::vector<CloverSiteBlocks> t = testing::AllSiteBlocks(clover, false);
  const std::vector<CloverSiteBlocks> t_inverse = testing::AllSiteBlocks(clover, true);
  SpinorField<double> b(lat), x(lat);
  FillGaussian(b, 1802);
  FillGaussian(x, 1803);
  for (Precision precision : kPrecisions) {
    const std::vector<double> link_error = testing::LinkErrorBounds(u, {precision, Reconstruct::k12, false, 0});
    const OperatorSetup setup{u, clover, t, t_inverse, precision, link_error};
    for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
      for (Parity p : {Parity::kEven, Parity::kOdd}) {
        const std::string name = std::string(ToString(precision)) + " " + ToString(form) + " " + ToString(p);
        const SpinorField<double> in = Extract(x, p);
        for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          SpinorField<double> oracle(lat, SubsetOf(p));
          ApplyCloverSchur(oracle, u, clover, in, form, dagger);
          const ChainStep chain = SchurChainOf(setup, form, dagger, in);
          EXPECT_EQ(MaxAbsDifference(chain.out, oracle), 0.0) << name << (dagger == Dagger::kYes ? " dagger" : "");
          // The bound is positive on the output parity and zero elsewhere.
          for (int site = 0; site < lat.volume(); ++site) {
            const bool on_parity = lat.SiteParity(site) == p;
            ASSERT_EQ(chain.errors.device[site] > 0, on_parity) << name << " site " << site;
            ASSERT_EQ(chain.errors.oracle[site] > 0, on_parity) << name << " site " << site;
          }
        }
        EXPECT_EQ(
            MaxAbsDifference(SourceChainOf(setup, form, p, b).out, PrepareCloverSchurSource(u, clover, b, p, form)),
            0.0)
            << name;
        const SpinorField<double> x_p = Extract(x, p);
        EXPECT_EQ(MaxAbsDifference(ReconstructChainOf(setup, x_p, b).out, ReconstructCloverSolution(u, clover, x_p, b)),
                  0.0)
            << name;
      }
    }
  }
}

// DslashEpilogueErrors refuses inputs of the wrong size instead of reading past them.
TEST(CloverDslashBoundTest, MissingInputsAreRefused) {
  const Lattice lat(4, 4, 4, 4);
  EpilogueBoundInputs in;
  in.epilogue = DslashEpilogue::kCloverXpay;
  in.in_magnitude = in.in_error = in.d_magnitude = in.out_magnitude = in.x_magnitude = in.x_error =
      std::vector<double>(lat.volume(), 1.0);
  in.link_error = std::vector<double>(4 * lat.volume(), 0.0);
  EXPECT_CONTAINS(ErrorOf([&] { testing::DslashEpilogueErrors(lat, in); }), "needs the blocks of every site");
  const std::vector<CloverSiteBlocks> blocks = testing::IntegerBlocks(lat, 1, 4);
  in.clover = &blocks;
  EXPECT_CONTAINS(ErrorOf([&] { testing::DslashEpilogueErrors(lat, in); }), "clover_magnitude has 0 entries");
  in.clover_magnitude = in.out_magnitude;
  EXPECT_EQ(ErrorOf([&] { testing::DslashEpilogueErrors(lat, in); }), "");
}

}  // namespace
}  // namespace lqcd::gpu
