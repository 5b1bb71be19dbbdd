// The GPU staggered Dslash (staggered_dslash.h) against the oracle (reference/staggered/staggered_dslash.h,
// ApplyStaggeredDslashParity in double) on HISQ links smeared from Haar-random thin links and on naive links,
// in double and single precision, for every mapping of right-hand sides to threads, both output parities,
// D and D^dag, antiperiodic and periodic time, within the derived bound of staggered_dslash_testing.h; and the
// colour-vector field's transfers and refusals. (staggered_dslash_host_test.cc runs the same per-site code on
// the host, without a GPU.)
#include "gpu/staggered_dslash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/tune.h"
#include "gpu/staggered_blas.h"
#include "gpu/staggered_dslash_testing.h"
#include "reference/staggered/hisq_links.h"
#include "reference/staggered/u3_compression.h"

namespace lqcd::gpu {
namespace {

using testing::RandomHisqLinks;

class StaggeredDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }

  const Lattice lattice_{Coordinates{4, 4, 6, 6}};
};

TEST_F(StaggeredDslashTest, EveryVariantMatchesTheOracleWithinTheDerivedBound) {
  const StaggeredLinks<double> hisq = RandomHisqLinks(lattice_, 7);
  const StaggeredLinks<double> naive = testing::RandomNaiveLinks(lattice_, 8);
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
                worst = std::max(worst, testing::CheckWithinBound(out_d[j].Download(), expected,
                                                                  testing::AbsoluteTerms(*links, stored, out_parity),
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
}

TEST_F(StaggeredDslashTest, HalfPrecisionMatchesTheOracleOnTheLinksItRepresents) {
  // As staggered_dslash_host_test's test of the same name: the oracle on the links the half storage represents
  // and on the inputs as stored, the Dslash bound in float plus the output's storage in half.
  const StaggeredLinks<double> hisq = RandomHisqLinks(lattice_, 41);
  const StaggeredLinks<double> naive = testing::RandomNaiveLinks(lattice_, 42);
  double worst = 0;
  int cases = 0;
  for (const StaggeredLinks<double>* links : {&hisq, &naive}) {
    const StaggeredLinks<double> represented = HalfPrecisionLinks(*links);
    const DeviceStaggeredLinks device_links(*links, Precision::kHalf);
    const int hops = links->long_links ? 16 : 8;
    for (const Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        for (const int mapping : {0, 1, 2, 4}) {
          const int n = mapping == 0 ? 5 : 3;
          std::vector<DeviceColourVectorField> in_d, out_d;
          for (int j = 0; j < n; ++j) {
            ColourVectorField<double> input(lattice_, SubsetOf(Opposite(out_parity)));
            FillGaussian(input, 700 + 10 * j + static_cast<int>(out_parity));
            in_d.emplace_back(lattice_, Opposite(out_parity), Precision::kHalf);
            in_d.back().Upload(input);
            out_d.emplace_back(lattice_, out_parity, Precision::kHalf);
          }
          std::vector<DeviceColourVectorField*> out_ptr;
          std::vector<const DeviceColourVectorField*> in_ptr;
          for (int j = 0; j < n; ++j) {
            out_ptr.push_back(&out_d[j]);
            in_ptr.push_back(&in_d[j]);
          }
          ApplyStaggeredDslashBlock(out_ptr, device_links, in_ptr, FermionBoundary::AntiperiodicTime(), dagger,
                                    mapping);
          for (int j = 0; j < n; ++j) {
            const ColourVectorField<double> stored = in_d[j].Download();
            ColourVectorField<double> expected(lattice_, SubsetOf(out_parity));
            ApplyStaggeredDslashParity(expected, represented, stored, FermionBoundary::AntiperiodicTime(), dagger);
            const ColourVectorField<double> terms = testing::AbsoluteTerms(represented, stored, out_parity);
            const ColourVectorField<double> extra =
                testing::HalfStorageBound(expected, testing::DslashArithmeticBound(terms, Precision::kHalf, hops));
            worst = std::max(worst, testing::CheckWithinBound(
                                        out_d[j].Download(), expected, terms, extra, Precision::kHalf, hops,
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
  EXPECT_GT(worst, 0.01);
}

TEST_F(StaggeredDslashTest, ThirteenNumberLongLinksMatchTheOracleOnTheLinksTheyRepresent) {
  // As staggered_dslash_host_test's test of the same name: the oracle on the links the 13 numbers represent, the
  // Dslash bound plus sqrt(2) 27 u |scale| sum |v| per long hop for the device's reconstruction.
  const StaggeredLinks<double> hisq = RandomHisqLinks(lattice_, 31);
  const double scale = HisqNaikCoefficient(0.0);
  const StaggeredLinks<double> represented{hisq.fat,
                                           CompressAndReconstructU3(*hisq.long_links, scale, U3Compression::k13)};
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const DeviceStaggeredLinks links(hisq, precision, LongLinkStorage{U3Compression::k13, scale});
    ColourVectorField<double> in(lattice_, Subset::kOdd);
    FillGaussian(in, 32);
    DeviceColourVectorField in_d(lattice_, Parity::kOdd, precision), out_d(lattice_, Parity::kEven, precision);
    in_d.Upload(in);
    ApplyStaggeredDslash(out_d, links, in_d, FermionBoundary());
    const ColourVectorField<double> stored = in_d.Download();
    ColourVectorField<double> expected(lattice_, Subset::kEven);
    ApplyStaggeredDslashParity(expected, represented, stored, FermionBoundary());
    const ColourVectorField<double> extra = testing::U3ReconstructionBound(stored, Parity::kEven, scale, precision);
    testing::CheckWithinBound(out_d.Download(), expected, testing::AbsoluteTerms(represented, stored, Parity::kEven),
                              extra, precision, 16, std::string(ToString(precision)) + " 13-number long links");
  }
}

TEST_F(StaggeredDslashTest, NineNumberLongLinksMatchTheOracleWithinTheDerivedBound) {
  // As staggered_dslash_host_test's test of the same name: the oracle on the HISQ links themselves, the Dslash
  // bound plus each long hop's NineNumberLinkErrorBound times sum |v| (U9ReconstructionBound).
  const StaggeredLinks<double> hisq = RandomHisqLinks(lattice_, 37);
  const double scale = HisqNaikCoefficient(0.0);
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const DeviceStaggeredLinks links(hisq, precision, LongLinkStorage{U3Compression::k9, scale});
    // The cost model sees 10 reals per long link (9 padded): 8 fewer per long link than 18.
    const double real_bytes = precision == Precision::kDouble ? 8 : 4;
    EXPECT_DOUBLE_EQ(StaggeredDslashKernelCost(DeviceStaggeredLinks(hisq, precision), 1).bytes -
                         StaggeredDslashKernelCost(links, 1).bytes,
                     lattice_.half_volume() * 8.0 * 8 * real_bytes);
    double worst = 0;
    for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      for (const int n : {1, 4}) {
        std::vector<ColourVectorField<double>> in;
        std::vector<DeviceColourVectorField> in_d, out_d;
        for (int j = 0; j < n; ++j) {
          in.emplace_back(lattice_, Subset::kOdd);
          FillGaussian(in.back(), 40 + j);
          in_d.emplace_back(lattice_, Parity::kOdd, precision);
          in_d.back().Upload(in.back());
          out_d.emplace_back(lattice_, Parity::kEven, precision);
        }
        std::vector<DeviceColourVectorField*> out_ptr;
        std::vector<const DeviceColourVectorField*> in_ptr;
        for (int j = 0; j < n; ++j) {
          out_ptr.push_back(&out_d[j]);
          in_ptr.push_back(&in_d[j]);
        }
        ApplyStaggeredDslashBlock(out_ptr, links, in_ptr, FermionBoundary::AntiperiodicTime(), dagger);
        for (int j = 0; j < n; ++j) {
          const ColourVectorField<double> stored = in_d[j].Download();
          ColourVectorField<double> expected(lattice_, Subset::kEven);
          ApplyStaggeredDslashParity(expected, hisq, stored, FermionBoundary::AntiperiodicTime(), dagger);
          const ColourVectorField<double> extra =
              testing::U9ReconstructionBound(stored, *hisq.long_links, Parity::kEven, scale, precision);
          worst = std::max(worst, testing::CheckWithinBound(out_d[j].Download(), expected,
                                                            testing::AbsoluteTerms(hisq, stored, Parity::kEven), extra,
                                                            precision, 16,
                                                            std::string(ToString(precision)) + " 9-number long links n " +
                                                                std::to_string(n) + " rhs " + std::to_string(j)));
        }
      }
    }
    std::printf("%s, 9-number long links: the largest error is %.3f of its bound\n", ToString(precision), worst);
    EXPECT_GT(worst, 0);
  }
}

TEST_F(StaggeredDslashTest, TheXpayFormMatchesTheOracleInPlaceOrNot) {
  const StaggeredLinks<double> hisq = RandomHisqLinks(lattice_, 15);
  const double m = 0.0173, a = 4 * m * m, b = -1;  // the even-odd operator's second half
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const DeviceStaggeredLinks links(hisq, precision);
    for (const bool in_place : {false, true}) {
      ColourVectorField<double> in(lattice_, Subset::kEven), x(lattice_, Subset::kOdd);
      FillGaussian(in, 16);
      FillGaussian(x, 17);
      DeviceColourVectorField in_d(lattice_, Parity::kEven, precision), x_d(lattice_, Parity::kOdd, precision),
          out_d(lattice_, Parity::kOdd, precision);
      in_d.Upload(in);
      x_d.Upload(x);
      if (in_place) {
        out_d.Upload(x);
        ApplyStaggeredDslashXpay(out_d, links, in_d, out_d, a, b, FermionBoundary());
      } else {
        ApplyStaggeredDslashXpay(out_d, links, in_d, x_d, a, b, FermionBoundary());
      }
      const ColourVectorField<double> stored_in = in_d.Download(), stored_x = x_d.Download();
      ColourVectorField<double> d_in(lattice_, Subset::kOdd), expected(lattice_, Subset::kOdd);
      ApplyStaggeredDslashParity(d_in, hisq, stored_in, FermionBoundary(), Dagger::kNo);
      for (int i = 0; i < expected.sites(); ++i) expected[i] = a * stored_x[i] + b * d_in[i];
      testing::CheckXpayWithinBound(out_d.Download(), expected, testing::AbsoluteTerms(hisq, stored_in, Parity::kOdd),
                                    stored_x, d_in, a, b, precision, 16,
                                    std::string(ToString(precision)) + (in_place ? " in place" : ""));
    }
  }
}

TEST_F(StaggeredDslashTest, TheFusedSumsOfCgsStepAreTheSeparateOperationsAndNoBlockSizeChangesThem) {
  // CG's step in the Schur operator's two Dslash calls, V / 2 = 432 (13 chunks of 32 sites and one of 16):
  // - the norm (ApplyStaggeredDslashNormBlock): out = D in as the plain call stores it, bit for bit, and each chunk
  //   within the derived bound of testing::CheckNormWithForwardXChunks;
  // - the update (ApplyStaggeredDslashXpayAxpyNormBlock): r + c (a x + b D in) with c = -(nu / delta), delta read
  //   from device memory, the plain xpay's q updated with one fused multiply-add per part in the fields' precision,
  //   bit for bit, and each chunk of |r|^2 within testing::CheckReDotChunks's bound;
  // and for both, pinning the sites per block to 32 or 96 gives the tuned launch's partials (and r) bit for bit.
  const Lattice lattice(Coordinates{4, 6, 6, 6});
  const StaggeredLinks<double> hisq = RandomHisqLinks(lattice, 18);
  const double a = 4 * 0.05 * 0.05, b = -1;
  const int chunks = 14;
  double worst_norm = 0, worst_update = 0;
  {
    // Half has no fused form (the Schur operator takes the separate vector kernels): refused before any launch.
    const DeviceStaggeredLinks links(hisq, Precision::kHalf);
    DeviceColourVectorField in(lattice, Parity::kOdd, Precision::kHalf), out(lattice, Parity::kEven, Precision::kHalf),
        x(lattice, Parity::kEven, Precision::kHalf);
    DeviceBuffer partials(sizeof(double) * chunks);
    double* sums = static_cast<double*>(partials.data());
    EXPECT_THROW(ApplyStaggeredDslashNormBlock({&out}, links, {&in}, a, FermionBoundary(), sums),
                 std::invalid_argument);
    EXPECT_THROW(ApplyStaggeredDslashXpayAxpyNormBlock({&out}, links, {&in}, {&x}, a, b, {1.0}, {sums},
                                                       FermionBoundary(), sums),
                 std::invalid_argument);
  }
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const DeviceStaggeredLinks links(hisq, precision);
    ASSERT_EQ(StaggeredCurvatureChunks(links), chunks);
    for (const int n : {1, 3, 8, 16}) {
      const std::string what = std::string(ToString(precision)) + " n " + std::to_string(n);
      std::vector<DeviceColourVectorField> in, x, out, plain, r;
      std::vector<ColourVectorField<double>> r_host;
      for (int j = 0; j < n; ++j) {
        ColourVectorField<double> in_host(lattice, Subset::kOdd), x_host(lattice, Subset::kEven);
        FillGaussian(in_host, 100 + j);
        FillGaussian(x_host, 200 + j);
        r_host.emplace_back(lattice, Subset::kEven);
        FillGaussian(r_host.back(), 300 + j);
        in.emplace_back(lattice, Parity::kOdd, precision);
        x.emplace_back(lattice, Parity::kEven, precision);
        out.emplace_back(lattice, Parity::kEven, precision);
        plain.emplace_back(lattice, Parity::kEven, precision);
        r.emplace_back(lattice, Parity::kEven, precision);
        in.back().Upload(in_host);
        x.back().Upload(x_host);
      }
      std::vector<DeviceColourVectorField*> out_p, plain_p, r_p;
      std::vector<const DeviceColourVectorField*> in_p, x_p;
      for (int j = 0; j < n; ++j) {
        out_p.push_back(&out[j]);
        plain_p.push_back(&plain[j]);
        r_p.push_back(&r[j]);
        in_p.push_back(&in[j]);
        x_p.push_back(&x[j]);
      }
      // The update's numerators and its denominators in device memory.
      std::vector<double> numerators, denominators;
      for (int j = 0; j < n; ++j) {
        numerators.push_back(0.3 + 0.1 * j);
        denominators.push_back(1.7 - 0.05 * j);
      }
      DeviceBuffer denominator_buffer(sizeof(double) * n);
      denominator_buffer.CopyFromHost(denominators.data(), sizeof(double) * n);
      std::vector<const double*> denominator_addresses;
      for (int j = 0; j < n; ++j) {
        denominator_addresses.push_back(static_cast<const double*>(denominator_buffer.data()) + j);
      }
      DeviceBuffer partials(sizeof(double) * chunks * n);
      const auto download = [&] {
        std::vector<double> host(static_cast<std::size_t>(chunks) * n);
        partials.CopyToHost(host.data(), sizeof(double) * host.size());
        return host;
      };
      const auto norm = [&] {
        partials.Fill(0xff);
        ApplyStaggeredDslashNormBlock(out_p, links, in_p, a, FermionBoundary(), static_cast<double*>(partials.data()));
        return download();
      };
      const auto update = [&] {  // from the same r every time
        for (int j = 0; j < n; ++j) r[j].Upload(r_host[j]);
        partials.Fill(0xff);
        ApplyStaggeredDslashXpayAxpyNormBlock(r_p, links, in_p, x_p, a, b, numerators, denominator_addresses,
                                              FermionBoundary(), static_cast<double*>(partials.data()));
        std::vector<double> sums = download();
        for (int j = 0; j < n; ++j) {
          const ColourVectorField<double> rj = r[j].Download();
          for (int i = 0; i < rj.sites(); ++i) {
            for (int c = 0; c < 3; ++c) sums.insert(sums.end(), {rj[i](c).real(), rj[i](c).imag()});
          }
        }
        return sums;  // the partials, then every r's reals
      };
      const std::vector<double> norm_tuned = norm(), update_tuned = update();
      for (const int sites_per_block : {32, 96}) {
        LaunchTuner::Instance().ForceBlockSize(sites_per_block);
        const std::vector<double> norm_pinned = norm(), update_pinned = update();
        LaunchTuner::Instance().ClearForcedBlockSize();
        EXPECT_EQ(std::memcmp(norm_pinned.data(), norm_tuned.data(), sizeof(double) * norm_tuned.size()), 0)
            << what << ", norm, " << sites_per_block << " sites per block";
        EXPECT_EQ(std::memcmp(update_pinned.data(), update_tuned.data(), sizeof(double) * update_tuned.size()), 0)
            << what << ", update, " << sites_per_block << " sites per block";
      }
      // The norm's outputs and sums.
      norm();
      ApplyStaggeredDslashBlock(plain_p, links, in_p, FermionBoundary());
      for (int j = 0; j < n; ++j) {
        const ColourVectorField<double> o = out[j].Download(), p = plain[j].Download(), ins = in[j].Download();
        for (int i = 0; i < o.sites(); ++i) {
          ASSERT_EQ(std::memcmp(&o[i], &p[i], sizeof(o[i])), 0) << what << " norm, rhs " << j << " site " << i;
        }
        worst_norm = std::max(worst_norm, testing::CheckNormWithForwardXChunks(
                                              &norm_tuned[static_cast<std::size_t>(j) * chunks], o, ins, a,
                                              what + " norm, rhs " + std::to_string(j)));
      }
      // The update against the plain xpay's q and the AxpyNorm arithmetic.
      update();
      ApplyStaggeredDslashXpayBlock(plain_p, links, in_p, x_p, a, b, FermionBoundary());
      for (int j = 0; j < n; ++j) {
        const ColourVectorField<double> q = plain[j].Download(), rj = r[j].Download();
        DeviceColourVectorField stored_r(lattice, Parity::kEven, precision);
        stored_r.Upload(r_host[j]);
        const ColourVectorField<double> r0 = stored_r.Download();
        const double c = -(numerators[j] / denominators[j]);
        for (int i = 0; i < rj.sites(); ++i) {
          for (int k = 0; k < 3; ++k) {
            Complex<double> expected;
            if (precision == Precision::kSingle) {
              const float cf = static_cast<float>(c);
              expected = {std::fmaf(cf, static_cast<float>(q[i](k).real()), static_cast<float>(r0[i](k).real())),
                          std::fmaf(cf, static_cast<float>(q[i](k).imag()), static_cast<float>(r0[i](k).imag()))};
            } else {
              expected = {std::fma(c, q[i](k).real(), r0[i](k).real()), std::fma(c, q[i](k).imag(), r0[i](k).imag())};
            }
            ASSERT_EQ(rj[i](k), expected) << what << " update, rhs " << j << " site " << i << " colour " << k;
          }
        }
        worst_update = std::max(worst_update, testing::CheckReDotChunks(
                                                  &update_tuned[static_cast<std::size_t>(j) * chunks], rj, rj,
                                                  what + " update, rhs " + std::to_string(j)));
      }
    }
  }
  std::cout << "fused norm: the largest error is " << worst_norm << " of its bound; fused update's norm: "
            << worst_update << "\n";
}

TEST_F(StaggeredDslashTest, TheDaggerIsMinusDBitForBit) {
  const DeviceStaggeredLinks links(RandomHisqLinks(lattice_, 9), Precision::kSingle);
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
  // Download(Upload(v)) is the host packing's round trip bit for bit (what the precision keeps of v: the host
  // test checks that it is v, or v rounded to float); the device copy adds nothing and loses nothing.
  ColourVectorField<double> v(lattice_, Subset::kEven);
  FillGaussian(v, 12);
  for (const Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    DeviceColourVectorField d(lattice_, Parity::kEven, precision, /*pad=*/5);
    EXPECT_EQ(d.Download()[0](0), Complex<double>(0, 0));  // new fields are zero
    d.Upload(v);
    const ColourVectorField<double> back = d.Download();
    const std::vector<unsigned char> packed = PackColourVectors(v, precision, d.stride());
    const ColourVectorField<double> expected =
        UnpackColourVectors(packed.data(), precision, d.stride(), lattice_, Parity::kEven);
    for (int i = 0; i < v.sites(); ++i) {
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(back[i](c), expected[i](c))
            << std::setprecision(17) << ToString(precision) << " site " << i << " colour " << c << ": got "
            << back[i](c) << ", expected " << expected[i](c) << " (host value " << v[i](c) << ")";
      }
    }
  }
}

TEST_F(StaggeredDslashTest, BadInputIsRefusedBeforeAnyLaunch) {
  const DeviceStaggeredLinks links(RandomHisqLinks(lattice_, 13), Precision::kDouble);
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
  EXPECT_THROW(ApplyStaggeredDslashXpay(even, links, odd, odd2, 1.0, 1.0, b), std::invalid_argument);  // x parity
  EXPECT_THROW(ApplyStaggeredDslashXpay(even, links, odd, even, std::nan(""), 1.0, b), std::invalid_argument);
  ColourVectorField<double> wrong_parity(lattice_, Subset::kOdd);
  EXPECT_THROW(even.Upload(wrong_parity), std::invalid_argument);
  ColourVectorField<double> huge(lattice_, Subset::kOdd);
  huge[3](1) = Complex<double>(1e39, 0);  // beyond the float range
  EXPECT_THROW(single_odd.Upload(huge), std::invalid_argument);
  DeviceColourVectorField half_odd(lattice_, Parity::kOdd, Precision::kHalf);
  EXPECT_THROW(half_odd.Upload(huge), std::invalid_argument);  // the norm is a float
  EXPECT_EQ(staggered_blas::Norm2(half_odd), 0.0);  // half fields serve the vector operations too; new ones are 0
  EXPECT_THROW(DeviceStaggeredLinks(RandomHisqLinks(lattice_, 14), Precision::kHalf,
                                    LongLinkStorage{U3Compression::k13, HisqNaikCoefficient(0.0)}),
               std::invalid_argument);  // 13 numbers: double and single only
}

}  // namespace
}  // namespace lqcd::gpu
