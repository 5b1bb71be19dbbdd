// schur_operator_test: the device M_pp = 1 - kappa^2 D_{p,p'} D_{p',p} (two Dslash launches, the xpay fused
// into the second) and its dagger equal the oracle's ApplySchur for every precision x reconstruction x
// temporal gauge fixing, both parities, within the bound obtained by chaining the Dslash bounds of
// oracle_comparison.h; the normal operator too; in place equals out of place; the block application
// (multi-RHS Dslash) too.
#include "gpu/schur_operator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/blas.h"
#include "gpu/device_buffer.h"
#include "gpu/device.h"
#include "gpu/multi_rhs_dslash.h"
#include "gpu/oracle_comparison.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"

namespace lqcd::gpu {
namespace {

using testing::Comparison;
using testing::DslashBoundInputs;

constexpr double kKappa = 0.124;

class SchurOperatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  const Lattice lattice_{6, 4, 10, 8};
};

// Bound on the device M_pp (or M_pp^dag) applied to a field with magnitudes/errors (in_magnitude, in_error),
// given the oracle's intermediate t = D_{p',p} in and result; returns the per-site UKQCD bound on the result.
std::vector<double> SchurBound(const Lattice& lat, Precision precision, Parity parity,
                               const std::vector<double>& link_error, const std::vector<double>& in_magnitude,
                               const std::vector<double>& in_error, const SpinorField<double>& t_oracle,
                               const SpinorField<double>& dt_oracle, const SpinorField<double>& out_oracle) {
  // t = D in on p' (stored in the field's precision).
  DslashBoundInputs first;
  first.precision = precision;
  first.out_parity = Opposite(parity);
  first.in_magnitude = in_magnitude;
  first.in_error = in_error;
  first.link_error = link_error;
  first.d_magnitude = testing::Magnitudes(t_oracle);
  first.out_magnitude = first.d_magnitude;
  const std::vector<double> t_error = testing::DslashErrorBound(lat, first);
  // out = in + (-kappa^2) D t on p.
  DslashBoundInputs second;
  second.precision = precision;
  second.out_parity = parity;
  second.in_magnitude = first.d_magnitude;
  second.in_error = t_error;
  second.link_error = link_error;
  second.d_magnitude = testing::Magnitudes(dt_oracle);
  second.out_magnitude = testing::Magnitudes(out_oracle);
  second.xpay = true;
  second.a = 1;
  second.b = -kKappa * kKappa;
  second.x_magnitude = in_magnitude;
  second.x_error = in_error;
  return testing::DslashErrorBound(lat, second);
}

struct OracleSchur {
  SpinorField<double> t, dt, out;  // D in, D D in, in - kappa^2 D D in
};

OracleSchur ApplyOracleSchur(const GaugeField<double>& u, const SpinorField<double>& in, Dagger dagger) {
  const WilsonParams params = WilsonParams::FromKappa(kKappa);
  OracleSchur r{SpinorField<double>(in.lattice(), SubsetOf(Opposite(in.parity()))),
                SpinorField<double>(in.lattice(), in.subset()), SpinorField<double>(in.lattice(), in.subset())};
  ApplyHoppingParity(r.t, u, in, params.basis, params.boundary, dagger);
  ApplyHoppingParity(r.dt, u, r.t, params.basis, params.boundary, dagger);
  ApplySchur(r.out, u, in, params, dagger);
  return r;
}

// 2 gauge fixings x 3 precisions x 3 reconstructions x 2 daggers x 2 parities = 72 cases.
TEST_F(SchurOperatorTest, EveryVariantMatchesTheOracle) {
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 501, gauge_fixed);
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      SpinorField<double> in(lattice_, SubsetOf(parity));
      FillGaussian(in, 502);
      const std::vector<double> in_magnitude = testing::Magnitudes(in);
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        const OracleSchur oracle = ApplyOracleSchur(u, in, dagger);
        for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
          for (Reconstruct reconstruct : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
            const GaugeLayout layout{precision, reconstruct, gauge_fixed, 0};
            const DeviceGaugeField gauge(u, layout);
            const DeviceSchurOperator m(gauge, kKappa, parity);
            DeviceSpinorField in_device(lattice_, SubsetOf(parity), precision);
            DeviceSpinorField out_device(lattice_, SubsetOf(parity), precision);
            in_device.Upload(in);
            out_device.FillBytes(0xff);
            m.Apply(out_device.View(), in_device.View(), dagger);
            const std::vector<double> bound =
                SchurBound(lattice_, precision, parity, testing::LinkErrorBounds(u, layout), in_magnitude,
                           testing::UploadErrors(in, precision), oracle.t, oracle.dt, oracle.out);
            const Comparison r =
                testing::CompareWithBound(out_device.Download(), oracle.out, bound, testing::Magnitudes(oracle.out));
            DslashVariant v{precision, reconstruct, gauge_fixed, dagger, false};
            std::printf("M_ee %-22s %-4s max |error| %.2e  max error/bound %.3f\n", v.Name().c_str(),
                        ToString(parity), r.max_error, r.max_ratio);
            EXPECT_EQ(r.violations, 0) << v.Name() << " " << ToString(parity) << ": " << r.first_violation;
          }
        }
      }
    }
  }
}

