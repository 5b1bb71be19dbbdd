// The GPU staggered Dslash (staggered_dslash.h) against the oracle (reference/staggered/staggered_dslash.h,
// ApplyStaggeredDslashParity in double) on HISQ links smeared from Haar-random thin links and on naive links,
// in double and single precision, for every mapping of right-hand sides to threads, both output parities,
// D and D^dag, antiperiodic and periodic time; and the colour-vector field's transfers.
//
// The bound, per output component i of site n (derived, not tuned): the kernel forms each hop's X v_i as one
// chain of 6 fused multiply-adds per real part (register_types.cuh FusedDot3) and adds the H hops (16 with
// long links, 8 without) one after another, so its rounding error is at most gamma_{6+H} times the sum of
// the absolute terms, A_i = sum over hops and colours j of |X_ij| |v_j| (times 2 for the real and imaginary
// parts of a complex product); in single precision the stored links and inputs are each rounded once
// (2 u more). The oracle in double makes the same kind of error in u_double. So
//     |gpu_i - oracle_i| <= sqrt(2) * 2 * ((6 + H + 2) u + (6 + H) u_double) * A_i * 1.01,
// with u the unit roundoff of the kernel's precision (the 1.01 covers gamma_k = k u / (1 - k u)).
#include "gpu/staggered_dslash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/oracle_comparison.h"
#include "reference/staggered/hisq_links.h"

namespace lqcd::gpu {
namespace {

constexpr double kUnitRoundoffDouble = 0x1p-53;

double UnitRoundoff(Precision p) { return p == Precision::kDouble ? kUnitRoundoffDouble : 0x1p-24; }

class StaggeredDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }

  const Lattice lattice_{Coordinates{4, 4, 6, 6}};
};

StaggeredLinks<double> Hisq(const Lattice& lattice, std::uint64_t seed) {
  const SmearedLinks s = HisqLinks(testing::RandomLinks(lattice, seed, false), 0.0);
  return StaggeredLinks<double>{s.fat, s.naik};
}

// A_i of the file comment at every site of `out_parity`: sum over the hops of |X_ij| |v_j|.
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

// Checks every component of `gpu` against `oracle` with the file comment's bound; returns the worst ratio.
double WorstRatio(const ColourVectorField<double>& gpu, const ColourVectorField<double>& oracle,
                  const ColourVectorField<double>& terms, Precision precision, int hops, const std::string& what) {
  const double u = UnitRoundoff(precision);
  const double factor = std::sqrt(2.0) * 2 * ((6 + hops + 2) * u + (6 + hops) * kUnitRoundoffDouble) * 1.01;
  double worst = 0;
  int failures = 0;
  for (int i = 0; i < gpu.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const double error = std::abs(gpu[i](c) - oracle[i](c));
      const double bound = factor * terms[i](c).real();  // A_i is real (stored in the real part)
      if (!(error <= bound) && ++failures <= 5) {
        ADD_FAILURE() << what << ": site " << gpu.SiteIndex(i) << " colour " << c << ": |gpu - oracle| = " << error
                      << " > bound " << bound;
      }
      if (bound > 0) worst = std::max(worst, error / bound);
    }
  }
  return worst;
}

TEST_F(StaggeredDslashTest, EveryVariantMatchesTheOracleWithinTheDerivedBound) {
  const StaggeredLinks<double> hisq = Hisq(lattice_, 7);
  const StaggeredLinks<double> naive = StaggeredLinks<double>::Naive(testing::RandomLinks(lattice_, 8, false));
  int cases = 0;
  double worst = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    for (const StaggeredLinks<double>* links : {&hisq, &naive}) {
      const DeviceStaggeredLinks device_links(*links, precision);
      const int hops = links->long_links ? 16 : 8;
      for (const FermionBoundary& boundary : {FermionBoundary::AntiperiodicTime(), FermionBoundary::Periodic()}) {
        for (const Parity out_parity : {Parity::kEven, Parity::kOdd}) {
          for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
            for (const int mapping : {0, 1, 2, 4}) {
              const int n = mapping == 0 ? 5 : 3;
              std::vector<ColourVectorField<double>> inputs;
              std::vector<DeviceColourVectorField> in_d, out_d;
              for (int j = 0; j < n; ++j) {
                inputs.emplace_back(lattice_, SubsetOf(Opposite(out_parity)));
                FillGaussian(inputs.back(), 100 + 10 * j + static_cast<int>(out_parity));
                in_d.emplace_back(lattice_, Opposite(out_parity), precision);
                in_d.back().Upload(inputs.back());
                out_d.emplace_back(lattice_, out_parity, precision);
              }
              std::vector<DeviceColourVectorField*> out_ptr;
              std::vector<const DeviceColourVectorField*> in_ptr;
              for (int j = 0; j < n; ++j) {
                out_ptr.push_back(&out_d[j]);
                in_ptr.push_back(&in_d[j]);
              }
              ApplyStaggeredDslashBlock(out_ptr, device_links, in_ptr, boundary, dagger, mapping);
              for (int j = 0; j < n; ++j) {
                // The oracle on the inputs as stored (single: rounded), so that only the kernel's arithmetic
                // and the links' rounding are compared.
                const ColourVectorField<double> stored = in_d[j].Download();
                ColourVectorField<double> expected(lattice_, SubsetOf(out_parity));
                ApplyStaggeredDslashParity(expected, *links, stored, boundary, dagger);
                const std::string what = std::string(ToString(precision)) + (links->long_links ? " hisq" : " naive") +
                                         " " + boundary.ToString() + " out " + ToString(SubsetOf(out_parity)) +
                                         (dagger == Dagger::kYes ? " dagger" : "") + " mapping " +
                                         std::to_string(mapping) + " rhs " + std::to_string(j) + " of " +
                                         std::to_string(n);
                worst = std::max(worst, WorstRatio(out_d[j].Download(), expected,
                                                   AbsoluteTerms(*links, stored, out_parity), precision, hops, what));
                ++cases;
              }
            }
          }
        }
      }
    }
  }
  std::cout << cases << " outputs compared; the largest error is " << worst << " of its bound\n";
}

