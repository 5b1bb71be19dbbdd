// The staggered kernel's per-site code without a GPU: RunStaggeredDslashOnHost (staggered_dslash.cu) runs the
// kernel's own functor, with its Arg, accessors and arithmetic, over every site on host memory laid out as the
// device stores it (links packed through gauge_accessor.cuh's Store, colour vectors through
// device_colour_vector_field.h's packing). Checked against the oracle within the derived bound of
// staggered_dslash_testing.h for double and single, HISQ and naive links, both parities, D and D^dag, both time
// boundaries and every mapping of right-hand sides to a thread (1, 2, 4); every output site is written (outputs
// start as NaN); and the dagger is -D bit for bit. What this cannot check (the launch geometry, the L2 sharing,
// __ldg) staggered_dslash_test.cc checks on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/device_colour_vector_field.h"
#include "gpu/staggered_dslash.h"
#include "gpu/staggered_dslash_launch.h"
#include "gpu/staggered_dslash_testing.h"
#include "reference/staggered/hisq_links.h"
#include "reference/staggered/u3_compression.h"

namespace lqcd::gpu {
namespace {

std::size_t RealBytes(Precision p) { return p == Precision::kDouble ? sizeof(double) : sizeof(float); }

// Links of one kind in host memory, in the device layout of 18 reals.
struct HostLinks {
  std::vector<unsigned char> bytes;
  GaugeView view;
  HostLinks(const GaugeField<double>& u, Precision precision) {
    const Lattice& lattice = u.lattice();
    view.precision = precision;
    view.reconstruct = Reconstruct::k18;
    for (int mu = 0; mu < 4; ++mu) view.extents[mu] = lattice.extent(mu);
    view.stride = lattice.half_volume();
    bytes.assign(2 * 4 * 18 * static_cast<std::size_t>(view.stride) * RealBytes(precision), 0);
    view.data = bytes.data();
    const std::vector<double> canonical = CanonicalEighteenRealLinks(u);
    PackEighteenRealLinksOnHost(view, canonical.data());
  }
};

ColourVectorView ViewOf(std::vector<unsigned char>& bytes, const Lattice& lattice, Parity parity,
                        Precision precision) {
  ColourVectorView v;
  v.precision = precision;
  v.parity = static_cast<int>(parity);
  for (int mu = 0; mu < 4; ++mu) v.extents[mu] = lattice.extent(mu);
  v.sites = lattice.half_volume();
  v.stride = v.sites;
  v.data = bytes.data();
  return v;
}

struct HostRun {
  std::vector<ColourVectorField<double>> stored_inputs;  // as the kernel sees them (single: rounded)
  std::vector<ColourVectorField<double>> stored_x;       // xpay: the x as stored
  std::vector<ColourVectorField<double>> outputs;
  std::vector<ColourVectorField<double>> stored_r;       // Xpay::sum = kAxpyNorm: the updated fields as they were
  std::vector<double> partials;                          // Xpay::sum: n x CurvatureChunks(V / 2)
};

// The xpay form out = a x + b D in when on; x_in_place: x is the output field itself; sum: with a fused sum's chunk
// sums (kAxpyNorm with the xpay form, kNormWithForwardX without), its weight, or its numerators and
// denominators (host memory; the kAxpyNorm outputs start as Gaussian fields r, of seed + 2000 + j).
struct Xpay {
  bool on = false;
  double a = 0, b = 1;
  bool x_in_place = false;
  StaggeredSum sum = StaggeredSum::kNone;
  double norm_weight = 0;
  std::vector<double> numerators = {}, denominators = {};
};

// Long links in host memory in the 13- or 9-number layout (scale: X = L / scale unitary).
struct HostU3Links {
  std::vector<unsigned char> bytes;
  U3LinkView view;
  HostU3Links(const GaugeField<double>& long_links, double scale, Precision precision, int numbers) {
    view.precision = precision;
    view.numbers = numbers;
    view.stride = long_links.lattice().half_volume();
    view.scale = scale;
    bytes.assign(2 * U3WordsPerLink(numbers) * 8 * static_cast<std::size_t>(view.stride) * RealBytes(precision), 0);
    view.data = bytes.data();
    const std::vector<double> canonical =
        numbers == 9 ? CanonicalU9Links(long_links, scale) : CanonicalU3Links(long_links, scale);
    PackU3LinksOnHost(view, canonical.data());
  }
};

// Links of one kind in host memory in the scaled half layout (staggered_dslash_launch.h).
struct HostHalfLinks {
  std::vector<unsigned char> bytes;
  ScaledHalfLinkView view;
  explicit HostHalfLinks(const GaugeField<double>& u) : view(PackHalfLinks(u, bytes)) {}
};

HostRun RunOnHost(const StaggeredLinks<double>& links, Precision precision, const FermionBoundary& boundary,
                  Parity out_parity, Dagger dagger, int n, int mapping, std::uint64_t seed, const Xpay& xpay = {},
                  double u3_scale = 0,    // != 0: the long links in u3_numbers numbers with this scale
                  int u3_numbers = 13) {
  const Lattice& lattice = links.lattice();
  const bool half = precision == Precision::kHalf;
  std::unique_ptr<HostLinks> fat, long_links;
  std::unique_ptr<HostU3Links> long_links_u3;
  std::unique_ptr<HostHalfLinks> fat_half, long_half;
  if (half) {
    fat_half = std::make_unique<HostHalfLinks>(links.fat);
    if (links.long_links) long_half = std::make_unique<HostHalfLinks>(*links.long_links);
  } else {
    fat = std::make_unique<HostLinks>(links.fat, precision);
  }
  if (links.long_links && u3_scale == 0 && !half) {
    long_links = std::make_unique<HostLinks>(*links.long_links, precision);
  }
  if (links.long_links && u3_scale != 0) {
    long_links_u3 = std::make_unique<HostU3Links>(*links.long_links, u3_scale, precision, u3_numbers);
  }
  std::vector<std::vector<unsigned char>> in_bytes, out_bytes, x_bytes;
  StaggeredDslashLaunch l;
  HostRun run;
  for (int j = 0; j < n; ++j) {
    ColourVectorField<double> in(lattice, SubsetOf(Opposite(out_parity)));
    FillGaussian(in, seed + j);
    in_bytes.push_back(PackColourVectors(in, precision, lattice.half_volume()));
    ColourVectorField<double> x(lattice, SubsetOf(out_parity));
    FillGaussian(x, seed + 1000 + j);
    x_bytes.push_back(PackColourVectors(x, precision, lattice.half_volume()));
    // Outputs start as NaN (0xff bytes), so that a site the code does not write fails; or as x, in place; or as
    // the r the fused update replaces.
    if (xpay.on && xpay.x_in_place) {
      out_bytes.push_back(x_bytes.back());
    } else if (xpay.sum == StaggeredSum::kAxpyNorm) {
      ColourVectorField<double> r(lattice, SubsetOf(out_parity));
      FillGaussian(r, seed + 2000 + j);
      out_bytes.push_back(PackColourVectors(r, precision, lattice.half_volume()));
      run.stored_r.push_back(UnpackColourVectors(out_bytes.back().data(), precision, lattice.half_volume(), lattice,
                                                 out_parity));
    } else {
      out_bytes.emplace_back(ColourVectorBytes(precision, lattice.half_volume()), 0xff);
    }
  }
  for (int j = 0; j < n; ++j) {
    l.in[j] = ViewOf(in_bytes[j], lattice, Opposite(out_parity), precision);
    l.out[j] = ViewOf(out_bytes[j], lattice, out_parity, precision);
    l.x[j] = xpay.x_in_place ? l.out[j] : ViewOf(x_bytes[j], lattice, out_parity, precision);
    run.stored_inputs.push_back(
        UnpackColourVectors(in_bytes[j].data(), precision, lattice.half_volume(), lattice, Opposite(out_parity)));
    run.stored_x.push_back(UnpackColourVectors(x_bytes[j].data(), precision, lattice.half_volume(), lattice,
                                               out_parity));
  }
  l.xpay = xpay.on;
  l.a = xpay.a;
  l.b = xpay.b;
  l.rhs = n;
  if (fat) l.fat = fat->view;
  if (long_links) l.long_links = long_links->view;
  if (long_links_u3) l.long_links_u3 = long_links_u3->view;
  if (fat_half) l.fat_half = fat_half->view;
  if (long_half) l.long_half = long_half->view;
  for (int mu = 0; mu < 4; ++mu) l.antiperiodic[mu] = boundary.WrapSign(mu) < 0;
  l.dagger = dagger == Dagger::kYes;
  l.rhs_per_thread = mapping;
  if (xpay.sum != StaggeredSum::kNone) {
    run.partials.assign(static_cast<std::size_t>(n) * CurvatureChunks(lattice.half_volume()),
                        std::numeric_limits<double>::quiet_NaN());
    l.sum = xpay.sum;
    l.partials = run.partials.data();
    l.norm_weight = xpay.norm_weight;
    for (std::size_t j = 0; j < xpay.numerators.size(); ++j) {
      l.axpy_numerator[j] = xpay.numerators[j];
      l.axpy_denominator[j] = &xpay.denominators[j];
    }
  }
  RunStaggeredDslashOnHost(l);
  for (int j = 0; j < n; ++j) {
    run.outputs.push_back(UnpackColourVectors(out_bytes[j].data(), precision, lattice.half_volume(), lattice,
                                              out_parity));
  }
  return run;
}

TEST(StaggeredDslashOnHost, EveryVariantMatchesTheOracleWithinTheDerivedBound) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 7);
  const StaggeredLinks<double> naive = testing::RandomNaiveLinks(lattice, 8);
  int cases = 0;
  double worst = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    for (const StaggeredLinks<double>* links : {&hisq, &naive}) {
      const int hops = links->long_links ? 16 : 8;
      for (const FermionBoundary& boundary : {FermionBoundary::AntiperiodicTime(), FermionBoundary::Periodic()}) {
        for (const Parity out_parity : {Parity::kEven, Parity::kOdd}) {
          for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
            for (const int mapping : {1, 2, 4}) {
              const int n = mapping == 4 ? 5 : 3;  // 5 = one full group of 4 and a partial one
              const HostRun run = RunOnHost(*links, precision, boundary, out_parity, dagger, n, mapping, 100);
              for (int j = 0; j < n; ++j) {
                ColourVectorField<double> expected(lattice, SubsetOf(out_parity));
                ApplyStaggeredDslashParity(expected, *links, run.stored_inputs[j], boundary, dagger);
                const std::string what = std::string(ToString(precision)) + (links->long_links ? " hisq" : " naive") +
                                         " " + boundary.ToString() + " out " + ToString(SubsetOf(out_parity)) +
                                         (dagger == Dagger::kYes ? " dagger" : "") + " mapping " +
                                         std::to_string(mapping) + " rhs " + std::to_string(j);
                worst = std::max(worst, testing::CheckWithinBound(
                                            run.outputs[j], expected,
                                            testing::AbsoluteTerms(*links, run.stored_inputs[j], out_parity),
                                            precision, hops, what));
                ++cases;
              }
            }
          }
        }
      }
    }
  }
  std::cout << cases << " outputs compared; the largest error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0);  // the comparison compared something that was not trivially equal
}

