// device_fields_test: device memory, spinor and gauge fields: layouts, precisions, the basis change and
// the 18/12/8 link forms survive a round trip to the device, exactly or within a derived bound, and bad
// input is refused with a message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/oracle_comparison.h"
#include "reference/spinor_field.h"
#include "reference/su3.h"

namespace lqcd::gpu {
namespace {

using testing::ChangeBasis;
using testing::LinkErrorBound;
using testing::Magnitudes;
using testing::RandomLinks;
using testing::SpinorStorageRoundoff;

constexpr double kUd = 0x1p-53;

class DeviceFieldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  // Extents all different, Lx / 2 odd: index mix-ups cannot cancel out.
  const Lattice lattice_{6, 4, 10, 8};
};

bool ContainsText(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_F(DeviceFieldsTest, OutOfMemoryIsACudaErrorWithTheReason) {
  try {
    DeviceBuffer huge(std::size_t{1} << 50);  // 1 PiB
    FAIL() << "allocating 1 PiB succeeded";
  } catch (const CudaError& e) {
    EXPECT_TRUE(ContainsText(e.what(), "cudaErrorMemoryAllocation")) << e.what();
    EXPECT_TRUE(ContainsText(e.what(), "free")) << e.what();
  }
}


// The footprint counters: held bytes follow allocations and frees exactly; the peak is the most held since
// the last reset, and a reset starts it at what is held then.
TEST_F(DeviceFieldsTest, PeakWindowFollowsAllocationsAndResets) {
  const std::size_t held = ResetDeviceBufferPeak();
  EXPECT_EQ(DeviceBufferBytes(), held);
  EXPECT_EQ(DeviceBufferPeakBytes(), held);
  {
    DeviceBuffer a(1000), b(24);
    EXPECT_EQ(DeviceBufferBytes(), held + 1024);
  }
  EXPECT_EQ(DeviceBufferBytes(), held);
  EXPECT_EQ(DeviceBufferPeakBytes(), held + 1024);
  { DeviceBuffer c(512); }
  EXPECT_EQ(DeviceBufferPeakBytes(), held + 1024);  // a smaller phase does not lower the peak
  EXPECT_EQ(ResetDeviceBufferPeak(), held);
  EXPECT_EQ(DeviceBufferPeakBytes(), held);
}
// The accessors' 32-bit index: a field past INT_MAX words is refused before any allocation (so without a
// GPU too). The pad makes the stride large on a small lattice: 12 double2 words per spinor site, 72 words per
// site of an 18-real double gauge field; 2^31 / 12 = 178956970.7 and 2^31 / 72 = 29826161.8.
TEST(DeviceFieldIndexRange, FieldsPastThe32BitIndexAreRefusedBeforeAnyAllocation) {
  const Lattice small(4, 4, 4, 4);  // V/2 = 128
  EXPECT_NO_THROW(RequireIntIndexable("x", 12, 178956970));
  EXPECT_THROW(RequireIntIndexable("x", 12, 178956971), std::invalid_argument);
  try {
    DeviceSpinorField psi(small, Subset::kEven, Precision::kDouble, 178956971 - 128);
    FAIL() << "a spinor field of stride 178956971 in double was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(ContainsText(e.what(), "32-bit index")) << e.what();
  }
  // Half spinors have 6 short4 words per site: twice the reach of double.
  EXPECT_NO_THROW(RequireIntIndexable("x", 6, 178956971));
  GaugeField<double> unit(small);
  try {
    DeviceGaugeField u(unit, GaugeLayout{Precision::kDouble, Reconstruct::k18, false, 29826162 - 128});
    FAIL() << "an 18-real double gauge field of stride 29826162 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(ContainsText(e.what(), "32-bit index")) << e.what();
  }
}

// The links are checked on all threads; the error names the first bad link in site order (site-major, then
// mu), whatever the threads. Validation comes before any allocation, so this runs without a GPU.
TEST(DeviceGaugeValidation, TheFirstBadLinkInSiteOrderIsNamed) {
  const Lattice lattice(8, 8, 8, 8);
  GaugeField<double> u(lattice);  // unit links
  const int bad[][2] = {{3000, 2}, {100, 3}, {100, 1}, {4095, 0}};
  for (const auto& b : bad) u.Link(b[0], b[1]) *= 2.0;  // not SU(3): refused by 12 and 8 reals
  const Coordinates n = lattice.Coords(100);
  const std::string expected = "link U_1(" + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," +
                               std::to_string(n[2]) + "," + std::to_string(n[3]) + ")";
  for (Reconstruct reconstruct : {Reconstruct::k12, Reconstruct::k8}) {
    try {
      DeviceGaugeField field(u, {Precision::kSingle, reconstruct, false, 0});
      FAIL() << "links of determinant 8 were accepted with " << ToString(reconstruct) << " reals";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(ContainsText(e.what(), expected)) << e.what();
      EXPECT_TRUE(ContainsText(e.what(), "SU(3)")) << e.what();
    }
  }
}

TEST_F(DeviceFieldsTest, DoubleRoundTripInTheDeviceBasisIsBitExact) {
  for (Subset subset : {Subset::kFull, Subset::kEven, Subset::kOdd}) {
    for (int pad : {0, DeviceSpinorField::PaperPad(lattice_)}) {
      SpinorField<double> host(lattice_, subset);
      FillGaussian(host, 11);
      DeviceSpinorField device(lattice_, subset, Precision::kDouble, pad);
      device.FillBytes(0xff);
      device.Upload(host, GammaBasis::kUkqcd);
      const SpinorField<double> back = device.Download(GammaBasis::kUkqcd);
      for (int i = 0; i < host.sites(); ++i) {
        ASSERT_EQ(back[i], host[i]) << ToString(subset) << " pad " << pad << " site " << i;
      }
    }
  }
}

TEST_F(DeviceFieldsTest, SingleStoresExactlyTheFloatRoundedValues) {
  SpinorField<double> host(lattice_, Subset::kOdd);
  FillGaussian(host, 12);
  DeviceSpinorField device(lattice_, Subset::kOdd, Precision::kSingle, 3);
  device.Upload(host, GammaBasis::kUkqcd);
  const SpinorField<double> back = device.Download(GammaBasis::kUkqcd);
  for (int i = 0; i < host.sites(); ++i) {
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(back[i](s, c).real(), static_cast<double>(static_cast<float>(host[i](s, c).real())));
        ASSERT_EQ(back[i](s, c).imag(), static_cast<double>(static_cast<float>(host[i](s, c).imag())));
      }
    }
  }
}