// The block application (two multi-RHS Dslash calls) on 3 right-hand sides: each against the oracle within
// the same chained bound, for every precision x reconstruction, both daggers; in place equals out of place
// (the same kernels on the same numbers: bit for bit).
TEST_F(SchurOperatorTest, BlockApplicationMatchesTheOracle) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 511, false);
  const Parity parity = Parity::kOdd;
  const int n = 3;
  std::vector<SpinorField<double>> in;
  for (int j = 0; j < n; ++j) {
    in.emplace_back(lattice_, SubsetOf(parity));
    FillGaussian(in.back(), 512 + j);
  }
  for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
    std::vector<OracleSchur> oracle;
    for (int j = 0; j < n; ++j) oracle.push_back(ApplyOracleSchur(u, in[j], dagger));
    for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
      for (Reconstruct reconstruct : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
        const GaugeLayout layout{precision, reconstruct, false, 0};
        const DeviceGaugeField gauge(u, layout);
        const DeviceSchurOperator m(gauge, kKappa, parity);
        std::vector<std::unique_ptr<DeviceSpinorField>> in_device, out_device;
        std::vector<SpinorView> in_views, out_views;
        std::vector<ConstSpinorView> in_const;
        for (int j = 0; j < n; ++j) {
          in_device.push_back(std::make_unique<DeviceSpinorField>(lattice_, SubsetOf(parity), precision));
          out_device.push_back(std::make_unique<DeviceSpinorField>(lattice_, SubsetOf(parity), precision));
          in_device.back()->Upload(in[j]);
          out_device.back()->FillBytes(0xff);
          in_views.push_back(in_device.back()->View());
          in_const.push_back(in_views.back());
          out_views.push_back(out_device.back()->View());
        }
        m.ApplyBlock(out_views, in_const, dagger);
        const DslashVariant v{precision, reconstruct, false, dagger, false};
        for (int j = 0; j < n; ++j) {
          const std::vector<double> bound =
              SchurBound(lattice_, precision, parity, testing::LinkErrorBounds(u, layout), testing::Magnitudes(in[j]),
                         testing::UploadErrors(in[j], precision), oracle[j].t, oracle[j].dt, oracle[j].out);
          const Comparison r = testing::CompareWithBound(out_device[j]->Download(), oracle[j].out, bound,
                                                         testing::Magnitudes(oracle[j].out));
          EXPECT_EQ(r.violations, 0) << v.Name() << " rhs " << j << ": " << r.first_violation;
        }
        m.ApplyBlock(in_views, in_const, dagger);  // in place
        for (int j = 0; j < n; ++j) {
          const SpinorField<double> a = in_device[j]->Download(), b = out_device[j]->Download();
          int mismatches = 0;
          for (int i = 0; i < a.sites(); ++i) mismatches += a[i] == b[i] ? 0 : 1;
          EXPECT_EQ(mismatches, 0) << v.Name() << " in place, rhs " << j;
        }
      }
    }
  }
}