TEST(StaggeredDslashOnHost, ThirteenNumberLongLinksMatchTheOracleOnTheLinksTheyRepresent) {
  // The oracle runs on the long links as 13 numbers represent them (u3_compression.h CompressAndReconstructU3 in
  // double); the kernel rebuilds them from numbers rounded to its precision, in its arithmetic: within 27 u of
  // the scale per entry (u3_compression.h's derived bound), so each long hop adds at most
  // sqrt(2) 27 u |scale| sum_j |v_j| per component to the Dslash bound.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 31);
  const double scale = HisqNaikCoefficient(0.0);
  const StaggeredLinks<double> represented{
      hisq.fat, CompressAndReconstructU3(*hisq.long_links, scale, U3Compression::k13)};
  double worst = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      for (const int mapping : {1, 4}) {
        const HostRun run =
            RunOnHost(hisq, precision, FermionBoundary(), Parity::kEven, dagger, 4, mapping, 600, Xpay{}, scale);
        for (int j = 0; j < 4; ++j) {
          ColourVectorField<double> expected(lattice, Subset::kEven);
          ApplyStaggeredDslashParity(expected, represented, run.stored_inputs[j], FermionBoundary(), dagger);
          const ColourVectorField<double> extra =
              testing::U3ReconstructionBound(run.stored_inputs[j], Parity::kEven, scale, precision);
          worst = std::max(worst, testing::CheckWithinBound(
                                      run.outputs[j], expected,
                                      testing::AbsoluteTerms(represented, run.stored_inputs[j], Parity::kEven), extra,
                                      precision, 16,
                                      std::string(ToString(precision)) + " 13-number long links mapping " +
                                          std::to_string(mapping) + " rhs " + std::to_string(j)));
        }
      }
    }
  }
  std::cout << "13-number long links: the largest error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0);
  // Links that are not unitary over the scale are refused, naming the link.
  EXPECT_THROW(CanonicalU3Links(*hisq.long_links, 1.0), std::invalid_argument);
  EXPECT_THROW(CanonicalU3Links(*hisq.long_links, 0.0), std::invalid_argument);
}