// Round trip through the basis change: upload converts DR -> UKQCD (3 roundings, <= 3 sqrt 2 u_d M per
// real), storage adds eps_s M, download converts back (the error times sqrt 2, plus 3 sqrt 2 u_d M):
// in total sqrt 2 eps_s M + (6 + 3 sqrt 2) u_d M < sqrt 2 eps_s M + 11 u_d M per real, M = the site's
// largest real in either basis.
TEST_F(DeviceFieldsTest, RoundTripThroughDeGrandRossiIsWithinTheStorageRounding) {
  for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    for (Subset subset : {Subset::kFull, Subset::kEven}) {
      SpinorField<double> host(lattice_, subset);
      FillGaussian(host, 13);
      DeviceSpinorField device(lattice_, subset, precision);
      device.Upload(host);
      const SpinorField<double> back = device.Download();
      const std::vector<double> m = Magnitudes(host);
      double max_ratio = 0;
      for (int i = 0; i < host.sites(); ++i) {
        const double bound = (std::sqrt(2.0) * SpinorStorageRoundoff(precision) + 11 * kUd) * m[host.SiteIndex(i)];
        const double error = (back[i] - host[i]).cwiseAbs().maxCoeff();  // |complex| <= sqrt 2 max real error
        ASSERT_LE(error, std::sqrt(2.0) * bound) << ToString(precision) << " site " << i;
        max_ratio = std::max(max_ratio, error / (std::sqrt(2.0) * bound));
      }
      std::printf("%-6s %-4s round trip: max error / bound = %.3f\n", ToString(precision), ToString(subset), max_ratio);
    }
  }
}