// M^dag M: the M bound chained once more (M's output error is M^dag's input error).
TEST_F(SchurOperatorTest, NormalOperatorMatchesTheOracle) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 503, false);
  const Parity parity = Parity::kEven;
  SpinorField<double> in(lattice_, SubsetOf(parity));
  FillGaussian(in, 504);
  const OracleSchur m_in = ApplyOracleSchur(u, in, Dagger::kNo);
  const OracleSchur mdag_m_in = ApplyOracleSchur(u, m_in.out, Dagger::kYes);
  for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    const GaugeLayout layout{precision, Reconstruct::k12, false, 0};
    const DeviceGaugeField gauge(u, layout);
    const DeviceSchurOperator m(gauge, kKappa, parity);
    DeviceSpinorField in_device(lattice_, SubsetOf(parity), precision), out_device(lattice_, SubsetOf(parity), precision);
    in_device.Upload(in);
    out_device.FillBytes(0xff);
    m.ApplyNormal(out_device.View(), in_device.View());
    const std::vector<double> link_error = testing::LinkErrorBounds(u, layout);
    const std::vector<double> first = SchurBound(lattice_, precision, parity, link_error, testing::Magnitudes(in),
                                                 testing::UploadErrors(in, precision), m_in.t, m_in.dt, m_in.out);
    const std::vector<double> bound = SchurBound(lattice_, precision, parity, link_error, testing::Magnitudes(m_in.out),
                                                 first, mdag_m_in.t, mdag_m_in.dt, mdag_m_in.out);
    const Comparison r = testing::CompareWithBound(out_device.Download(), mdag_m_in.out, bound,
                                                   testing::Magnitudes(mdag_m_in.out));
    std::printf("M_ee^dag M_ee %-6s max |error| %.2e  max error/bound %.3f\n", ToString(precision), r.max_error,
                r.max_ratio);
    EXPECT_EQ(r.violations, 0) << ToString(precision) << ": " << r.first_violation;
  }
}

// ApplyDotNorm: out is bit for bit Apply's (the same kernel arithmetic and store), and the fused (out, w),
// |out|^2 are those of the stored out: the host sums the same products of the downloaded values (in the UKQCD
// basis Download returns exactly what the device stores and decodes) in another order, so with n = 24 terms per
// site per sum and S the sum of the terms' magnitudes each side is within (n V/2 + 1) u_d S of the exact sum
// and the two within twice that. w = a second field and w = in (BiCGstab's (t, s)); 432 sites per parity, so
// the last group of 32 sites is partial.
TEST_F(SchurOperatorTest, FusedDotProductsAreThoseOfTheStoredOutput) {
  const Lattice lattice(6, 6, 6, 4);
  constexpr double kUd = 0x1p-53;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 507, gauge_fixed);
    SpinorField<double> in(lattice, Subset::kEven), w(lattice, Subset::kEven);
    FillGaussian(in, 508);
    FillGaussian(w, 509);
    for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
      for (Reconstruct reconstruct : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
        SCOPED_TRACE(std::string(ToString(precision)) + "/" + ToString(reconstruct) + (gauge_fixed ? "/gf" : ""));
        const DeviceGaugeField gauge(u, {precision, reconstruct, gauge_fixed, 0});
        const DeviceSchurOperator m(gauge, kKappa, Parity::kEven);
        DeviceSpinorField in_d(lattice, Subset::kEven, precision), w_d(lattice, Subset::kEven, precision);
        DeviceSpinorField plain(lattice, Subset::kEven, precision), fused(lattice, Subset::kEven, precision);
        in_d.Upload(in);
        w_d.Upload(w);
        m.Apply(plain.View(), in_d.View(), Dagger::kNo);
        const SpinorField<double> o = plain.Download(GammaBasis::kUkqcd);
        for (const DeviceSpinorField* second : {&w_d, &in_d}) {
          fused.FillBytes(0xff);
          const blas::DeferredDotAndNorm d =
              blas::SumDotNormPartials(m.ApplyDotNorm(fused.View(), in_d.View(), second->View()), m.DotNormGroups());
          const SpinorField<double> f = fused.Download(GammaBasis::kUkqcd), v = second->Download(GammaBasis::kUkqcd);
          int differing = 0;
          std::complex<double> dot = 0;
          double norm2 = 0, dot_terms = 0;
          for (int i = 0; i < o.sites(); ++i) {
            differing += o[i] == f[i] ? 0 : 1;
            for (int k = 0; k < 12; ++k) {
              dot += std::conj(o[i](k)) * v[i](k);
              norm2 += std::norm(o[i](k));
              dot_terms += (std::abs(o[i](k).real()) + std::abs(o[i](k).imag())) *
                           (std::abs(v[i](k).real()) + std::abs(v[i](k).imag()));
            }
          }
          EXPECT_EQ(differing, 0);
          const double n = 24.0 * o.sites();
          const double dot_bound = 2 * (n + 1) * kUd * dot_terms, norm_bound = 2 * (n + 1) * kUd * norm2;
          const std::complex<double> fused_dot = d.dot.Host();
          EXPECT_LE(std::abs(fused_dot.real() - dot.real()), dot_bound);
          EXPECT_LE(std::abs(fused_dot.imag() - dot.imag()), dot_bound);
          EXPECT_LE(std::abs(d.norm2.Host() - norm2), norm_bound);
        }
      }
    }
  }
}