TEST(StaggeredDslashOnHost, NineNumberLongLinksMatchTheOracleWithinTheDerivedBound) {
  // The oracle runs on the HISQ links themselves; the kernel rebuilds each long link from the 8 reals of its
  // SU(3) part and theta rounded to its precision: within NineNumberLinkErrorBound per entry
  // (staggered_dslash_testing.cc derives it), which U9ReconstructionBound adds per long hop to the Dslash bound.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 37);
  const double scale = HisqNaikCoefficient(0.0);
  double worst = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    double worst_here = 0;
    for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      for (const int mapping : {1, 4}) {
        const HostRun run =
            RunOnHost(hisq, precision, FermionBoundary(), Parity::kOdd, dagger, 4, mapping, 650, Xpay{}, scale, 9);
        for (int j = 0; j < 4; ++j) {
          ColourVectorField<double> expected(lattice, Subset::kOdd);
          ApplyStaggeredDslashParity(expected, hisq, run.stored_inputs[j], FermionBoundary(), dagger);
          const ColourVectorField<double> extra =
              testing::U9ReconstructionBound(run.stored_inputs[j], *hisq.long_links, Parity::kOdd, scale, precision);
          worst_here = std::max(
              worst_here,
              testing::CheckWithinBound(run.outputs[j], expected,
                                        testing::AbsoluteTerms(hisq, run.stored_inputs[j], Parity::kOdd), extra,
                                        precision, 16,
                                        std::string(ToString(precision)) + " 9-number long links mapping " +
                                            std::to_string(mapping) + " rhs " + std::to_string(j)));
        }
      }
    }
    std::cout << ToString(precision) << ", 9-number long links: the largest error is " << worst_here
              << " of its bound\n";
    worst = std::max(worst, worst_here);
  }
  EXPECT_GT(worst, 0);
}

