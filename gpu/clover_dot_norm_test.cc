// clover_dot_norm_test: the clover Dslash with BiCGstab's dot products fused into its epilogue (wilson_dslash.h's
// ApplyCloverDslashDotNorm, multi_rhs_dslash.h's ApplyCloverDslashDotNormBlock) and the clover Schur operators'
// ApplyDotNorm / ApplyDotNormBlock built on them (gpu_clover.h):
//
//   - the stored output is the plain clover launch's bit for bit (the same kernel code up to the store; for the
//     multi-RHS kernel with the same pinned mapping), for both fused forms (a C x + b D in, a x + b C D in), every
//     precision x reconstruction x temporal gauge fixing;
//   - the fused (out, w) and |out|^2 are the sums of the STORED output: the host sums the same products of the
//     downloaded values (in the UKQCD basis Download returns exactly what the device stores and decodes) in
//     another order, so with n = 24 terms per site and sum and S the sum of the terms' magnitudes each side is
//     within (n V/2 + 1) u_d S of the exact sum and the two within twice that (as schur_operator_test's Wilson
//     case); w a second field and w = x (BiCGstab's (t, s) has w = the operator's input);
//   - GpuCloverSchur::ApplyDotNorm is Apply bit for bit with those sums, both forms, both parities, fused and
//     with the fusion switched off; ApplyDotNormBlock on one right-hand side is ApplyDotNorm bit for bit (sums
//     included), on 5 and 17 each right-hand side's sums are those of its stored output;
//   - GpuCloverSchur::ApplyDaggerAxpyNorm (CG's r += c A^dag p with A^dag p never stored, both forms) against
//     ApplyDagger followed by blas::AxpyNorm: bit for bit in double and single, within the derived bound in half;
//   - bad arguments are refused with std::invalid_argument before any launch.
// 432 sites per parity (6^3 x 4), so the last group of 32 sites is partial. Every test skips itself without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/blas.h"
#include "gpu/device.h"
#include "gpu/device_block_testing.h"
#include "gpu/device_buffer.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/multi_rhs_dslash.h"
#include "gpu/oracle_comparison.h"
#include "gpu/tune.h"
#include "gpu/wilson_dslash.h"
#include "reference/clover.h"
#include "reference/spinor_field.h"
#include "solvers/precision.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using testing::ConstPointers;
using testing::DeviceBlock;
using testing::DifferingSites;
using testing::Pointers;

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
constexpr DslashEpilogue kFusedForms[] = {DslashEpilogue::kCloverXpay, DslashEpilogue::kXpayClover};
constexpr double kUd = 0x1p-53;
constexpr double kA = 1.0, kB = -0.25;  // the Schur operators' coefficients

CloverParams Params() {
  CloverParams p;
  p.mass = 1.0;
  p.c_sw = 1.0;
  p.basis = GammaBasis::kDeGrandRossi;
  p.trace = CloverTrace::kTraceless;
  return p;
}

class CloverDotNormTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    LaunchTuner::Instance().ClearForcedBlockSize();
  }
  const Lattice lattice_{6, 6, 6, 4};
};

// The host's (o, v), |o|^2 of two downloaded fields and the bounds the fused sums must meet (file comment).
struct HostSums {
  std::complex<double> dot = 0;
  double norm2 = 0, dot_bound = 0, norm_bound = 0;
};
HostSums SumsOf(const SpinorField<double>& o, const SpinorField<double>& v) {
  HostSums h;
  double dot_terms = 0;
  for (int i = 0; i < o.sites(); ++i) {
    for (int k = 0; k < 12; ++k) {
      h.dot += std::conj(o[i](k)) * v[i](k);
      h.norm2 += std::norm(o[i](k));
      dot_terms += (std::abs(o[i](k).real()) + std::abs(o[i](k).imag())) *
                   (std::abs(v[i](k).real()) + std::abs(v[i](k).imag()));
    }
  }
  const double n = 24.0 * o.sites();
  h.dot_bound = 2 * (n + 1) * kUd * dot_terms;
  h.norm_bound = 2 * (n + 1) * kUd * h.norm2;
  return h;
}
void ExpectSums(const HostSums& h, std::complex<double> dot, double norm2) {
  EXPECT_LE(std::abs(dot.real() - h.dot.real()), h.dot_bound) << "Re (out, w)";
  EXPECT_LE(std::abs(dot.imag() - h.dot.imag()), h.dot_bound) << "Im (out, w)";
  EXPECT_LE(std::abs(norm2 - h.norm2), h.norm_bound) << "|out|^2";
}
void ExpectSums(const HostSums& h, const blas::DeferredDotAndNorm& d) { ExpectSums(h, d.dot.Host(), d.norm2.Host()); }