// The point of the per-site norm (paper, section 4.6): sites of wildly different size all keep the
// relative accuracy of 16 bits. With one global scale the small sites would be lost entirely.
TEST_F(DeviceFieldsTest, HalfPrecisionKeepsEverySitesRelativeAccuracy) {
  SpinorField<double> host(lattice_, Subset::kEven);
  FillGaussian(host, 14);
  for (int i = 0; i < host.sites(); ++i) host[i] *= std::pow(10.0, (i % 13) - 6);  // 1e-6 .. 1e6
  DeviceSpinorField device(lattice_, Subset::kEven, Precision::kHalf);
  device.Upload(host, GammaBasis::kUkqcd);
  const SpinorField<double> back = device.Download(GammaBasis::kUkqcd);
  for (int i = 0; i < host.sites(); ++i) {
    const double m = std::max(host[i].real().cwiseAbs().maxCoeff(), host[i].imag().cwiseAbs().maxCoeff());
    // Per real: half a level of the site's norm plus the float scale and decode (oracle_comparison.h).
    const double bound = SpinorStorageRoundoff(Precision::kHalf) * m;
    ASSERT_LE((back[i] - host[i]).real().cwiseAbs().maxCoeff(), bound) << "site " << i;
    ASSERT_LE((back[i] - host[i]).imag().cwiseAbs().maxCoeff(), bound) << "site " << i;
  }
}

TEST_F(DeviceFieldsTest, HalfPrecisionStoresZeroExactlyAndKeepsNaN) {
  SpinorField<double> host(lattice_, Subset::kOdd);  // zero
  host[7](2, 1) = {std::numeric_limits<double>::quiet_NaN(), 0.0};
  host[8](0, 0) = {1.5, -2.0};
  DeviceSpinorField device(lattice_, Subset::kOdd, Precision::kHalf);
  device.Upload(host, GammaBasis::kUkqcd);
  const SpinorField<double> back = device.Download(GammaBasis::kUkqcd);
  for (int i = 0; i < host.sites(); ++i) {
    if (i == 7) {
      EXPECT_TRUE(std::isnan(back[i](2, 1).real())) << "a NaN must not vanish in the half-precision store";
    } else if (i == 8) {
      const double bound = SpinorStorageRoundoff(Precision::kHalf) * 2.0;  // the site's norm is 2
      EXPECT_NEAR(back[i](0, 0).real(), 1.5, bound);
      EXPECT_NEAR(back[i](0, 0).imag(), -2.0, bound);
      EXPECT_EQ(back[i](3, 2), Complex<double>(0.0)) << "zeros stay exact in a non-zero site";
    } else {
      ASSERT_EQ(back[i], SiteSpinor<double>::Zero()) << "site " << i;
    }
  }
}

TEST_F(DeviceFieldsTest, PaddingAddsMemoryButNotContent) {
  const int pad = DeviceSpinorField::PaperPad(lattice_);
  EXPECT_EQ(pad, 6 * 4 * 10 / 2);
  DeviceSpinorField plain(lattice_, Subset::kFull, Precision::kHalf, 0);
  DeviceSpinorField padded(lattice_, Subset::kFull, Precision::kHalf, pad);
  // 6 short4 words (48 bytes) + a 4-byte norm per site and parity.
  EXPECT_EQ(plain.bytes(), 2u * lattice_.half_volume() * 52);
  EXPECT_EQ(padded.bytes(), 2u * (lattice_.half_volume() + pad) * 52);
  SpinorField<double> host(lattice_);
  FillGaussian(host, 15);
  plain.Upload(host);
  padded.Upload(host);
  const SpinorField<double> a = plain.Download(), b = padded.Download();
  for (int i = 0; i < host.sites(); ++i) ASSERT_EQ(a[i], b[i]) << "site " << i;
}