TEST(StaggeredDslashOnHost, NineNumberUnitLongLinksAreTheEighteenRealResultBitForBit) {
  // Unit X: theta = 0 and S = 1, stored in the singular form and rebuilt exactly; the phase factor is
  // (fl(scale), 0), so every rebuilt link is exactly the 18-real one and so is every output.
  const Lattice lattice(Coordinates{4, 4, 4, 6});
  const double scale = HisqNaikCoefficient(0.0);
  GaugeField<double> long_links(lattice);
  for (auto& link : long_links.links()) link *= scale;
  const StaggeredLinks<double> links{testing::RandomHisqLinks(lattice, 41).fat, long_links};
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const HostRun nine = RunOnHost(links, precision, FermionBoundary(), Parity::kEven, Dagger::kNo, 2, 0, 700,
                                   Xpay{}, scale, 9);
    const HostRun eighteen = RunOnHost(links, precision, FermionBoundary(), Parity::kEven, Dagger::kNo, 2, 0, 700);
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < nine.outputs[j].sites(); ++i) {
        for (int c = 0; c < 3; ++c) {
          ASSERT_EQ(nine.outputs[j][i](c), eighteen.outputs[j][i](c))
              << ToString(precision) << " rhs " << j << " site " << nine.outputs[j].SiteIndex(i) << " colour " << c;
        }
      }
    }
  }
}