// The clover view of a fused form on the output parity: T for a C x + b D in (the Schur complement), T^{-1} for
// a x + b C D in (the unit-diagonal form).
CloverView ViewFor(const DeviceCloverField& clover, DslashEpilogue kind, Parity parity) {
  return clover.View(parity, /*inverse=*/kind == DslashEpilogue::kXpayClover);
}

TEST_F(CloverDotNormTest, FusedSumsAreThoseOfThePlainLaunchesStoredOutput) {
  const Parity out_parity = Parity::kEven;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 611, gauge_fixed);
    const CloverField<double> clover(u, Params());
    SpinorField<double> in(lattice_, Subset::kOdd), x(lattice_, Subset::kEven), w(lattice_, Subset::kEven);
    FillGaussian(in, 612);
    FillGaussian(x, 613);
    FillGaussian(w, 614);
    for (Precision precision : kPrecisions) {
      const DeviceCloverField clover_d(clover, CloverLayout{precision, 0});
      DeviceSpinorField in_d(lattice_, Subset::kOdd, precision), x_d(lattice_, Subset::kEven, precision);
      DeviceSpinorField w_d(lattice_, Subset::kEven, precision), plain(lattice_, Subset::kEven, precision);
      DeviceSpinorField fused(lattice_, Subset::kEven, precision);
      in_d.Upload(in);
      x_d.Upload(x);
      w_d.Upload(w);
      const int groups = (lattice_.half_volume() + kDotNormGroup - 1) / kDotNormGroup;
      DeviceBuffer partials(sizeof(double) * 3 * groups);
      for (Reconstruct reconstruct : kReconstructions) {
        const DeviceGaugeField gauge(u, {precision, reconstruct, gauge_fixed, 0});
        for (DslashEpilogue kind : kFusedForms) {
          SCOPED_TRACE(std::string(ToString(precision)) + "/" + ToString(reconstruct) + (gauge_fixed ? "/gf/" : "/") +
                       ToString(kind));
          CloverEpilogue e;
          e.kind = kind;
          e.clover = ViewFor(clover_d, kind, out_parity);
          e.x = x_d.View();
          e.a = kA;
          e.b = kB;
          plain.FillBytes(0xff);
          ApplyCloverDslash(plain.View(), gauge, in_d.View(), Dagger::kNo, e);
          const SpinorField<double> o = plain.Download(GammaBasis::kUkqcd);
          for (const DeviceSpinorField* second : {&w_d, &x_d}) {
            fused.FillBytes(0xff);
            partials.Fill(0xff);
            double* p = static_cast<double*>(partials.data());
            ApplyCloverDslashDotNorm(fused.View(), gauge, in_d.View(), e, second->View(), p);
            const SpinorField<double> f = fused.Download(GammaBasis::kUkqcd);
            EXPECT_EQ(DifferingSites(f, o), 0);
            ExpectSums(SumsOf(f, second->Download(GammaBasis::kUkqcd)), blas::SumDotNormPartials(p, groups));
          }
        }
      }
    }
  }
}