// Transfers from and to a page-locked host field (HostRegistration) go through other kernels (the host field
// read and written over the bus, the basis change on the device) and must give the staged path's values bit for
// bit: every precision, full and single-parity fields, both bases, with padding. The staged upload of the same
// values is the reference on the device side, the staged download on the host side. The second lattice's site
// counts (192 and 96) leave the kernels' last run of host sites partly filled.
TEST_F(DeviceFieldsTest, RegisteredHostFieldsTransferExactlyAsStagedOnes) {
  const auto same_bits = [](const SpinorField<double>& a, const SpinorField<double>& b) {
    return std::memcmp(a.data().data(), b.data().data(), sizeof(SiteSpinor<double>) * a.sites()) == 0;
  };
  for (const Lattice& lattice : {lattice_, Lattice{2, 6, 4, 4}})
  for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    for (Subset subset : {Subset::kFull, Subset::kOdd}) {
      for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
        const std::string what = std::to_string(lattice.volume()) + " sites " + ToString(precision) + " " +
                                 ToString(subset) + (basis == GammaBasis::kUkqcd ? " UKQCD" : " DeGrand-Rossi");
        SpinorField<double> host(lattice, subset);
        FillGaussian(host, 21);
        SpinorField<double> registered = host;
        const HostRegistration pin = RegisterHostField(registered);
        ASSERT_TRUE(pin.registered()) << what;
        ASSERT_NE(MappedHostPointer(registered.data().data(), sizeof(SiteSpinor<double>) * registered.sites()),
                  nullptr);
        DeviceSpinorField staged(lattice, subset, precision), direct(lattice, subset, precision, 3);
        staged.Upload(host, basis);
        direct.Upload(registered, basis);
        // Both device fields back through the staged path: the direct upload stored the same values.
        EXPECT_TRUE(same_bits(staged.Download(basis), direct.Download(basis))) << what << ": upload";
        // The direct download into the registered field equals the staged download of the same device field.
        registered.data().assign(registered.sites(), SiteSpinor<double>::Constant(Complex<double>(7.0, -7.0)));
        staged.Download(registered, basis);
        EXPECT_TRUE(same_bits(registered, staged.Download(basis))) << what << ": download";
      }
    }
  }
  // Ordinary host memory is not mapped: the staged path.
  SpinorField<double> plain(lattice_);
  EXPECT_EQ(MappedHostPointer(plain.data().data(), sizeof(SiteSpinor<double>) * plain.sites()), nullptr);
}

TEST_F(DeviceFieldsTest, SpinorMisuseIsRefused) {
  EXPECT_THROW(DeviceSpinorField(lattice_, Subset::kEven, Precision::kSingle, -1), std::invalid_argument);
  DeviceSpinorField even(lattice_, Subset::kEven, Precision::kSingle);
  EXPECT_THROW(even.View(Parity::kOdd), std::invalid_argument);
  SpinorField<double> odd_host(lattice_, Subset::kOdd);
  EXPECT_THROW(even.Upload(odd_host), std::invalid_argument);
  SpinorField<double> other_lattice(Lattice(4, 4, 4, 4), Subset::kEven);
  try {
    even.Upload(other_lattice);
    FAIL() << "uploading a field of another lattice succeeded";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(ContainsText(e.what(), "4x4x4x4")) << e.what();
  }
  DeviceSpinorField full(lattice_, Subset::kFull, Precision::kDouble);
  EXPECT_THROW(full.View(), std::invalid_argument);
}

TEST_F(DeviceFieldsTest, Double18GaugeRoundTripIsBitExact) {
  const GaugeField<double> u = RandomLinks(lattice_, 21, false);
  for (int pad : {0, DeviceGaugeField::PaperPad(lattice_)}) {
    const DeviceGaugeField device(u, {Precision::kDouble, Reconstruct::k18, false, pad});
    const GaugeField<double> back = device.Download();
    for (std::size_t k = 0; k < u.links().size(); ++k) ASSERT_EQ(back.links()[k], u.links()[k]) << "link " << k;
  }
}

