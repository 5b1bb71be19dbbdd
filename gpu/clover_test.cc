// clover_test: the device clover term equals the CPU oracle (reference/clover.h's ApplyCloverBlocks and
// ApplyCloverInverseBlocks, double, DeGrand-Rossi) in double, single and half precision, on both parities, for T
// and T^{-1}, within per-site bounds derived from the unit roundoffs and the stored block norms (the derivation is
// docs/error_bounds.md, "GPU clover term: tolerances of the oracle tests"; the code is oracle_comparison.h's
// DeviceCloverError, OracleError and OutputStoreError, composed in RunAgainstOracle below); small
// integers are exact in double and single; T^{-1} T psi = psi to the chained bound plus the oracle inverse's own
// defect; a c_sw = 0 field is (4 + m) times the identity; padding, block sizes and out = in change no bit; the
// upload refuses non-finite, non-Hermitian and out-of-range blocks, and ApplyCloverTerm bad arguments, with
// messages naming the problem; the cost model has the documented numbers.
//
// The upload refusals and the cost model need no GPU; every other test skips itself without one.
#include "gpu/clover_apply.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/oracle_comparison.h"
#include "gpu/tune.h"
#include "reference/clover.h"
#include "reference/error_testing.h"
#include "reference/gamma.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu {
namespace {

using testing::Comparison;

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr double kUd = 0x1p-53;
constexpr double kUf = 0x1p-24;
const double kSqrt2 = std::sqrt(2.0);

// ---- The bound (docs/error_bounds.md, "GPU clover term: tolerances of the oracle tests"; the code is
// oracle_comparison.h's item 7, shared with clover_dslash_test) ----

using testing::DeviceCloverError;
using testing::HermitianRead;
using testing::LargestReal;
using testing::OracleError;
using testing::OutputStoreError;
using testing::RowSum;

// ---- Inputs ----

CloverParams Params(double mass, double c_sw) {
  CloverParams p;
  p.mass = mass;
  p.c_sw = c_sw;
  p.basis = GammaBasis::kDeGrandRossi;
  return p;
}

using testing::IntegerBlocks;
using testing::SiteBlocks;
using testing::UkqcdMatrix;

class CloverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    LaunchTuner::Instance().ClearForcedBlockSize();
  }
  void TearDown() override { LaunchTuner::Instance().ClearForcedBlockSize(); }
  // Extents all different and Lx / 2 odd, so index mix-ups cannot cancel (as in wilson_dslash_test).
  const Lattice lattice_{6, 4, 10, 8};
};

// ---- Against the oracle ----

struct CloverCase {
  Precision precision;
  Parity parity;
  bool inverse;
  int pad = 0;
  std::string Name() const {
    return std::string(ToString(precision)) + (inverse ? " T^-1 " : " T ") + (parity == Parity::kEven ? "even" : "odd") +
           (pad > 0 ? " padded" : "");
  }
};

// The device result (downloaded to DR) against the oracle on one parity, with the derived per-site bound.
Comparison RunAgainstOracle(const CloverCase& c, const CloverField<double>& clover, std::uint64_t seed) {
  const Lattice& lat = clover.lattice();
  SpinorField<double> in(lat, SubsetOf(c.parity));
  FillGaussian(in, seed);
  SpinorField<double> oracle(lat, SubsetOf(c.parity));
  if (c.inverse) {
    ApplyCloverInverseBlocks(oracle, clover, in);
  } else {
    ApplyCloverBlocks(oracle, clover, in);
  }

  const DeviceCloverField device_clover(clover, {c.precision, c.pad});
  DeviceSpinorField in_device(lat, SubsetOf(c.parity), c.precision, c.pad);
  DeviceSpinorField out_device(lat, SubsetOf(c.parity), c.precision, c.pad);
  in_device.Upload(in);
  out_device.FillBytes(0xff);  // NaN everywhere: a site the kernel misses fails the comparison
  ApplyCloverTerm(out_device, device_clover, in_device, c.inverse);
  const SpinorField<double> got = out_device.Download();

  const std::vector<double> m = testing::Magnitudes(in), e = testing::UploadErrors(in, c.precision);
  const std::vector<double> r = testing::Magnitudes(oracle);
  std::vector<double> bound(lat.volume(), 0.0);
  for (int i = 0; i < in.sites(); ++i) {
    const int site = in.SiteIndex(i);
    const CloverSiteBlocks blocks = SiteBlocks(clover, site, c.inverse);
    const double oracle_error = OracleError(blocks, m[site]);
    const double device = DeviceCloverError(c.precision, blocks, m[site], e[site]);
    // The exact output's size in either basis is at most the oracle's plus sqrt 2 times its DR error.
    const double exact_size = r[site] + kSqrt2 * oracle_error;
    bound[site] = device + OutputStoreError(c.precision, exact_size, device) + oracle_error / kSqrt2;
  }
  return testing::CompareWithBound(got, oracle, bound, r);
}