// The multi-RHS kernel: 17 right-hand sides (a launch of 16, then the single-RHS kernel for the 17th) with the
// tuner's mapping, each right-hand side's sums those of its stored output; then 3 with each compiled mapping
// pinned (1 and 2 per thread), the outputs the plain block call's with the same mapping bit for bit (different
// mappings may contract products into fma differently, docs/multi_rhs.md) and the partials, added on the host,
// within the same bounds.
TEST_F(CloverDotNormTest, BlockSumsAreThoseOfTheStoredOutputsForEveryMapping) {
  constexpr int kRhs = 17;
  const Parity out_parity = Parity::kOdd;
  const int groups = (lattice_.half_volume() + kDotNormGroup - 1) / kDotNormGroup;
  DeviceBuffer buffer(sizeof(double) * 3 * groups * kRhs);
  double* partials = static_cast<double*>(buffer.data());
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 621, gauge_fixed);
    const CloverField<double> clover(u, Params());
    std::vector<SpinorField<double>> in, x, w;
    for (int j = 0; j < kRhs; ++j) {
      in.emplace_back(lattice_, Subset::kEven);
      x.emplace_back(lattice_, Subset::kOdd);
      w.emplace_back(lattice_, Subset::kOdd);
      FillGaussian(in.back(), 700 + j);
      FillGaussian(x.back(), 730 + j);
      FillGaussian(w.back(), 760 + j);
    }
    for (Precision precision : kPrecisions) {
      const DeviceCloverField clover_d(clover, CloverLayout{precision, 0});
      DeviceBlock in_d(lattice_, Subset::kEven, precision, kRhs, 8), x_d(lattice_, Subset::kOdd, precision, kRhs);
      DeviceBlock w_d(lattice_, Subset::kOdd, precision, kRhs), out_d(lattice_, Subset::kOdd, precision, kRhs, 4);
      DeviceBlock plain_d(lattice_, Subset::kOdd, precision, 3);
      for (int j = 0; j < kRhs; ++j) {
        in_d.fields[j]->Upload(in[j]);
        x_d.fields[j]->Upload(x[j]);
        w_d.fields[j]->Upload(w[j]);
      }
      for (Reconstruct reconstruct : kReconstructions) {
        const DeviceGaugeField gauge(u, {precision, reconstruct, gauge_fixed, 0});
        for (DslashEpilogue kind : kFusedForms) {
          SCOPED_TRACE(std::string(ToString(precision)) + "/" + ToString(reconstruct) + (gauge_fixed ? "/gf/" : "/") +
                       ToString(kind));
          CloverBlockEpilogue e;
          e.kind = kind;
          e.clover = ViewFor(clover_d, kind, out_parity);
          e.x = x_d.ConstViews();
          e.a = kA;
          e.b = kB;
          for (const bool second_is_x : {false, true}) {
            const std::vector<ConstSpinorView> second = second_is_x ? x_d.ConstViews() : w_d.ConstViews();
            ApplyCloverDslashDotNormBlock(out_d.Views(), gauge, in_d.ConstViews(), e, second, partials);
            std::vector<blas::DeferredDotAndNorm> sums;
            for (int j = 0; j < kRhs; ++j) sums.push_back(blas::SumDotNormPartials(partials + 3 * groups * j, groups));
            for (int j = 0; j < kRhs; ++j) {
              SCOPED_TRACE("tuned, rhs " + std::to_string(j) + (second_is_x ? ", w = x" : ", w a second field"));
              const DeviceBlock& v = second_is_x ? x_d : w_d;
              ExpectSums(SumsOf(out_d.fields[j]->Download(GammaBasis::kUkqcd),
                                v.fields[j]->Download(GammaBasis::kUkqcd)),
                         sums[j]);
            }
          }
          const std::vector<SpinorView> out_all = out_d.Views();
          const std::vector<ConstSpinorView> in_all = in_d.ConstViews(), w_all = w_d.ConstViews();
          const std::vector<SpinorView> out3(out_all.begin(), out_all.begin() + 3);
          const std::vector<ConstSpinorView> in3(in_all.begin(), in_all.begin() + 3);
          const std::vector<ConstSpinorView> w3(w_all.begin(), w_all.begin() + 3);
          CloverBlockEpilogue e3 = e;
          e3.x.resize(3);
          for (const int per_thread : {1, 2}) {
            SCOPED_TRACE(std::to_string(per_thread) + " right-hand sides per thread");
            buffer.Fill(0xff);
            ApplyCloverDslashDotNormBlock(out3, gauge, in3, e3, w3, partials, FermionBoundary::AntiperiodicTime(),
                                          MultiRhsMapping{per_thread});
            ApplyCloverDslashBlock(plain_d.Views(), gauge, in3, Dagger::kNo, e3, FermionBoundary::AntiperiodicTime(),
                                   MultiRhsMapping{per_thread});
            std::vector<double> host(3 * groups * 3);
            buffer.CopyToHost(host.data(), sizeof(double) * host.size());
            for (int j = 0; j < 3; ++j) {
              const SpinorField<double> f = out_d.fields[j]->Download(GammaBasis::kUkqcd);
              EXPECT_EQ(DifferingSites(f, plain_d.fields[j]->Download(GammaBasis::kUkqcd)), 0) << "rhs " << j;
              long double s[3] = {0, 0, 0};
              for (int g = 0; g < groups; ++g) {
                for (int k = 0; k < 3; ++k) s[k] += host[3 * (groups * j + g) + k];
              }
              ExpectSums(SumsOf(f, w_d.fields[j]->Download(GammaBasis::kUkqcd)),
                         std::complex<double>(static_cast<double>(s[0]), static_cast<double>(s[1])),
                         static_cast<double>(s[2]));
            }
          }
        }
      }
    }
  }
}