// ApplyDotNormBlock: each right-hand side's fused (out_j, w_j), |out_j|^2 within the bounds of the single-field test
// above of the host's sums of the stored out_j; w_j a second field (v = A p, (v, r0)) or in_j itself (t = A s,
// (t, s)). 17 right-hand sides: one launch of 16 and the single-RHS kernel for the 17th. Then 3 right-hand sides
// with each mapping pinned, the outputs bit for bit the plain xpay call's with the same mapping (below; the tuned
// calls may take different mappings for the two epilogues, and with 12 reals on values different mappings contract
// the products into fma differently, so only pinned ones are compared bit for bit).
TEST_F(SchurOperatorTest, FusedBlockDotProductsAreThoseOfTheStoredOutputs) {
  const Lattice lattice(6, 6, 6, 4);
  constexpr double kUd = 0x1p-53;
  constexpr int kRhs = 17;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 517, gauge_fixed);
    std::vector<SpinorField<double>> in(kRhs, SpinorField<double>(lattice, Subset::kEven)), w = in;
    for (int j = 0; j < kRhs; ++j) {
      FillGaussian(in[j], 520 + j);
      FillGaussian(w[j], 560 + j);
    }
    for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
      for (Reconstruct reconstruct : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
        SCOPED_TRACE(std::string(ToString(precision)) + "/" + ToString(reconstruct) + (gauge_fixed ? "/gf" : ""));
        const DeviceGaugeField gauge(u, {precision, reconstruct, gauge_fixed, 0});
        const DeviceSchurOperator m(gauge, kKappa, Parity::kEven);
        std::vector<DeviceSpinorField> in_d, w_d, fused;
        for (int j = 0; j < kRhs; ++j) {
          for (auto* v : {&in_d, &w_d, &fused}) v->emplace_back(lattice, Subset::kEven, precision);
          in_d.back().Upload(in[j]);
          w_d.back().Upload(w[j]);
          fused.back().FillBytes(0xff);
        }
        std::vector<SpinorView> fused_v;
        std::vector<ConstSpinorView> in_v, w_v;
        for (int j = 0; j < kRhs; ++j) {
          fused_v.push_back(fused[j].View());
          in_v.push_back(in_d[j].View());
          w_v.push_back(w_d[j].View());
        }
        const int groups = m.DotNormGroups();
        for (const bool second_is_in : {false, true}) {
          const double* partials = m.ApplyDotNormBlock(fused_v, in_v, second_is_in ? in_v : w_v);
          std::vector<blas::DeferredDotAndNorm> sums;
          for (int j = 0; j < kRhs; ++j) sums.push_back(blas::SumDotNormPartials(partials + 3 * groups * j, groups));
          for (int j = 0; j < kRhs; ++j) {
            SCOPED_TRACE("rhs " + std::to_string(j) + (second_is_in ? ", w = in" : ", w a second field"));
            const SpinorField<double> f = fused[j].Download(GammaBasis::kUkqcd);
            const SpinorField<double> v = (second_is_in ? in_d[j] : w_d[j]).Download(GammaBasis::kUkqcd);
            std::complex<double> dot = 0;
            double norm2 = 0, dot_terms = 0;
            for (int i = 0; i < f.sites(); ++i) {
              for (int k = 0; k < 12; ++k) {
                dot += std::conj(f[i](k)) * v[i](k);
                norm2 += std::norm(f[i](k));
                dot_terms += (std::abs(f[i](k).real()) + std::abs(f[i](k).imag())) *
                             (std::abs(v[i](k).real()) + std::abs(v[i](k).imag()));
              }
            }
            const double n = 24.0 * f.sites();
            const double dot_bound = 2 * (n + 1) * kUd * dot_terms, norm_bound = 2 * (n + 1) * kUd * norm2;
            const std::complex<double> fused_dot = sums[j].dot.Host();
            EXPECT_LE(std::abs(fused_dot.real() - dot.real()), dot_bound);
            EXPECT_LE(std::abs(fused_dot.imag() - dot.imag()), dot_bound);
            EXPECT_LE(std::abs(sums[j].norm2.Host() - norm2), norm_bound);
          }
        }
        // Three right-hand sides through the multi-RHS kernel with every compiled mapping (and the tuned one): the
        // outputs are the plain xpay call's with the same mapping bit for bit, and each right-hand side's partials
        // add up (in long double on the host) to the sums of its stored output within the bounds above. (The
        // outputs of different mappings may differ in the last bits: with 12 reals on values the compiler
        // contracts the products into fma differently per kernel, docs/multi_rhs.md, and the sums follow them.)
        std::vector<DeviceSpinorField> t, plain3;
        std::vector<SpinorView> t_v, plain3_v;
        std::vector<ConstSpinorView> t_in;
        for (int j = 0; j < 3; ++j) {
          t.emplace_back(lattice, Subset::kOdd, precision);
          plain3.emplace_back(lattice, Subset::kEven, precision);
        }
        for (int j = 0; j < 3; ++j) {
          t_v.push_back(t[j].View());
          t_in.push_back(t[j].View());
          plain3_v.push_back(plain3[j].View());
        }
        const std::vector<ConstSpinorView> x3(in_v.begin(), in_v.begin() + 3), w3(w_v.begin(), w_v.begin() + 3);
        ApplyWilsonDslashBlock(t_v, gauge, x3, Dagger::kNo);
        const std::vector<SpinorView> out3(fused_v.begin(), fused_v.begin() + 3);
        DeviceBuffer buffer(sizeof(double) * 3 * groups * 3);
        double* p = static_cast<double*>(buffer.data());
        for (const int per_thread : {0, 1, 2, 4}) {
          if (precision == Precision::kDouble && per_thread == 4) continue;
          SCOPED_TRACE(std::to_string(per_thread) + " right-hand sides per thread (0: tuned)");
          buffer.Fill(0xff);
          ApplyWilsonDslashXpayDotNormBlock(out3, gauge, t_in, x3, 1.0, -kKappa * kKappa, w3, p,
                                            FermionBoundary::AntiperiodicTime(), MultiRhsMapping{per_thread});
          ApplyWilsonDslashXpayBlock(plain3_v, gauge, t_in, Dagger::kNo, x3, 1.0, -kKappa * kKappa,
                                     FermionBoundary::AntiperiodicTime(), MultiRhsMapping{per_thread});
          std::vector<double> partials(3 * groups * 3);
          buffer.CopyToHost(partials.data(), sizeof(double) * partials.size());
          for (int j = 0; j < 3; ++j) {
            const SpinorField<double> f = fused[j].Download(GammaBasis::kUkqcd);
            const SpinorField<double> o = plain3[j].Download(GammaBasis::kUkqcd);
            const SpinorField<double> v = w_d[j].Download(GammaBasis::kUkqcd);
            int differing = 0;
            std::complex<double> dot = 0;
            double norm2 = 0, dot_terms = 0;
            for (int i = 0; i < f.sites(); ++i) {
              differing += o[i] == f[i] ? 0 : 1;
              for (int k = 0; k < 12; ++k) {
                dot += std::conj(f[i](k)) * v[i](k);
                norm2 += std::norm(f[i](k));
                dot_terms += (std::abs(f[i](k).real()) + std::abs(f[i](k).imag())) *
                             (std::abs(v[i](k).real()) + std::abs(v[i](k).imag()));
              }
            }
            if (per_thread != 0) {
              EXPECT_EQ(differing, 0) << "rhs " << j;
            }
            long double sums[3] = {0, 0, 0};
            for (int g = 0; g < groups; ++g) {
              for (int k = 0; k < 3; ++k) sums[k] += partials[3 * (groups * j + g) + k];
            }
            const double n = 24.0 * f.sites();
            const double dot_bound = 2 * (n + 1) * kUd * dot_terms, norm_bound = 2 * (n + 1) * kUd * norm2;
            EXPECT_LE(std::abs(static_cast<double>(sums[0]) - dot.real()), dot_bound) << "rhs " << j;
            EXPECT_LE(std::abs(static_cast<double>(sums[1]) - dot.imag()), dot_bound) << "rhs " << j;
            EXPECT_LE(std::abs(static_cast<double>(sums[2]) - norm2), norm_bound) << "rhs " << j;
          }
        }
      }
    }
  }
}