void ExpectWithinBound(const std::string& name, const Comparison& r) {
  std::printf("%-24s max |error| %.2e  max error/bound %.3f\n", name.c_str(), r.max_error, r.max_ratio);
  EXPECT_EQ(r.violations, 0) << name << ": " << r.first_violation;
}

// Haar-random links (rough: the largest clover entries) and smooth ones; c_sw and m keep T well conditioned
// (condition number below 3, checked), the regime a solver runs in.
TEST_F(CloverTest, EveryPrecisionParityAndInverseMatchesTheOracle) {
  const GaugeField<double> fields[] = {testing::RandomLinks(lattice_, 301, false),
                                       testing::SmoothLinks(lattice_, 302, 0.5)};
  for (const GaugeField<double>& u : fields) {
    const CloverField<double> clover(u, Params(0.25, 1.5));
    ASSERT_LT(clover.max_condition(), 3.0);
    ASSERT_GT(clover.min_eigenvalue(), 1.0);
    for (Precision precision : kPrecisions) {
      for (Parity parity : {Parity::kEven, Parity::kOdd}) {
        for (bool inverse : {false, true}) {
          const CloverCase c{precision, parity, inverse};
          ExpectWithinBound(c.Name(), RunAgainstOracle(c, clover, 400));
        }
      }
    }
  }
}

// A CloverField<float> uploads exactly its float blocks: the device field equals, bit for bit, the one built
// from the same blocks converted to double (which the other tests compare with the oracle).
TEST_F(CloverTest, FloatHostFieldUploadsItsBlocksExactly) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 303, false);
  GaugeField<float> u_float(lattice_);
  for (int site = 0; site < lattice_.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) u_float.Link(site, mu) = u.Link(site, mu).cast<Complex<float>>();
  }
  const CloverField<float> clover(u_float, Params(0.25, 1.5));
  std::vector<CloverSiteBlocks> t(lattice_.volume()), t_inverse(lattice_.volume());
  for (int site = 0; site < lattice_.volume(); ++site) {
    for (int chirality = 0; chirality < 2; ++chirality) {
      t[site][chirality] = clover.Block(site, chirality).cast<Complex<double>>();
      t_inverse[site][chirality] = clover.InverseBlock(site, chirality).cast<Complex<double>>();
    }
  }
  for (Precision precision : kPrecisions) {
    const DeviceCloverField from_float(clover, {precision, 0});
    const DeviceCloverField from_double(lattice_, t, t_inverse, {precision, 0});
    for (bool inverse : {false, true}) {
      const std::vector<CloverSiteBlocks> a = from_float.Download(inverse), b = from_double.Download(inverse);
      for (int site = 0; site < lattice_.volume(); ++site) {
        for (int chirality = 0; chirality < 2; ++chirality) {
          ASSERT_EQ(a[site][chirality], b[site][chirality]) << ToString(precision) << " site " << site;
        }
      }
    }
  }
}