// GpuCloverSchur<P>'s fused forms against Apply (file comment), both forms and parities, 12 reals with temporal
// gauge fixing and 18 without.
template <typename P>
void CheckSchurDotNorm(const Lattice& lat) {
  for (const bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lat, 631, gauge_fixed);
    const CloverField<double> clover(u, Params());
    const auto gauge = UploadGauge<P>(u, {gauge_fixed ? Reconstruct::k12 : Reconstruct::k18, gauge_fixed, 0});
    const GpuCloverTerm term = UploadClover<P>(clover);
    for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
      for (Parity parity : {Parity::kEven, Parity::kOdd}) {
        GpuCloverSchur<P> schur(gauge, term, form, parity);
        SCOPED_TRACE(schur.Name());
        std::vector<GpuSpinorField<P>> in, w;
        for (int j = 0; j < 17; ++j) {
          SpinorField<double> h(lat, SubsetOf(parity));
          FillGaussian(h, 640 + j);
          in.push_back(schur.NewField());
          in.back().Upload(h);
          FillGaussian(h, 680 + j);
          w.push_back(schur.NewField());
          w.back().Upload(h);
        }
        GpuSpinorField<P> plain = schur.NewField(), fused = schur.NewField();
        schur.Apply(plain, in[0]);
        const SpinorField<double> o = plain.Download(GammaBasis::kUkqcd);
        for (const bool on : {true, false}) {
          SCOPED_TRACE(on ? "fused" : "fusion off");
          schur.set_fused_dot_products(on);
          for (const GpuSpinorField<P>* second : {&w[0], &in[0]}) {
            const blas::DeferredDotAndNorm d = schur.ApplyDotNorm(fused, in[0], *second);
            const SpinorField<double> f = fused.Download(GammaBasis::kUkqcd);
            EXPECT_EQ(DifferingSites(f, o), 0);
            ExpectSums(SumsOf(f, second->Download(GammaBasis::kUkqcd)), d);
          }
        }
        schur.set_fused_dot_products(true);
        // One right-hand side: ApplyDotNorm's launches, so its bits and sums.
        {
          std::vector<GpuSpinorField<P>> out1;
          out1.push_back(schur.NewField());
          const std::vector<blas::DeferredDotAndNorm> b =
              schur.ApplyDotNormBlock(Pointers(out1), {&in[1]}, {&w[1]});
          const blas::DeferredDotAndNorm d = schur.ApplyDotNorm(fused, in[1], w[1]);
          EXPECT_EQ(DifferingSites(out1[0].Download(GammaBasis::kUkqcd), fused.Download(GammaBasis::kUkqcd)), 0);
          EXPECT_EQ(b[0].dot.Host(), d.dot.Host());
          EXPECT_EQ(b[0].norm2.Host(), d.norm2.Host());
        }
        for (const int n : {5, 17}) {
          std::vector<GpuSpinorField<P>> out;
          for (int j = 0; j < n; ++j) out.push_back(schur.NewField());
          const std::vector<const GpuSpinorField<P>*> all_in = ConstPointers(in), all_w = ConstPointers(w);
          const std::vector<const GpuSpinorField<P>*> in_n(all_in.begin(), all_in.begin() + n);
          const std::vector<const GpuSpinorField<P>*> w_n(all_w.begin(), all_w.begin() + n);
          const std::vector<blas::DeferredDotAndNorm> sums = schur.ApplyDotNormBlock(Pointers(out), in_n, w_n);
          for (int j = 0; j < n; ++j) {
            SCOPED_TRACE("block of " + std::to_string(n) + ", rhs " + std::to_string(j));
            ExpectSums(SumsOf(out[j].Download(GammaBasis::kUkqcd), w[j].Download(GammaBasis::kUkqcd)), sums[j]);
          }
        }
      }
    }
  }
}

TEST_F(CloverDotNormTest, SchurApplyDotNormIsApplyWithTheSumsOfItsOutput) {
  CheckSchurDotNorm<double>(lattice_);
  CheckSchurDotNorm<float>(lattice_);
  CheckSchurDotNorm<Half>(lattice_);
}