// ApplyDaggerAxpyNorm: r = r + c M^dag in with M^dag in never stored. Against the unfused path (Apply with
// D^dag into q, then blas::AxpyNorm(c, q, r)): in double and single the stored q is the computed q and both
// form r + c q as one fused multiply-add in the same Real, so r is bit for bit the same; in half within the bound
// of testing::RealsBeyondHalfAxpyNormBound (oracle_comparison.h). The fused |r|^2 is checked against the host's
// sum of the stored r as in the test above. c = -0.37 is read from a device slot, as CG's alpha is.
TEST_F(SchurOperatorTest, FusedDaggerAxpyNormEqualsTheSeparateUpdate) {
  const Lattice lattice(6, 6, 6, 4);
  constexpr double kUd = 0x1p-53;
  const double c = -0.37;
  const std::shared_ptr<ScalarSlot> coefficient = blas::EvaluateIntoSlot(DeviceReal(c));
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 511, gauge_fixed);
    SpinorField<double> in(lattice, Subset::kEven), r0(lattice, Subset::kEven);
    FillGaussian(in, 512);
    FillGaussian(r0, 513);
    for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
      for (Reconstruct reconstruct : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
        SCOPED_TRACE(std::string(ToString(precision)) + "/" + ToString(reconstruct) + (gauge_fixed ? "/gf" : ""));
        const DeviceGaugeField gauge(u, {precision, reconstruct, gauge_fixed, 0});
        const DeviceSchurOperator m(gauge, kKappa, Parity::kEven);
        DeviceSpinorField in_d(lattice, Subset::kEven, precision), q(lattice, Subset::kEven, precision);
        DeviceSpinorField separate(lattice, Subset::kEven, precision), fused(lattice, Subset::kEven, precision);
        in_d.Upload(in);
        separate.Upload(r0);
        fused.Upload(r0);
        const SpinorField<double> r_start = fused.Download(GammaBasis::kUkqcd);
        m.Apply(q.View(), in_d.View(), Dagger::kYes);
        blas::AxpyNorm(c, q, separate);
        const DeviceReal norm2 = blas::SumDotNormPartials(
            m.ApplyDaggerAxpyNorm(fused.View(), in_d.View(), coefficient->device()), m.DotNormGroups()).norm2;
        const SpinorField<double> f = fused.Download(GammaBasis::kUkqcd), s = separate.Download(GammaBasis::kUkqcd);
        if (precision == Precision::kHalf) {
          EXPECT_EQ(testing::RealsBeyondHalfAxpyNormBound(f, s, q.Download(GammaBasis::kUkqcd), r_start, c), 0);
        } else {
          int differing = 0;
          for (int i = 0; i < f.sites(); ++i) differing += f[i] == s[i] ? 0 : 1;
          EXPECT_EQ(differing, 0);
        }
        double host_norm2 = 0;
        for (int i = 0; i < f.sites(); ++i) {
          for (int k = 0; k < 12; ++k) host_norm2 += std::norm(f[i](k));
        }
        const double n = 24.0 * f.sites();
        EXPECT_LE(std::abs(norm2.Host() - host_norm2), 2 * (n + 1) * kUd * host_norm2);
      }
    }
  }
}