// Download returns the stored blocks: double bit for bit (the Hermitian read of the host block), single within
// u_f per real (halving is exact), half within a level of the block's norm: |2 C - B| <= 2 fl32(n_C) (1/2 + 2^-30)
// / 32767 + the download's own double rounding (2^-53 relative).
TEST_F(CloverTest, DownloadReturnsTheStoredBlocksWithinTheStorageRounding) {
  const CloverField<double> clover(testing::RandomLinks(lattice_, 304, false), Params(0.25, 1.5));
  for (Precision precision : kPrecisions) {
    const DeviceCloverField device(clover, {precision, 0});
    for (bool inverse : {false, true}) {
      const std::vector<CloverSiteBlocks> got = device.Download(inverse);
      double worst_ratio = 0;
      for (int site = 0; site < lattice_.volume(); ++site) {
        const CloverSiteBlocks want = SiteBlocks(clover, site, inverse);
        for (int chirality = 0; chirality < 2; ++chirality) {
          const ChiralBlock<double> b = HermitianRead(want[chirality]);
          const double level = 2 * (LargestReal(b) / 2) * (1 + kUf) * (0.5 + 0x1p-30) / 32767;
          for (int i = 0; i < 6; ++i) {
            for (int j = 0; j < 6; ++j) {
              for (int part = 0; part < 2; ++part) {
                const double w = part == 0 ? b(i, j).real() : b(i, j).imag();
                const double g = part == 0 ? got[site][chirality](i, j).real() : got[site][chirality](i, j).imag();
                const double bound = precision == Precision::kDouble   ? 0.0
                                     : precision == Precision::kSingle ? kUf * std::abs(w)
                                                                       : level + kUd * std::abs(g);
                ASSERT_LE(std::abs(g - w), bound) << ToString(precision) << (inverse ? " T^-1" : " T") << " site "
                                                  << site << " chirality " << chirality << " (" << i << "," << j << ")";
                if (bound > 0) worst_ratio = std::max(worst_ratio, std::abs(g - w) / bound);
              }
            }
          }
        }
      }
      std::printf("%-7s %-5s download: max error/bound %.3f\n", ToString(precision), inverse ? "T^-1" : "T",
                  worst_ratio);
    }
  }
}

// Small integers: T_UKQCD psi has half-integer entries, exact in double and single, whatever the order of the
// operations. Spinors go up and down in the UKQCD basis (no basis change). t and t_inverse are different integer
// blocks, so using the wrong one of the pair fails.
TEST_F(CloverTest, SmallIntegersAreExactInDoubleAndSingle) {
  // The H of UkqcdMatrix is sqrt 2 times the oracle's S.
  const SpinMatrix& s = DeGrandRossiToUkqcd();
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const double h = (i % 2 == j % 2) ? ((i >= 2 && j >= 2) ? -1.0 : 1.0) : 0.0;
      ASSERT_NEAR(std::abs(s(i, j) * kSqrt2 - h), 0.0, 1e-15) << i << "," << j;
    }
  }
  const std::vector<CloverSiteBlocks> t = IntegerBlocks(lattice_, 501, 4), t_inverse = IntegerBlocks(lattice_, 502, 1);
  for (Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const DeviceCloverField clover(lattice_, t, t_inverse, {precision, 0});
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      const SpinorField<double> in = testing::IntegerSpinors(lattice_, SubsetOf(parity), 503);
      DeviceSpinorField in_device(lattice_, SubsetOf(parity), precision), out_device(lattice_, SubsetOf(parity), precision);
      in_device.Upload(in, GammaBasis::kUkqcd);
      for (bool inverse : {false, true}) {
        out_device.FillBytes(0xff);
        ApplyCloverTerm(out_device, clover, in_device, inverse);
        const SpinorField<double> got = out_device.Download(GammaBasis::kUkqcd);
        long mismatches = 0;
        for (int i = 0; i < in.sites(); ++i) {
          const int site = in.SiteIndex(i);
          const SpinColorMatrix<double> tu = UkqcdMatrix(inverse ? t_inverse[site] : t[site]);
          const SiteSpinor<double> want = FromSpinColorVector<double>(tu * ToSpinColorVector(in[i]));
          if (got[i] != want && mismatches++ == 0) {
            ADD_FAILURE() << ToString(precision) << (inverse ? " T^-1" : " T") << " site " << site << ": got\n"
                          << got[i] << "\nwant\n"
                          << want;
          }
        }
        EXPECT_EQ(mismatches, 0) << ToString(precision) << (inverse ? " T^-1" : " T");
      }
    }
  }
}