TEST_F(StaggeredDslashTest, TheDaggerIsMinusDBitForBit) {
  const DeviceStaggeredLinks links(Hisq(lattice_, 9), Precision::kSingle);
  ColourVectorField<double> in(lattice_, Subset::kOdd);
  FillGaussian(in, 11);
  DeviceColourVectorField in_d(lattice_, Parity::kOdd, Precision::kSingle);
  in_d.Upload(in);
  DeviceColourVectorField d(lattice_, Parity::kEven, Precision::kSingle), ddag(lattice_, Parity::kEven,
                                                                               Precision::kSingle);
  ApplyStaggeredDslash(d, links, in_d, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
  ApplyStaggeredDslash(ddag, links, in_d, FermionBoundary::AntiperiodicTime(), Dagger::kYes);
  const ColourVectorField<double> a = d.Download(), b = ddag.Download();
  for (int i = 0; i < a.sites(); ++i) {
    for (int c = 0; c < 3; ++c) ASSERT_EQ(a[i](c), -b[i](c)) << "site " << a.SiteIndex(i) << " colour " << c;
  }
}

TEST_F(StaggeredDslashTest, ColourVectorTransfersKeepTheNumbersOfThePrecision) {
  ColourVectorField<double> v(lattice_, Subset::kEven);
  FillGaussian(v, 12);
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    DeviceColourVectorField d(lattice_, Parity::kEven, precision, /*pad=*/5);
    EXPECT_EQ(d.Download()[0](0), Complex<double>(0, 0));  // new fields are zero
    d.Upload(v);
    const ColourVectorField<double> back = d.Download();
    for (int i = 0; i < v.sites(); ++i) {
      for (int c = 0; c < 3; ++c) {
        const Complex<double> expected =
            precision == Precision::kDouble
                ? v[i](c)
                : Complex<double>(static_cast<float>(v[i](c).real()), static_cast<float>(v[i](c).imag()));
        ASSERT_EQ(back[i](c), expected) << ToString(precision) << " site " << i << " colour " << c;
      }
    }
  }
}

TEST_F(StaggeredDslashTest, BadInputIsRefusedBeforeAnyLaunch) {
  const DeviceStaggeredLinks links(Hisq(lattice_, 13), Precision::kDouble);
  DeviceColourVectorField even(lattice_, Parity::kEven, Precision::kDouble);
  DeviceColourVectorField odd(lattice_, Parity::kOdd, Precision::kDouble);
  DeviceColourVectorField odd2(lattice_, Parity::kOdd, Precision::kDouble);
  DeviceColourVectorField single_odd(lattice_, Parity::kOdd, Precision::kSingle);
  DeviceColourVectorField other_lattice(Lattice(Coordinates{4, 4, 4, 6}), Parity::kOdd, Precision::kDouble);
  const FermionBoundary b;
  EXPECT_THROW(ApplyStaggeredDslash(odd2, links, odd, b), std::invalid_argument);          // same parity
  EXPECT_THROW(ApplyStaggeredDslash(even, links, single_odd, b), std::invalid_argument);   // precision
  EXPECT_THROW(ApplyStaggeredDslash(even, links, other_lattice, b), std::invalid_argument);
  EXPECT_THROW(ApplyStaggeredDslashBlock({}, links, {}, b), std::invalid_argument);        // no right-hand side
  EXPECT_THROW(ApplyStaggeredDslashBlock({&even, &even}, links, {&odd, &odd2}, b), std::invalid_argument);
  EXPECT_THROW(ApplyStaggeredDslashBlock({&even}, links, {&odd}, b, Dagger::kNo, 3), std::invalid_argument);
  std::vector<DeviceColourVectorField*> many_out(17, &even);
  std::vector<const DeviceColourVectorField*> many_in(17, &odd);
  EXPECT_THROW(ApplyStaggeredDslashBlock(many_out, links, many_in, b), std::invalid_argument);
  ColourVectorField<double> wrong_parity(lattice_, Subset::kOdd);
  EXPECT_THROW(even.Upload(wrong_parity), std::invalid_argument);
  ColourVectorField<double> huge(lattice_, Subset::kOdd);
  huge[3](1) = Complex<double>(1e39, 0);  // beyond the float range
  EXPECT_THROW(single_odd.Upload(huge), std::invalid_argument);
  EXPECT_THROW(DeviceColourVectorField(lattice_, Parity::kEven, Precision::kHalf), std::invalid_argument);
  EXPECT_THROW(DeviceStaggeredLinks(Hisq(lattice_, 14), Precision::kHalf), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