TEST_F(SchurOperatorTest, InPlaceEqualsOutOfPlace) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 505, true);
  SpinorField<double> in(lattice_, Subset::kOdd);
  FillGaussian(in, 506);
  for (Precision precision : {Precision::kDouble, Precision::kHalf}) {
    const DeviceGaugeField gauge(u, {precision, Reconstruct::k8, true, 0});
    const DeviceSchurOperator m(gauge, kKappa, Parity::kOdd);
    DeviceSpinorField a(lattice_, Subset::kOdd, precision), b(lattice_, Subset::kOdd, precision);
    a.Upload(in);
    b.Upload(in);
    DeviceSpinorField out(lattice_, Subset::kOdd, precision);
    m.Apply(out.View(), a.View(), Dagger::kYes);
    m.Apply(b.View(), b.View(), Dagger::kYes);
    const SpinorField<double> separate = out.Download(), in_place = b.Download();
    int mismatches = 0;
    for (int i = 0; i < in.sites(); ++i) mismatches += separate[i] == in_place[i] ? 0 : 1;
    EXPECT_EQ(mismatches, 0) << ToString(precision);
  }
}

TEST_F(SchurOperatorTest, MisuseIsRefused) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 507, false);
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k18, false, 0});
  EXPECT_THROW(DeviceSchurOperator(gauge, -0.1, Parity::kEven), std::invalid_argument);
  const DeviceSchurOperator m(gauge, kKappa, Parity::kEven);
  DeviceSpinorField odd(lattice_, Subset::kOdd, Precision::kSingle), odd2(lattice_, Subset::kOdd, Precision::kSingle);
  EXPECT_THROW(m.Apply(odd.View(), odd2.View(), Dagger::kNo), std::invalid_argument);
  DeviceSpinorField even(lattice_, Subset::kEven, Precision::kSingle), even2(lattice_, Subset::kEven, Precision::kSingle);
  EXPECT_THROW(m.ApplyDotNorm(even.View(), even2.View(), even.View()), std::invalid_argument);  // w is out
  EXPECT_THROW(m.ApplyDotNorm(even.View(), even2.View(), odd.View()), std::invalid_argument);   // w on parity odd
  const std::shared_ptr<ScalarSlot> c = blas::EvaluateIntoSlot(DeviceReal(1.0));
  EXPECT_THROW(m.ApplyDaggerAxpyNorm(even.View(), even.View(), c->device()), std::invalid_argument);  // r is in
  EXPECT_THROW(m.ApplyDaggerAxpyNorm(odd.View(), odd2.View(), c->device()), std::invalid_argument);   // parity
  EXPECT_THROW(m.ApplyDaggerAxpyNorm(even.View(), even2.View(), nullptr), std::invalid_argument);     // no c
  const KernelCost cost = m.Cost(Precision::kSingle);
  EXPECT_DOUBLE_EQ(cost.flops, (2 * 1320 + 48) * lattice_.half_volume());
}