// T^{-1} (T psi) = psi: the chained bound of the two device applications (the first's output error is the
// second's input error), plus the defect of the oracle's inverse, delta = rho(B^{-1} B - 1) measured in double
// (+ 26 u_d rho(B^{-1}) rho(B) for that product's own rounding), which moves each DR real by <= delta m.
// Run in place (out = in) for both applications.
TEST_F(CloverTest, InverseUndoesTheTermInPlace) {
  const CloverField<double> clover(testing::RandomLinks(lattice_, 305, false), Params(0.25, 1.5));
  for (Precision precision : kPrecisions) {
    const DeviceCloverField device_clover(clover, {precision, 0});
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      SpinorField<double> psi(lattice_, SubsetOf(parity));
      FillGaussian(psi, 306);
      DeviceSpinorField field(lattice_, SubsetOf(parity), precision);
      field.Upload(psi);
      ApplyCloverTerm(field, device_clover, field, /*inverse=*/false);
      ApplyCloverTerm(field, device_clover, field, /*inverse=*/true);
      const SpinorField<double> got = field.Download();

      SpinorField<double> t_psi(lattice_, SubsetOf(parity));
      ApplyCloverBlocks(t_psi, clover, psi);
      const std::vector<double> m0 = testing::Magnitudes(psi), e0 = testing::UploadErrors(psi, precision);
      const std::vector<double> m1 = testing::Magnitudes(t_psi);
      std::vector<double> bound(lattice_.volume(), 0.0), r(lattice_.volume(), 0.0);
      for (int i = 0; i < psi.sites(); ++i) {
        const int site = psi.SiteIndex(i);
        const CloverSiteBlocks t = SiteBlocks(clover, site, false), t_inverse = SiteBlocks(clover, site, true);
        double delta = 0;
        for (int chirality = 0; chirality < 2; ++chirality) {
          const ChiralBlock<double> b = HermitianRead(t[chirality]), b_inverse = HermitianRead(t_inverse[chirality]);
          const ChiralBlock<double> defect = b_inverse * b - ChiralBlock<double>::Identity();
          delta = std::max(delta, RowSum(defect) * (1 + 16 * kUd) + 26 * kUd * RowSum(b_inverse) * RowSum(b));
        }
        // First application: T psi, of size <= the oracle's plus sqrt 2 its error, in either basis.
        const double t_size = m1[site] + kSqrt2 * OracleError(t, m0[site]);
        const double e1_device = DeviceCloverError(precision, t, m0[site], e0[site]);
        const double e1 = e1_device + OutputStoreError(precision, t_size, e1_device);
        // Second: T^{-1} of that, whose exact value is psi + (B^{-1} B - 1) psi: size <= m0 (1 + sqrt 2 delta).
        const double psi_size = m0[site] * (1 + kSqrt2 * delta);
        const double e2_device = DeviceCloverError(precision, t_inverse, t_size, e1);
        const double e2 = e2_device + OutputStoreError(precision, psi_size, e2_device);
        bound[site] = e2 + delta * m0[site] / kSqrt2;  // the defect is a DR error; CompareWithBound scales by sqrt 2
        r[site] = psi_size;
      }
      const Comparison result = testing::CompareWithBound(got, psi, bound, r);
      ExpectWithinBound(std::string(ToString(precision)) + " T^-1 T " + (parity == Parity::kEven ? "even" : "odd"),
                        result);
    }
  }
}

// With c_sw = 0, T = (4 + m) exactly: every stored block is 4.25 times the identity in every precision (4.25 / 2
// is a short's full scale with norm 2.125 in half), and on integer spinors (UKQCD basis) T psi = 4.25 psi exactly
// in double and single (every sum and product is a small dyadic number); half within its derived bound.
TEST_F(CloverTest, ZeroCswIsFourPlusMassTimesTheIdentity) {
  const double mass = 0.25;
  const CloverField<double> clover(testing::RandomLinks(lattice_, 307, false), Params(mass, 0.0));
  for (Precision precision : kPrecisions) {
    const DeviceCloverField device_clover(clover, {precision, 0});
    const std::vector<CloverSiteBlocks> stored = device_clover.Download(false);
    for (int site = 0; site < lattice_.volume(); ++site) {
      for (int chirality = 0; chirality < 2; ++chirality) {
        ASSERT_EQ(stored[site][chirality], (4 + mass) * ChiralBlock<double>::Identity())
            << ToString(precision) << " site " << site << " chirality " << chirality;
      }
    }
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      const SpinorField<double> in = testing::IntegerSpinors(lattice_, SubsetOf(parity), 308);
      DeviceSpinorField in_device(lattice_, SubsetOf(parity), precision), out_device(lattice_, SubsetOf(parity), precision);
      in_device.Upload(in, GammaBasis::kUkqcd);
      out_device.FillBytes(0xff);
      ApplyCloverTerm(out_device, device_clover, in_device, false);
      const SpinorField<double> got = out_device.Download(GammaBasis::kUkqcd);
      SpinorField<double> want(lattice_, SubsetOf(parity));
      for (int i = 0; i < in.sites(); ++i) want[i] = (4 + mass) * in[i];
      if (precision != Precision::kHalf) {
        for (int i = 0; i < in.sites(); ++i) ASSERT_EQ(got[i], want[i]) << ToString(precision) << " cb " << i;
        continue;
      }
      // Half: a site's levels q = round(32767 k / 3) do not hold the integers k exactly, so the upload error and the
      // derived bound apply (Magnitudes takes the largest real over both bases, so a UKQCD field works too).
      const std::vector<double> m = testing::Magnitudes(in), e = testing::UploadErrors(in, precision);
      const std::vector<double> r = testing::Magnitudes(want);
      std::vector<double> bound(lattice_.volume(), 0.0);
      for (int i = 0; i < in.sites(); ++i) {
        const int site = in.SiteIndex(i);
        const double device = DeviceCloverError(precision, SiteBlocks(clover, site, false), m[site], e[site]);
        bound[site] = device + OutputStoreError(precision, r[site], device);
      }
      ExpectWithinBound(std::string("half c_sw=0 ") + (parity == Parity::kEven ? "even" : "odd"),
                        testing::CompareWithBound(got, want, bound, r));
    }
  }
}