// Every precision x reconstruction, with and without temporal gauge fixing: every rebuilt link is within
// LinkErrorBound of the host link (oracle_comparison.cc derives it), and the gauge-fixed t-links are
// exactly 1. The bound must also say something: below 1, since |U_ij| <= 1 for any unitary matrix.
TEST_F(DeviceFieldsTest, EveryLinkFormRebuildsWithinItsBound) {
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = RandomLinks(lattice_, 22, gauge_fixed);
    for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
      for (Reconstruct reconstruct : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
        const DeviceGaugeField device(u, {precision, reconstruct, gauge_fixed, 5});
        const GaugeField<double> back = device.Download();
        double max_ratio = 0, max_error = 0;
        for (int site = 0; site < lattice_.volume(); ++site) {
          for (int mu = 0; mu < 4; ++mu) {
            const double error = (back.Link(site, mu) - u.Link(site, mu)).cwiseAbs().maxCoeff();
            if (gauge_fixed && mu == 3 && lattice_.Coords(site)[3] < lattice_.extent(3) - 1) {
              ASSERT_EQ(back.Link(site, mu), ColorMatrix<double>::Identity());
              continue;
            }
            const double bound = LinkErrorBound(u.Link(site, mu), precision, reconstruct);
            ASSERT_LE(error, bound) << ToString(precision) << "/" << ToString(reconstruct) << " link (" << site << ", "
                                    << mu << ")";
            ASSERT_LT(bound, 1.0);
            max_ratio = std::max(max_ratio, bound > 0 ? error / bound : 0.0);
            max_error = std::max(max_error, error);
          }
        }
        std::printf("links %-6s/%-2s%s: max error %.2e, max error / bound %.3f\n", ToString(precision),
                    ToString(reconstruct), gauge_fixed ? " gf" : "   ", max_error, max_ratio);
      }
    }
  }
}

// The 8-parameter form near its singularity: accepted down to N = 2^-10, with the error growing like 1/N
// (the bound follows it), refused below.
TEST_F(DeviceFieldsTest, EightParameterFormNearItsSingularity) {
  auto rotation = [](double n) {  // SU(3), rows a = (sqrt(1 - n^2), n, 0), ...: N = n
    ColorMatrix<double> r = ColorMatrix<double>::Identity();
    const double c = std::sqrt(1 - n * n);
    r(0, 0) = c;
    r(0, 1) = n;
    r(1, 0) = -n;
    r(1, 1) = c;
    return r;
  };
  GaugeField<double> u = RandomLinks(lattice_, 23, false);
  u.Link(17, 2) = rotation(0x1p-9);
  const DeviceGaugeField device(u, {Precision::kSingle, Reconstruct::k8, false, 0});
  const double error = (device.Download().Link(17, 2) - u.Link(17, 2)).cwiseAbs().maxCoeff();
  EXPECT_LE(error, LinkErrorBound(u.Link(17, 2), Precision::kSingle, Reconstruct::k8));
  u.Link(17, 2) = rotation(0x1p-11);
  try {
    DeviceGaugeField refused(u, {Precision::kSingle, Reconstruct::k8, false, 0});
    FAIL() << "a link with N = 2^-11 was accepted for 8 reals";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(ContainsText(e.what(), "singular")) << e.what();
  }
  // The same link is fine with 12 reals.
  EXPECT_NO_THROW(DeviceGaugeField(u, {Precision::kSingle, Reconstruct::k12, false, 0}));
}