TEST(StaggeredDslashOnHost, NineNumberPackingRefusesWhatEightRealsCannotHold) {
  const Lattice lattice(Coordinates{4, 4, 4, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 43);
  // Not unitary over the scale, or no scale at all.
  EXPECT_THROW(CanonicalU9Links(*hisq.long_links, 1.0), std::invalid_argument);
  EXPECT_THROW(CanonicalU9Links(*hisq.long_links, 0.0), std::invalid_argument);
  // X = diag(1, i, 1): unitary, theta = pi/2, S = e^{-i pi/6} X has N = 0 but is not diag(a1, a1^*, 1), so 8
  // reals cannot hold it. The error names the link.
  GaugeField<double> long_links(lattice);
  long_links.Link(5, 2)(1, 1) = Complex<double>(0, 1);
  try {
    CanonicalU9Links(long_links, 1.0);
    ADD_FAILURE() << "a diagonal U(3) link outside the singular form was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("site 5, direction 2"), std::string::npos) << what;
    EXPECT_NE(what.find("diag(a1, a1^*, 1)"), std::string::npos) << what;
  }
  // The same link in 13 numbers is fine (two rows and theta hold any unitary matrix).
  EXPECT_NO_THROW(CanonicalU3Links(long_links, 1.0));
}

TEST(StaggeredDslashOnHost, HalfPrecisionMatchesTheOracleOnTheLinksItRepresents) {
  // Half: links as levels of their field's largest |real| (HalfPrecisionLinks gives what they represent, for the
  // oracle), inputs as stored (levels of each site's norm), float arithmetic, the output stored in half: the
  // Dslash bound in float plus HalfStorageBound's storage term.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 41);
  const StaggeredLinks<double> naive = testing::RandomNaiveLinks(lattice, 42);
  double worst = 0;
  int cases = 0;
  for (const StaggeredLinks<double>* links : {&hisq, &naive}) {
    const StaggeredLinks<double> represented = HalfPrecisionLinks(*links);
    const int hops = links->long_links ? 16 : 8;
    for (const Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        for (const int mapping : {1, 2, 4}) {
          const int n = mapping == 4 ? 5 : 3;
          const HostRun run = RunOnHost(*links, Precision::kHalf, FermionBoundary::AntiperiodicTime(), out_parity,
                                        dagger, n, mapping, 700);
          for (int j = 0; j < n; ++j) {
            ColourVectorField<double> expected(lattice, SubsetOf(out_parity));
            ApplyStaggeredDslashParity(expected, represented, run.stored_inputs[j], FermionBoundary::AntiperiodicTime(),
                                       dagger);
            const ColourVectorField<double> terms =
                testing::AbsoluteTerms(represented, run.stored_inputs[j], out_parity);
            const ColourVectorField<double> extra = testing::HalfStorageBound(
                expected, testing::DslashArithmeticBound(terms, Precision::kHalf, hops));
            worst = std::max(worst, testing::CheckWithinBound(
                                        run.outputs[j], expected, terms, extra, Precision::kHalf, hops,
                                        std::string("half") + (links->long_links ? " hisq" : " naive") + " out " +
                                            ToString(SubsetOf(out_parity)) + (dagger == Dagger::kYes ? " dagger" : "") +
                                            " mapping " + std::to_string(mapping) + " rhs " + std::to_string(j)));
            ++cases;
          }
        }
      }
    }
  }
  std::cout << cases << " half outputs compared; the largest error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0.01);  // the bound is not vacuous: the storage term is the size of the errors
  // The links the half storage represents are within half a level of the links.
  const GaugeField<double> fat = HalfPrecisionLinks(hisq.fat);
  double largest = 0, difference = 0;
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < 4; ++mu) {
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
          const Complex<double> z = hisq.fat.Link(site, mu)(i, k);
          largest = std::max({largest, std::abs(z.real()), std::abs(z.imag())});
          difference = std::max(difference, std::abs(fat.Link(site, mu)(i, k) - z));
        }
      }
    }
  }
  EXPECT_GT(difference, 0);
  // Half a level, sqrt(2) for a complex entry, and the float product level * level_value (one rounding).
  EXPECT_LE(difference, std::sqrt(2.0) * (0.5 / 32767 + 0x1p-24) * largest * 1.01);
}

TEST(StaggeredDslashOnHost, HalfPrecisionXpayMatchesTheOracle) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 43);
  const StaggeredLinks<double> represented = HalfPrecisionLinks(hisq);
  const double m = 0.0173, a = 4 * m * m, b = -1;
  double worst = 0;
  for (const bool in_place : {false, true}) {
    const HostRun run = RunOnHost(hisq, Precision::kHalf, FermionBoundary(), Parity::kOdd, Dagger::kNo, 3, 0, 800,
                                  Xpay{true, a, b, in_place});
    for (int j = 0; j < 3; ++j) {
      ColourVectorField<double> d_in(lattice, Subset::kOdd), expected(lattice, Subset::kOdd);
      ApplyStaggeredDslashParity(d_in, represented, run.stored_inputs[j], FermionBoundary(), Dagger::kNo);
      for (int i = 0; i < expected.sites(); ++i) expected[i] = a * run.stored_x[j][i] + b * d_in[i];
      const ColourVectorField<double> terms = testing::AbsoluteTerms(represented, run.stored_inputs[j], Parity::kOdd);
      // The arithmetic bound before the store is the xpay bound of CheckXpayWithinBound.
      const ColourVectorField<double> arithmetic =
          testing::XpayArithmeticBound(terms, run.stored_x[j], d_in, a, b, Precision::kHalf, 16);
      const ColourVectorField<double> extra = testing::HalfStorageBound(expected, arithmetic);
      worst = std::max(worst, testing::CheckXpayWithinBound(run.outputs[j], expected, terms, run.stored_x[j], d_in, a,
                                                            b, Precision::kHalf, 16,
                                                            std::string("half xpay") + (in_place ? " in place" : ""),
                                                            &extra));
    }
  }
  std::cout << "half xpay: the largest error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0.01);
}