// Padding (clover and spinors), block sizes and out = in change no bit of the result.
TEST_F(CloverTest, PaddingBlockSizesAndAliasingChangeNothing) {
  const CloverField<double> clover(testing::RandomLinks(lattice_, 309, false), Params(0.25, 1.5));
  SpinorField<double> in(lattice_, Subset::kOdd);
  FillGaussian(in, 310);
  for (Precision precision : kPrecisions) {
    for (bool inverse : {false, true}) {
      auto run = [&](int pad, int block, bool in_place) {
        if (block > 0) {
          LaunchTuner::Instance().ForceBlockSize(block);
        } else {
          LaunchTuner::Instance().ClearForcedBlockSize();
        }
        const DeviceCloverField device_clover(clover, {precision, pad});
        DeviceSpinorField in_device(lattice_, Subset::kOdd, precision, pad);
        DeviceSpinorField out_device(lattice_, Subset::kOdd, precision, pad);
        in_device.Upload(in);
        if (in_place) {
          ApplyCloverTerm(in_device, device_clover, in_device, inverse);
          return in_device.Download();
        }
        out_device.FillBytes(0xff);
        ApplyCloverTerm(out_device, device_clover, in_device, inverse);
        return out_device.Download();
      };
      const SpinorField<double> reference = run(0, 0, false);
      // pad 3 gives strides no other test uses, so the in-place call is the first of its tuning key: the tuner
      // times it on the aliased field and must restore the input between timing launches.
      const struct {
        int pad, block;
        bool in_place;
        const char* what;
      } variants[] = {{DeviceCloverField::PaperPad(lattice_), 0, false, "paper pad"},
                      {3, 0, true, "in place, tuned"},
                      {0, 32, false, "block 32"},
                      {0, 128, true, "block 128 in place"}};
      for (const auto& v : variants) {
        const SpinorField<double> got = run(v.pad, v.block, v.in_place);
        for (int i = 0; i < in.sites(); ++i) {
          ASSERT_EQ(got[i], reference[i]) << ToString(precision) << (inverse ? " T^-1 " : " T ") << v.what << " cb " << i;
        }
      }
    }
  }
}

// ---- Refusals ----

TEST_F(CloverTest, BadArgumentsAreRefusedWithClearMessages) {
  const CloverField<double> clover(testing::RandomLinks(lattice_, 311, false), Params(0.25, 1.5));
  const DeviceCloverField device_clover(clover, {Precision::kSingle, 0});
  DeviceSpinorField even(lattice_, Subset::kEven, Precision::kSingle), odd(lattice_, Subset::kOdd, Precision::kSingle);
  DeviceSpinorField even_double(lattice_, Subset::kEven, Precision::kDouble);
  DeviceSpinorField full(lattice_, Subset::kFull, Precision::kSingle);
  const Lattice other(4, 4, 4, 4);
  DeviceSpinorField elsewhere(other, Subset::kEven, Precision::kSingle);

  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(even_double, device_clover, even_double, false); }),
                  "is in double precision but the clover field in single");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(even, device_clover, even_double, false); }), "precision");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(even.View(), device_clover, odd.View(), false); }),
                  "out is even but in is odd");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(even, device_clover, odd, false); }), "keeps the parity");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(full, device_clover, even, true); }), "keeps the parity");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(elsewhere.View(), device_clover, elsewhere.View(), false); }),
                  "lives on 4x4x4x4 but the clover field on 6x4x10x8");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(elsewhere, device_clover, even, false); }), "lives on");
  SpinorView no_memory = even.View();
  no_memory.data = nullptr;
  EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverTerm(no_memory, device_clover, even.View(), false); }),
                  "out has no device memory");
  // Full fields on both sides are fine: both parities.
  EXPECT_EQ(ErrorOf([&] { ApplyCloverTerm(full, device_clover, full, false); }), "");
}

