// multishift_gpu_test: the multi-shift solvers BiCGstab-M (on M + sigma) and CG-M (on M^dag M + sigma), written
// once in solvers/, run on the GPU backend (GpuWilson<double>, device-resident fields and reductions) and give,
// for every shift, the solution of the CPU oracle's separate solve at that shift within the rigorous bound of
// solvers/multishift_test.cc: for kappa < 1/8, |M(m)^{-1}| <= 1 / m (m = 1 / (2 kappa) - 4), so
// |(M + sigma)^{-1}| <= 1 / (m + sigma) and |(M^dag M + sigma)^{-1}| <= 1 / (m^2 + sigma); two solutions with
// relative residuals e and e' differ by at most |A^{-1}| (e + e') |b|. The multi-shift recurrences must do the
// work: no shift may need the single-shift refinement.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/gpu_backend.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/cpu_backend.h"
#include "solvers/multishift_bicgstab.h"
#include "solvers/multishift_cg.h"
#include "solvers/operators.h"
#include "solvers/shifted_operator.h"
#include "solvers/testing.h"

namespace lqcd::gpu {
namespace {

using solvers::SolveResult;
using solvers::SolverParams;

constexpr double kKappa = 0.12;  // m = 1 / (2 kappa) - 4 = 1/6

class MultiShiftGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  const Lattice lattice_{4, 4, 4, 8};
  const GaugeField<double> u_ = solvers::testing::RandomSu3Gauge(lattice_, 41);
  const WilsonParams params_ = WilsonParams::FromKappa(kKappa);
};

SolverParams Tolerance(double tol) {
  SolverParams p;
  p.tolerance = tol;
  return p;
}

double Distance(const SpinorField<double>& a, const SpinorField<double>& b) {
  return std::sqrt(Norm2(Difference(a, b)));
}

TEST_F(MultiShiftGpuTest, BiCGstabMOnTheGpuGivesEveryShiftsSolution) {
  SpinorField<double> b(lattice_);
  FillGaussian(b, 42);
  const GpuWilson<double> m(u_, params_);
  GpuSpinorField<double> b_device = m.NewField();
  b_device.Upload(b);
  const std::vector<double> shifts = {0.0, 0.02, 0.1, 0.3, 1.0};
  std::vector<GpuSpinorField<double>> x;
  for (std::size_t i = 0; i < shifts.size(); ++i) x.push_back(m.NewField());
  const solvers::MultiShiftResult r = solvers::MultiShiftBiCGstab(m, shifts, x, b_device, Tolerance(1e-12));
  std::printf("%s\n", r.Summary().c_str());
  ASSERT_TRUE(r.all_converged()) << r.Summary();
  for (std::size_t i = 0; i < shifts.size(); ++i) {
    SCOPED_TRACE("sigma = " + std::to_string(shifts[i]));
    EXPECT_EQ(r.per_shift[i].restarts, 0) << "the shifted recurrence needed a refinement";
    WilsonParams shifted = params_;
    shifted.mass += shifts[i];
    const solvers::CpuWilson<double> cpu(u_, shifted);
    SpinorField<double> single(lattice_);
    const SolveResult s = solvers::BiCGstab(cpu, single, b, Tolerance(1e-13));
    ASSERT_TRUE(s.converged()) << s.Summary();
    const double bound = (1e-12 + 1e-13) * std::sqrt(Norm2(b)) / (params_.mass + shifts[i]);
    EXPECT_LE(Distance(x[i].Download(), single), bound);
  }
}

TEST_F(MultiShiftGpuTest, CgMOnTheGpuGivesEveryShiftsSolution) {
  SpinorField<double> b(lattice_);
  FillGaussian(b, 43);
  const GpuWilson<double> m(u_, params_);
  const solvers::NormalOperator<GpuWilson<double>> normal(m);
  GpuSpinorField<double> b_device = m.NewField();
  b_device.Upload(b);
  const std::vector<double> shifts = {0.3, 0.0, 0.01, 0.05, 1.0};
  std::vector<GpuSpinorField<double>> x;
  for (std::size_t i = 0; i < shifts.size(); ++i) x.push_back(m.NewField());
  const solvers::MultiShiftResult r = solvers::MultiShiftCg(normal, shifts, x, b_device, Tolerance(1e-12));
  std::printf("%s\n", r.Summary().c_str());
  ASSERT_TRUE(r.all_converged()) << r.Summary();
  EXPECT_EQ(r.seed, 1);
  const solvers::CpuWilson<double> cpu_m(u_, params_);
  const solvers::NormalOperator<solvers::CpuWilson<double>> cpu_normal(cpu_m);
  for (std::size_t i = 0; i < shifts.size(); ++i) {
    SCOPED_TRACE("sigma = " + std::to_string(shifts[i]));
    EXPECT_EQ(r.per_shift[i].restarts, 0) << "the shifted recurrence needed a refinement";
    const solvers::ShiftedOperator<solvers::NormalOperator<solvers::CpuWilson<double>>> a(cpu_normal, shifts[i]);
    SpinorField<double> single(lattice_);
    const SolveResult s = solvers::ConjugateGradient(a, single, b, Tolerance(1e-13));
    ASSERT_TRUE(s.converged()) << s.Summary();
    const double bound = (1e-12 + 1e-13) * std::sqrt(Norm2(b)) / (params_.mass * params_.mass + shifts[i]);
    EXPECT_LE(Distance(x[i].Download(), single), bound);
  }
}

}  // namespace
}  // namespace lqcd::gpu