TEST(StaggeredDslashOnHost, TheXpayFormMatchesTheOracleInPlaceOrNot) {
  // a x + b D in with the coefficients of the even-odd operator's pieces: 4m^2 x - D (D in), 2m b - D b, and
  // (b - D x) / (2m).
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 12);
  const double m = 0.0173;
  double worst = 0;
  int cases = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    for (const auto& [a, b] : {std::pair<double, double>{4 * m * m, -1}, {2 * m, -1}, {1 / (2 * m), -1 / (2 * m)}}) {
      for (const bool in_place : {false, true}) {
        for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          const HostRun run = RunOnHost(hisq, precision, FermionBoundary(), Parity::kOdd, dagger, 3, 0, 500,
                                        Xpay{true, a, b, in_place});
          for (int j = 0; j < 3; ++j) {
            ColourVectorField<double> d_in(lattice, Subset::kOdd), expected(lattice, Subset::kOdd);
            ApplyStaggeredDslashParity(d_in, hisq, run.stored_inputs[j], FermionBoundary(), dagger);
            for (int i = 0; i < expected.sites(); ++i) expected[i] = a * run.stored_x[j][i] + b * d_in[i];
            worst = std::max(worst, testing::CheckXpayWithinBound(
                                        run.outputs[j], expected,
                                        testing::AbsoluteTerms(hisq, run.stored_inputs[j], Parity::kOdd),
                                        run.stored_x[j], d_in, a, b, precision, 16,
                                        std::string(ToString(precision)) + " a " + std::to_string(a) + " b " +
                                            std::to_string(b) + (in_place ? " in place" : "") +
                                            (dagger == Dagger::kYes ? " dagger" : "")));
            ++cases;
          }
        }
      }
    }
  }
  std::cout << cases << " xpay outputs compared; the largest error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0);
}

TEST(StaggeredDslashOnHost, TheFusedNormSumsTheOutputAndTheForwardXInputs) {
  // The first Dslash of CG's fused step: out = D in stored as the plain call stores it, and per chunk
  // |out(n)|^2 + w |in(n + x^)|^2 within the derived bound; the chunks together give |out|^2 + w |in|^2.
  const Lattice lattice(Coordinates{4, 6, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 15);
  const double four_m2 = 4 * 0.05 * 0.05;
  const int chunks = CurvatureChunks(lattice.half_volume());
  Xpay norm;
  norm.sum = StaggeredSum::kNormWithForwardX;
  norm.norm_weight = four_m2;
  // Refused: half, the dagger, and the norm with the xpay form.
  EXPECT_THROW(RunOnHost(hisq, Precision::kHalf, FermionBoundary(), Parity::kOdd, Dagger::kNo, 1, 0, 710, norm),
               std::invalid_argument);
  EXPECT_THROW(RunOnHost(hisq, Precision::kDouble, FermionBoundary(), Parity::kOdd, Dagger::kYes, 1, 0, 710, norm),
               std::invalid_argument);
  Xpay norm_with_xpay = norm;
  norm_with_xpay.on = true;
  EXPECT_THROW(RunOnHost(hisq, Precision::kDouble, FermionBoundary(), Parity::kOdd, Dagger::kNo, 1, 0, 710,
                         norm_with_xpay),
               std::invalid_argument);
  double worst = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    for (const Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      for (const int n : {1, 3, 8}) {
        for (const int mapping : {0, 1, 2, 4}) {
          const std::string what = std::string(ToString(precision)) + " out " + ToString(SubsetOf(out_parity)) +
                                   " n " + std::to_string(n) + " mapping " + std::to_string(mapping);
          const HostRun fused =
              RunOnHost(hisq, precision, FermionBoundary::AntiperiodicTime(), out_parity, Dagger::kNo, n, mapping,
                        710, norm);
          const HostRun plain = RunOnHost(hisq, precision, FermionBoundary::AntiperiodicTime(), out_parity,
                                          Dagger::kNo, n, mapping, 710);
          for (int j = 0; j < n; ++j) {
            for (int i = 0; i < fused.outputs[j].sites(); ++i) {
              ASSERT_EQ(std::memcmp(&fused.outputs[j][i], &plain.outputs[j][i], sizeof(plain.outputs[j][i])), 0)
                  << what << " rhs " << j << " site " << i;
            }
            const double* partials = &fused.partials[static_cast<std::size_t>(j) * chunks];
            worst = std::max(worst, testing::CheckNormWithForwardXChunks(partials, fused.outputs[j],
                                                                        fused.stored_inputs[j], four_m2,
                                                                        what + " rhs " + std::to_string(j)));
            // Every input site counted once: the chunks' total is |out|^2 + w |in|^2 (each chunk within 13 u of its
            // non-negative sum, so the total within 13 u of the total; added here in long double).
            const auto norm2 = [](const ColourVectorField<double>& v) {
              long double sum = 0;
              for (int i = 0; i < v.sites(); ++i) {
                for (int c = 0; c < 3; ++c) sum += static_cast<long double>(std::norm(v[i](c)));
              }
              return sum;
            };
            long double total = 0;
            for (int c = 0; c < chunks; ++c) total += partials[c];
            const long double expected = norm2(fused.outputs[j]) + four_m2 * norm2(fused.stored_inputs[j]);
            EXPECT_LE(std::abs(total - expected), 13 * 1.01 * 0x1p-53 * expected) << what;
          }
        }
      }
    }
  }
  std::cout << "fused norm: the largest error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0);
}