// The upload checks run before any device memory is touched, so these need no GPU.
TEST(CloverUploadTest, RefusesNonFiniteNonHermitianAndOutOfRangeBlocks) {
  const Lattice lattice(4, 4, 4, 4);
  const std::vector<CloverSiteBlocks> good = IntegerBlocks(lattice, 601, 4);
  const Coordinates where{1, 2, 3, 0};
  const int site = lattice.Index(where);
  auto upload = [&](const std::vector<CloverSiteBlocks>& t, const std::vector<CloverSiteBlocks>& t_inverse,
                    Precision precision) {
    return ErrorOf([&] { DeviceCloverField field(lattice, t, t_inverse, {precision, 0}); });
  };
  std::vector<CloverSiteBlocks> bad = good;
  bad[site][1](3, 1) = {std::numeric_limits<double>::quiet_NaN(), 0.0};
  bad[site][1](1, 3) = std::conj(bad[site][1](3, 1));
  const std::string nan_message = upload(good, bad, Precision::kDouble);
  EXPECT_CONTAINS(nan_message, "T^{-1} at site (1,2,3,0), chirality 1");
  EXPECT_CONTAINS(nan_message, "must be finite");

  bad = good;
  bad[site][0](0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_CONTAINS(upload(bad, good, Precision::kHalf), "T at site (1,2,3,0), chirality 0");

  bad = good;
  bad[site][0](4, 2) += Complex<double>(1e-6, 0);  // the upper triangle no longer mirrors it
  EXPECT_CONTAINS(upload(bad, good, Precision::kSingle), "not Hermitian");
  bad = good;
  bad[site][0](5, 5) += Complex<double>(0, 1e-3);
  EXPECT_CONTAINS(upload(bad, good, Precision::kSingle), "not Hermitian");

  bad = good;
  bad[site][1] *= 1e300;
  EXPECT_CONTAINS(upload(bad, good, Precision::kSingle), "overflows single precision");
  EXPECT_CONTAINS(upload(bad, good, Precision::kHalf), "[2^-100, 2^100]");
  bad = good;
  bad[site][1] *= 1e-35;
  EXPECT_CONTAINS(upload(bad, good, Precision::kHalf), "[2^-100, 2^100]");

  EXPECT_CONTAINS(ErrorOf([&] { DeviceCloverField field(lattice, good, good, {Precision::kDouble, -1}); }),
                  "pad must be >= 0");
  std::vector<CloverSiteBlocks> short_list(good.begin(), good.end() - 1);
  EXPECT_CONTAINS(upload(short_list, good, Precision::kDouble), "expected 256 sites");
}

// ---- Cost model (no GPU) ----

TEST(CloverApplyCostTest, MatchesTheDocumentedCounts) {
  const Extents extents{32, 32, 32, 32};
  const double sites = 32.0 * 32 * 32 * 32 / 2;
  const double expected_bytes[] = {960, 480, 256};  // 72 clover + 48 spinor reals (+ 4 norms in half)
  for (int k = 0; k < 3; ++k) {
    const CloverApplyKernelCost cost = CloverApplyCost(kPrecisions[k], extents);
    EXPECT_EQ(cost.flops, 504 * sites);
    EXPECT_EQ(cost.basis_change_flops, 48 * sites);
    EXPECT_EQ(cost.bytes, expected_bytes[k] * sites) << ToString(kPrecisions[k]);
    EXPECT_EQ(cost.minimum_bytes, cost.bytes);
  }
}

}  // namespace
}  // namespace lqcd::gpu