// GpuCloverSchur<P>::ApplyDaggerAxpyNorm: r = r + c A^dag in with A^dag in never stored, both forms (the complement
// through the clover-xpay-axpynorm epilogue, the unit-diagonal form through the Wilson xpay-axpynorm one), both
// parities. Against the separate path (ApplyDagger into q, then blas::AxpyNorm(c, q, r)): in double and single the
// stored q is the computed q and both form r + c q as one fused multiply-add in the same Real, so r is bit for bit
// the same; in half within testing::RealsBeyondHalfAxpyNormBound's bound (oracle_comparison.h). The fused |r|^2 is
// the sum of the stored r within the bound of the tests above. With the fusion off the result is the separate
// path's bit for bit.
template <typename P>
void CheckSchurDaggerAxpyNorm(const Lattice& lat) {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  const double c = -0.37;
  const GaugeField<double> u = testing::RandomLinks(lat, 661, true);
  const CloverField<double> clover(u, Params());
  const auto gauge = UploadGauge<P>(u, {Reconstruct::k12, true, 0});
  const GpuCloverTerm term = UploadClover<P>(clover);
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      GpuCloverSchur<P> schur(gauge, term, form, parity);
      SCOPED_TRACE(schur.Name());
      SpinorField<double> h(lat, SubsetOf(parity));
      GpuSpinorField<P> in = schur.NewField(), q = schur.NewField();
      GpuSpinorField<P> separate = schur.NewField(), fused = schur.NewField(), off = schur.NewField();
      FillGaussian(h, 662);
      in.Upload(h);
      FillGaussian(h, 663);
      separate.Upload(h);
      fused.Upload(h);
      off.Upload(h);
      const SpinorField<double> r_start = fused.Download(GammaBasis::kUkqcd);
      schur.ApplyDagger(q, in);
      blas::AxpyNorm(c, q.device(), separate.device());
      const DeviceReal norm2 = schur.ApplyDaggerAxpyNorm(fused, DeviceReal(c), in);
      schur.set_fused_dot_products(false);
      const DeviceReal off_norm2 = schur.ApplyDaggerAxpyNorm(off, DeviceReal(c), in);
      schur.set_fused_dot_products(true);
      const SpinorField<double> f = fused.Download(GammaBasis::kUkqcd), sep = separate.Download(GammaBasis::kUkqcd);
      EXPECT_EQ(DifferingSites(off.Download(GammaBasis::kUkqcd), sep), 0) << "fusion off";
      if (precision == Precision::kHalf) {
        EXPECT_EQ(testing::RealsBeyondHalfAxpyNormBound(f, sep, q.Download(GammaBasis::kUkqcd), r_start, c), 0);
      } else {
        EXPECT_EQ(DifferingSites(f, sep), 0);
      }
      const HostSums stored = SumsOf(f, f);
      EXPECT_LE(std::abs(norm2.Host() - stored.norm2), stored.norm_bound);
      const HostSums stored_off = SumsOf(sep, sep);
      EXPECT_LE(std::abs(off_norm2.Host() - stored_off.norm2), stored_off.norm_bound);
    }
  }
}

TEST_F(CloverDotNormTest, SchurDaggerAxpyNormEqualsTheSeparateUpdate) {
  CheckSchurDaggerAxpyNorm<double>(lattice_);
  CheckSchurDaggerAxpyNorm<float>(lattice_);
  CheckSchurDaggerAxpyNorm<Half>(lattice_);
}