// Below N = 2^-10, 8 reals keep the singular form diag(a1, a1^*, 1): unit links come back exactly (the free
// field works with 8 reals), diag(e^{i theta}, e^{-i theta}, 1) within the phase's rounding (LinkErrorBound),
// links among them in the general form as before; a link with N = 0 but another 2x2 block is refused.
TEST_F(DeviceFieldsTest, EightRealsKeepTheSingularFormBelowTheThreshold) {
  auto u1_embedding = [](double theta) {
    ColorMatrix<double> d = ColorMatrix<double>::Zero();
    d(0, 0) = std::polar(1.0, theta);
    d(1, 1) = std::polar(1.0, -theta);
    d(2, 2) = 1.0;
    return d;
  };
  const GaugeField<double> unit(lattice_);
  GaugeField<double> mixed = RandomLinks(lattice_, 25, false);
  const int singular_sites[] = {0, 17, 42, lattice_.volume() - 1};
  for (int k = 0; k < 4; ++k) mixed.Link(singular_sites[k], k) = u1_embedding(0.3 + 0.7 * k);
  mixed.Link(5, 1) = ColorMatrix<double>::Identity();
  for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    const DeviceGaugeField free_field(unit, {precision, Reconstruct::k8, false, 0});
    const GaugeField<double> back = free_field.Download();
    for (int site = 0; site < lattice_.volume(); ++site) {
      for (int mu = 0; mu < kDims; ++mu) {
        // Every stored real is an exact 0 and the phase 0; the accurate sincos gives cos 0 = 1, sin 0 = 0
        // exactly, half's __sincosf within its absolute error 2^-21.41.
        const double error = (back.Link(site, mu) - ColorMatrix<double>::Identity()).cwiseAbs().maxCoeff();
        if (precision == Precision::kHalf) {
          ASSERT_LE(error, std::pow(2.0, -21.41)) << "site " << site << " mu " << mu;
        } else {
          ASSERT_EQ(error, 0.0) << ToString(precision) << " site " << site << " mu " << mu;
        }
      }
    }
    const DeviceGaugeField device(mixed, {precision, Reconstruct::k8, false, 0});
    const GaugeField<double> mixed_back = device.Download();
    double max_ratio = 0;
    for (int site = 0; site < lattice_.volume(); ++site) {
      for (int mu = 0; mu < kDims; ++mu) {
        const double error = (mixed_back.Link(site, mu) - mixed.Link(site, mu)).cwiseAbs().maxCoeff();
        const double bound = LinkErrorBound(mixed.Link(site, mu), precision, Reconstruct::k8);
        EXPECT_LE(error, bound) << ToString(precision) << " site " << site << " mu " << mu;
        max_ratio = std::max(max_ratio, error / bound);
      }
    }
    std::printf("singular-form links %-6s: max error / bound %.3f\n", ToString(precision), max_ratio);
  }
  GaugeField<double> lost = RandomLinks(lattice_, 27, false);
  ColorMatrix<double> block = ColorMatrix<double>::Identity();  // N = 0, lower-right block diag(i, -i)
  block(1, 1) = Complex<double>(0, 1);
  block(2, 2) = Complex<double>(0, -1);
  lost.Link(9, 3) = block;
  try {
    DeviceGaugeField refused(lost, {Precision::kDouble, Reconstruct::k8, false, 0});
    FAIL() << "a link with N = 0 that is not diag(a1, a1^*, 1) was accepted for 8 reals";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(ContainsText(e.what(), "diag(a1, a1^*, 1)")) << e.what();
  }
}

TEST_F(DeviceFieldsTest, GaugeMisuseIsRefusedWithTheReason) {
  auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  const GaugeField<double> random = RandomLinks(lattice_, 24, false);
  const GaugeField<double> integer = testing::IntegerLinks(lattice_, 25, false);
  const GaugeField<double> unit(lattice_);
  GaugeField<double> lost_block = random;  // N = 0 with lower-right block diag(-1, -1): not diag(a1, a1^*, 1)
  lost_block.Link(3, 1) = ColorMatrix<double>::Identity();
  lost_block.Link(3, 1)(1, 1) = -1.0;
  lost_block.Link(3, 1)(2, 2) = -1.0;
  EXPECT_TRUE(ContainsText(message([&] { DeviceGaugeField(integer, {Precision::kDouble, Reconstruct::k12, false, 0}); }),
                           "SU(3)"));
  EXPECT_TRUE(ContainsText(
      message([&] { DeviceGaugeField(lost_block, {Precision::kDouble, Reconstruct::k8, false, 0}); }), "singular"));
  EXPECT_TRUE(ContainsText(message([&] { DeviceGaugeField(random, {Precision::kSingle, Reconstruct::k12, true, 0}); }),
                           "temporally gauge fixed"));
  EXPECT_TRUE(ContainsText(message([&] { DeviceGaugeField(integer, {Precision::kHalf, Reconstruct::k18, false, 0}); }),
                           "[-1, 1]"));
  EXPECT_TRUE(ContainsText(message([&] { DeviceGaugeField(random, {Precision::kHalf, Reconstruct::k18, false, -2}); }),
                           "pad"));
  // What is accepted: integer links with 18 reals in double, unit links with 12, and with 8 (the singular
  // form, EightRealsKeepTheSingularFormBelowTheThreshold).
  EXPECT_NO_THROW(DeviceGaugeField(integer, {Precision::kDouble, Reconstruct::k18, false, 0}));
  EXPECT_NO_THROW(DeviceGaugeField(unit, {Precision::kHalf, Reconstruct::k12, true, 0}));
  EXPECT_NO_THROW(DeviceGaugeField(unit, {Precision::kDouble, Reconstruct::k8, false, 0}));
}

}  // namespace
}  // namespace lqcd::gpu