TEST(StaggeredDslashOnHost, TheFusedUpdateIsTheSeparateAxpyBitForBitAndSumsItsNorm) {
  // The second Dslash of CG's fused step: r + c (a x + b D in) with c = -(nu / delta), formed as the vector kernels'
  // AxpyNorm forms y + c q from the stored q (one rounding per part in the fields' precision): the same bits as
  // the plain xpay call followed by that update; and per chunk |r|^2 of the stored r within the bound of
  // testing::CheckReDotChunks.
  const Lattice lattice(Coordinates{4, 6, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 16);
  const double four_m2 = 4 * 0.05 * 0.05;
  const int chunks = CurvatureChunks(lattice.half_volume());
  double worst = 0;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    for (const int n : {1, 3, 8}) {
      for (const int mapping : {0, 1, 2, 4}) {
        const std::string what = std::string(ToString(precision)) + " n " + std::to_string(n) + " mapping " +
                                 std::to_string(mapping);
        Xpay update{true, four_m2, -1, false, StaggeredSum::kAxpyNorm};
        for (int j = 0; j < n; ++j) {
          update.numerators.push_back(0.3 + 0.1 * j);   // rr
          update.denominators.push_back(1.7 - 0.05 * j);  // (p, A p)
        }
        const HostRun fused =
            RunOnHost(hisq, precision, FermionBoundary(), Parity::kEven, Dagger::kNo, n, mapping, 720, update);
        const HostRun q = RunOnHost(hisq, precision, FermionBoundary(), Parity::kEven, Dagger::kNo, n, mapping, 720,
                                    Xpay{true, four_m2, -1, false});
        for (int j = 0; j < n; ++j) {
          const double c = -(update.numerators[j] / update.denominators[j]);
          for (int i = 0; i < fused.outputs[j].sites(); ++i) {
            for (int k = 0; k < 3; ++k) {
              const Complex<double> r = fused.stored_r[j][i](k), qk = q.outputs[j][i](k);
              Complex<double> expected;
              if (precision == Precision::kSingle) {
                const float cf = static_cast<float>(c);
                expected = {std::fmaf(cf, static_cast<float>(qk.real()), static_cast<float>(r.real())),
                            std::fmaf(cf, static_cast<float>(qk.imag()), static_cast<float>(r.imag()))};
              } else {
                expected = {std::fma(c, qk.real(), r.real()), std::fma(c, qk.imag(), r.imag())};
              }
              ASSERT_EQ(fused.outputs[j][i](k), expected) << what << " rhs " << j << " site " << i << " colour " << k;
            }
          }
          worst = std::max(worst, testing::CheckReDotChunks(&fused.partials[static_cast<std::size_t>(j) * chunks],
                                                                fused.outputs[j], fused.outputs[j],
                                                                what + " rhs " + std::to_string(j)));
        }
      }
    }
  }
  std::cout << "fused update: the largest norm error is " << worst << " of its bound\n";
  EXPECT_GT(worst, 0);
}