TEST_F(CloverDotNormTest, BadArgumentsAreRefused) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 651, false);
  const CloverField<double> clover(u, Params());
  const Precision precision = Precision::kSingle;
  const DeviceGaugeField gauge(u, {precision, Reconstruct::k12, false, 0});
  const DeviceCloverField clover_d(clover, CloverLayout{precision, 0});
  DeviceSpinorField in(lattice_, Subset::kOdd, precision), x(lattice_, Subset::kEven, precision);
  DeviceSpinorField out(lattice_, Subset::kEven, precision), odd(lattice_, Subset::kOdd, precision);
  DeviceBuffer buffer(sizeof(double) * 3 * lattice_.half_volume());
  double* p = static_cast<double*>(buffer.data());
  CloverEpilogue e;
  e.kind = DslashEpilogue::kCloverXpay;
  e.clover = clover_d.View(Parity::kEven, false);
  e.x = x.View();
  e.a = kA;
  e.b = kB;
  out.FillBytes(0x5a);
  const SpinorField<double> before = out.Download(GammaBasis::kUkqcd);
  auto expect_refused = [&](const char* what, auto&& call) {
    try {
      call();
      ADD_FAILURE() << what << ": not refused";
    } catch (const std::invalid_argument& error) {
      std::printf("%-34s %s\n", what, error.what());
    }
  };
  expect_refused("w is out", [&] { ApplyCloverDslashDotNorm(out.View(), gauge, in.View(), e, out.View(), p); });
  expect_refused("w on the other parity",
                 [&] { ApplyCloverDslashDotNorm(out.View(), gauge, in.View(), e, odd.View(), p); });
  expect_refused("no partials", [&] { ApplyCloverDslashDotNorm(out.View(), gauge, in.View(), e, x.View(), nullptr); });
  CloverEpilogue plain_clover = e;
  plain_clover.kind = DslashEpilogue::kClover;
  expect_refused("clover epilogue without x",
                 [&] { ApplyCloverDslashDotNorm(out.View(), gauge, in.View(), plain_clover, x.View(), p); });
  CloverEpilogue wilson = e;
  wilson.kind = DslashEpilogue::kXpay;
  expect_refused("not a clover epilogue",
                 [&] { ApplyCloverDslashDotNorm(out.View(), gauge, in.View(), wilson, x.View(), p); });

  CloverBlockEpilogue b;
  b.kind = DslashEpilogue::kCloverXpay;
  b.clover = e.clover;
  b.x = {x.View()};
  b.a = kA;
  b.b = kB;
  const std::vector<SpinorView> outs = {out.View()};
  const std::vector<ConstSpinorView> ins = {in.View()};
  expect_refused("block: two w for one input",
                 [&] { ApplyCloverDslashDotNormBlock(outs, gauge, ins, b, {x.View(), x.View()}, p); });
  expect_refused("block: w is an output", [&] { ApplyCloverDslashDotNormBlock(outs, gauge, ins, b, {out.View()}, p); });
  expect_refused("block: no partials",
                 [&] { ApplyCloverDslashDotNormBlock(outs, gauge, ins, b, {x.View()}, nullptr); });
  CloverBlockEpilogue b_clover = b;
  b_clover.kind = DslashEpilogue::kClover;
  b_clover.x.clear();
  expect_refused("block: clover epilogue without x",
                 [&] { ApplyCloverDslashDotNormBlock(outs, gauge, ins, b_clover, {x.View()}, p); });
  const double* slot = p;  // any device memory: the refusals come before any launch
  CloverEpilogue xpay_clover = e;
  xpay_clover.kind = DslashEpilogue::kXpayClover;
  expect_refused("axpy-norm: xpay-clover",
                 [&] { ApplyCloverDslashDaggerAxpyNorm(out.View(), gauge, in.View(), xpay_clover, slot, p); });
  expect_refused("axpy-norm: no coefficient",
                 [&] { ApplyCloverDslashDaggerAxpyNorm(out.View(), gauge, in.View(), e, nullptr, p); });
  expect_refused("axpy-norm: no partials",
                 [&] { ApplyCloverDslashDaggerAxpyNorm(out.View(), gauge, in.View(), e, slot, nullptr); });
  EXPECT_EQ(DifferingSites(out.Download(GammaBasis::kUkqcd), before), 0) << "a refused call wrote its output";

  const auto links = UploadGauge<float>(u, {Reconstruct::k12, false, 0});
  const GpuCloverSchur<float> schur(links, UploadClover<float>(clover), CloverSchurForm::kComplement);
  GpuSpinorField<float> a = schur.NewField(), c = schur.NewField();
  GpuSpinorField<float> full(lattice_, Subset::kFull);
  EXPECT_THROW(schur.ApplyDotNorm(a, c, a), std::invalid_argument);     // w is out
  EXPECT_THROW(schur.ApplyDotNorm(a, a, c), std::invalid_argument);     // out is in
  EXPECT_THROW(schur.ApplyDotNorm(a, c, full), std::invalid_argument);  // w on the full lattice
  EXPECT_THROW(schur.ApplyDaggerAxpyNorm(a, DeviceReal(0.5), a), std::invalid_argument);     // r is in
  EXPECT_THROW(schur.ApplyDaggerAxpyNorm(full, DeviceReal(0.5), c), std::invalid_argument);  // r on the full lattice
  std::vector<GpuSpinorField<float>> block;
  block.push_back(schur.NewField());
  EXPECT_THROW(schur.ApplyDotNormBlock(Pointers(block), {&c}, {&c, &c}), std::invalid_argument);
  EXPECT_THROW(schur.ApplyDotNormBlock(Pointers(block), {&c}, {&block[0]}), std::invalid_argument);
  EXPECT_THROW(schur.ApplyDotNormBlock(Pointers(block), {&c}, {nullptr}), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
