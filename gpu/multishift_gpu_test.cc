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
#include <memory>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/gpu_backend.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/cpu_backend.h"
#include "solvers/multishift_bicgstab.h"
#include "solvers/multi_mass.h"
#include "solvers/multishift_cg.h"
#include "solvers/operators.h"
#include "solvers/shifted_operator.h"
#include "solvers/testing.h"

namespace lqcd::gpu {
namespace {

using solvers::SolveResult;
using solvers::SolverParams;

constexpr double kKappa = 0.12;
constexpr double kUnitRoundoffDouble = 0x1p-53;  // m = 1 / (2 kappa) - 4 = 1/6

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

// The multi-mass driver (solvers/multi_mass.h) on device fields: solutions, guesses and solves stay on the GPU,
// as experiments/multi_mass runs it. Every solution is the CPU oracle's separate solve within the bound above,
// and the polynomial guesses' residuals are the CPU driver's within what the solves' tolerance allows: the guess
// x0 = sum_j c_j x_j (Lagrange weights c_j of the masses only) moves by at most sum_j |c_j| d_j when each x_j
// moves by d_j = (tol + tol) |b| / m_j, so |b - M x0| / |b| moves by at most |M| sum_j |c_j| d_j / |b|, with
// |M| <= 4 + m + 4 (|D| <= 8); each residual itself is computed in double from |x0| <= sum_j |c_j| |b| / m_j
// with at most ~200 roundings per component (gamma_200 = 200 u, both drivers). The minimisation is checked
// through its solutions.
TEST_F(MultiShiftGpuTest, MultiMassDriverRunsOnDeviceFields) {
  SpinorField<double> b(lattice_);
  FillGaussian(b, 43);
  const double tol = 1e-10;
  const std::vector<double> masses = {params_.mass + 0.3, params_.mass, params_.mass + 0.1, params_.mass + 0.02};
  const auto links = std::make_shared<const DeviceGaugeField>(u_, GaugeLayout{});
  auto at = [&](double mass) {
    WilsonParams p = params_;
    p.mass = mass;
    return p;
  };
  GpuSpinorField<double> b_device(lattice_, Subset::kFull);
  b_device.Upload(b);
  for (solvers::GuessStrategy guess : {solvers::GuessStrategy::kPolynomial, solvers::GuessStrategy::kMinimalResidual}) {
    SCOPED_TRACE(solvers::ToString(guess));
    solvers::MultiMassOptions options;
    options.guess = guess;
    options.polynomial_order = solvers::MultiMassOptions::kHighestOrder;
    options.shifted_family = true;
    options.measure_guess_residual = true;
    std::vector<GpuSpinorField<double>> x;
    for (std::size_t i = 0; i < masses.size(); ++i) x.emplace_back(lattice_, Subset::kFull);
    const solvers::MultiMassResult gpu = solvers::SolveMultiMass(
        masses, x, b_device, Tolerance(tol), options, [&](double mass) { return GpuWilson<double>(links, at(mass)); },
        [&](double mass, GpuSpinorField<double>& xm, const GpuSpinorField<double>& bm, const SolverParams& p) {
          return solvers::BiCGstab(GpuWilson<double>(links, at(mass)), xm, bm, p);
        });
    std::printf("%s\n", gpu.Summary().c_str());
    ASSERT_TRUE(gpu.all_converged()) << gpu.Summary();
    std::vector<SpinorField<double>> x_cpu(masses.size(), SpinorField<double>(lattice_));
    const solvers::MultiMassResult cpu = solvers::SolveMultiMass(
        masses, x_cpu, b, Tolerance(tol), options,
        [&](double mass) { return solvers::CpuWilson<double>(u_, at(mass)); },
        [&](double mass, SpinorField<double>& xm, const SpinorField<double>& bm, const SolverParams& p) {
          return solvers::BiCGstab(solvers::CpuWilson<double>(u_, at(mass)), xm, bm, p);
        });
    ASSERT_TRUE(cpu.all_converged()) << cpu.Summary();
    const double b_norm = std::sqrt(Norm2(b));
    for (std::size_t i = 0; i < masses.size(); ++i) {
      SCOPED_TRACE("m = " + std::to_string(masses[i]));
      EXPECT_LE(Distance(x[i].Download(), x_cpu[i]), 2 * tol * b_norm / masses[i]);
    }
    if (guess != solvers::GuessStrategy::kPolynomial) continue;
    // Solve order: heaviest first (masses are distinct); each guess extrapolates through all earlier solutions.
    std::vector<int> order = gpu.solve_order;
    for (std::size_t step = 1; step < order.size(); ++step) {
      const double m = masses[order[step]];
      double moved = 0;  // in units of |b|: sum_j |c_j| (2 tol + 2 gamma_200) / m_j
      for (std::size_t j = 0; j < step; ++j) {
        double weight = 1;
        for (std::size_t k = 0; k < step; ++k) {
          if (k != j) weight *= (m - masses[order[k]]) / (masses[order[j]] - masses[order[k]]);
        }
        moved += std::abs(weight) * (2 * tol + 2 * 200 * kUnitRoundoffDouble) / masses[order[j]];
      }
      const double bound = (8 + m) * moved;
      EXPECT_NEAR(gpu.guess_residuals[order[step]], cpu.guess_residuals[order[step]], bound) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace lqcd::gpu