TEST(StaggeredDslashOnHost, EveryRightHandSideOfABlockIsTheSingleResultBitForBit) {
  // The per-site code does the same operations for each right-hand side of a group, so a block's outputs are
  // the single-right-hand-side outputs exactly (here, on the host, with one compiler's code for both).
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 9);
  const HostRun block = RunOnHost(hisq, Precision::kSingle, FermionBoundary(), Parity::kEven, Dagger::kNo, 5, 4, 300);
  for (int j = 0; j < 5; ++j) {
    const HostRun one =
        RunOnHost(hisq, Precision::kSingle, FermionBoundary(), Parity::kEven, Dagger::kNo, 1, 1, 300 + j);
    for (int i = 0; i < one.outputs[0].sites(); ++i) {
      ASSERT_EQ(std::memcmp(&one.outputs[0][i], &block.outputs[j][i], sizeof(one.outputs[0][i])), 0)
          << "rhs " << j << " site " << i;
    }
  }
}

TEST(StaggeredDslashOnHost, TheDaggerIsMinusDBitForBit) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const StaggeredLinks<double> hisq = testing::RandomHisqLinks(lattice, 10);
  const HostRun d = RunOnHost(hisq, Precision::kDouble, FermionBoundary(), Parity::kOdd, Dagger::kNo, 1, 1, 400);
  const HostRun ddag = RunOnHost(hisq, Precision::kDouble, FermionBoundary(), Parity::kOdd, Dagger::kYes, 1, 1, 400);
  for (int i = 0; i < d.outputs[0].sites(); ++i) {
    for (int c = 0; c < 3; ++c) ASSERT_EQ(d.outputs[0][i](c), -ddag.outputs[0][i](c)) << "site " << i;
  }
}

TEST(StaggeredDslashOnHost, PackingRoundTripsAndRefusesHalf) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  ColourVectorField<double> v(lattice, Subset::kOdd);
  FillGaussian(v, 11);
  const std::vector<unsigned char> bytes = PackColourVectors(v, Precision::kDouble, lattice.half_volume() + 3);
  const ColourVectorField<double> back =
      UnpackColourVectors(bytes.data(), Precision::kDouble, lattice.half_volume() + 3, lattice, Parity::kOdd);
  for (int i = 0; i < v.sites(); ++i) ASSERT_EQ(back[i], v[i]) << "site " << i;
  // Single precision keeps each real part and imaginary part rounded to the nearest float.
  const std::vector<unsigned char> floats = PackColourVectors(v, Precision::kSingle, lattice.half_volume() + 5);
  const ColourVectorField<double> rounded =
      UnpackColourVectors(floats.data(), Precision::kSingle, lattice.half_volume() + 5, lattice, Parity::kOdd);
  for (int i = 0; i < v.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      // volatile: GCC 12.2 at -O2 (its SLP vectoriser) dropped this double -> float -> double round trip in a plain
      // local, making the expectation the unrounded double; a volatile float is stored, hence rounded.
      const volatile float re = static_cast<float>(v[i](c).real()), im = static_cast<float>(v[i](c).imag());
      ASSERT_EQ(rounded[i](c), Complex<double>(re, im)) << "site " << i << " colour " << c;
    }
  }
  // Half keeps each real within half a level of its site's largest |real| M, plus the float decode's roundings
  // (the norm stored as a float, times the float 1/32767, times the level: 4 u of M at most), per complex
  // component sqrt(2) of that.
  const std::vector<unsigned char> levels = PackColourVectors(v, Precision::kHalf, lattice.half_volume() + 2);
  const ColourVectorField<double> decoded =
      UnpackColourVectors(levels.data(), Precision::kHalf, lattice.half_volume() + 2, lattice, Parity::kOdd);
  double worst = 0;
  for (int i = 0; i < v.sites(); ++i) {
    double largest = 0;
    for (int c = 0; c < 3; ++c) largest = std::max({largest, std::abs(v[i](c).real()), std::abs(v[i](c).imag())});
    const double bound = std::sqrt(2.0) * (0.5 / 32767 + 4 * 0x1p-24) * largest * 1.01;
    for (int c = 0; c < 3; ++c) {
      ASSERT_LE(std::abs(decoded[i](c) - v[i](c)), bound) << "half site " << i << " colour " << c;
      worst = std::max(worst, std::abs(decoded[i](c) - v[i](c)) / bound);
    }
  }
  EXPECT_GT(worst, 0.1);  // levels, not the values themselves
  GaugeView half_links;
  half_links.precision = Precision::kHalf;
  EXPECT_THROW(PackEighteenRealLinksOnHost(half_links, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