// The block byte model follows the launches: at most kMaxRhsPerLaunch right-hand sides per multi-RHS launch, each
// reading the links once per Dslash, so 17 right-hand sides cost one launch of 16 plus one of 1.
TEST_F(SchurOperatorTest, BlockCostCountsTheLinksOncePerLaunch) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 508, false);
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k12, false, 0});
  const DeviceSchurOperator m(gauge, kKappa, Parity::kEven);
  const Extents extents{lattice_.extent(0), lattice_.extent(1), lattice_.extent(2), lattice_.extent(3)};
  DslashVariant v;
  v.precision = Precision::kSingle;
  v.reconstruct = Reconstruct::k12;
  auto launch = [&](int n) {  // one D and one xpay D on n right-hand sides
    v.xpay = false;
    const KernelCost plain = WilsonDslashCost(v, extents, n);
    v.xpay = true;
    const KernelCost xpay = WilsonDslashCost(v, extents, n);
    return KernelCost{plain.flops + xpay.flops, plain.bytes + xpay.bytes, plain.minimum_bytes + xpay.minimum_bytes};
  };
  for (int n : {1, 5, 16}) EXPECT_DOUBLE_EQ(m.BlockCost(Precision::kSingle, n).bytes, launch(n).bytes) << n;
  EXPECT_DOUBLE_EQ(m.BlockCost(Precision::kSingle, 17).bytes, launch(16).bytes + launch(1).bytes);
  EXPECT_DOUBLE_EQ(m.BlockCost(Precision::kSingle, 40).minimum_bytes,
                   2 * launch(16).minimum_bytes + launch(8).minimum_bytes);
  EXPECT_DOUBLE_EQ(m.BlockCost(Precision::kSingle, 40).flops, 40 * m.Cost(Precision::kSingle).flops);
  EXPECT_LT(m.BlockCost(Precision::kSingle, 17).bytes, 17 * m.Cost(Precision::kSingle).bytes);  // links shared
  EXPECT_THROW(m.BlockCost(Precision::kSingle, 0), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
