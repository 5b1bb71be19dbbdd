// The GPU staggered solver pieces (gpu_staggered.h, staggered_blas.h) on a GPU: the vector operations equal their
// host emulation (RunColourBlasOnHost, checked against the CPU backend in staggered_blas_host_test) bit for bit;
// the even-odd operator M_ee = 4m^2 - D_eo D_oe against the oracle within the composed bound of
// staggered_dslash_testing.h; and the even-odd CG solve of M x = b against the CPU solve (solvers/staggered_pbp.h):
// converged, the true full residual within the tolerance, iterations within 2 of the CPU's (the same algorithm
// in double, its sums in another order); and the block solve (block CG on the block Dslash) against one solve at
// a time.
#include "gpu/gpu_staggered.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/staggered_blas_launch.h"
#include "gpu/staggered_dslash_testing.h"

namespace lqcd::gpu {
namespace {

class GpuStaggeredTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  const Lattice lattice_{Coordinates{4, 4, 6, 6}};
};

TEST_F(GpuStaggeredTest, VectorOperationsEqualTheirHostEmulationBitForBit) {
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    ColourVectorField<double> x0(lattice_, Subset::kEven), y0(lattice_, Subset::kEven), z0(lattice_, Subset::kEven);
    FillGaussian(x0, 1);
    FillGaussian(y0, 2);
    FillGaussian(z0, 3);
    for (const ColourBlasOp op : {ColourBlasOp::kAxpy, ColourBlasOp::kXpay, ColourBlasOp::kAxpyNorm,
                                  ColourBlasOp::kCgSolutionDirection, ColourBlasOp::kNorm2, ColourBlasOp::kReDot,
                                  ColourBlasOp::kDot, ColourBlasOp::kNonFinite}) {
      DeviceColourVectorField x(lattice_, Parity::kEven, precision), y(lattice_, Parity::kEven, precision),
          z(lattice_, Parity::kEven, precision);
      x.Upload(x0);
      y.Upload(y0);
      z.Upload(z0);
      // The host copies, packed as the device stores them.
      std::vector<unsigned char> hx = PackColourVectors(x0, precision, lattice_.half_volume()),
                                 hy = PackColourVectors(y0, precision, lattice_.half_volume()),
                                 hz = PackColourVectors(z0, precision, lattice_.half_volume());
      ColourBlasLaunch device, host;
      device.op = host.op = op;
      device.a = host.a = -0.3717;
      device.b = host.b = 1.9231;
      device.x = x.View();
      device.y = y.View();
      device.z = z.View();
      host.x = device.x;
      host.y = device.y;
      host.z = device.z;
      host.x.data = hx.data();
      host.y.data = hy.data();
      host.z.data = hz.data();
      const std::array<double, 2> on_device = LaunchColourBlas(device);
      const std::array<double, 2> on_host = RunColourBlasOnHost(host);
      const std::string what = std::string(ToString(precision)) + " op " + std::to_string(static_cast<int>(op));
      EXPECT_EQ(std::memcmp(on_device.data(), on_host.data(), sizeof(on_host)), 0) << what;
      const ColourVectorField<double> dy = y.Download(), dz = z.Download();
      const ColourVectorField<double> ey = UnpackColourVectors(hy.data(), precision, lattice_.half_volume(), lattice_,
                                                               Parity::kEven),
                                      ez = UnpackColourVectors(hz.data(), precision, lattice_.half_volume(), lattice_,
                                                               Parity::kEven);
      for (int i = 0; i < dy.sites(); ++i) {
        ASSERT_EQ(std::memcmp(&dy[i], &ey[i], sizeof(dy[i])), 0) << what << " y site " << i;
        ASSERT_EQ(std::memcmp(&dz[i], &ez[i], sizeof(dz[i])), 0) << what << " z site " << i;
      }
    }
  }
}

TEST_F(GpuStaggeredTest, TheEvenOddOperatorMatchesTheOracle) {
  const StaggeredLinks<double> links = testing::RandomHisqLinks(lattice_, 21);
  StaggeredParams params;
  params.mass = 0.0173;
  for (const Precision precision : {Precision::kDouble, Precision::kSingle}) {
    const auto device_links = std::make_shared<const DeviceStaggeredLinks>(links, precision);
    ColourVectorField<double> in(lattice_, Subset::kEven);
    FillGaussian(in, 22);
    ColourVectorField<double> computed(lattice_, Subset::kEven);
    if (precision == Precision::kDouble) {
      const GpuStaggeredSchur<double> op(device_links, params);
      GpuColourVectorField<double> a = op.NewField(), b = op.NewField();
      a.Upload(in);
      op.Apply(b, a);
      computed = b.Download();
      in = a.Download();
    } else {
      const GpuStaggeredSchur<float> op(device_links, params);
      GpuColourVectorField<float> a = op.NewField(), b = op.NewField();
      a.Upload(in);
      op.Apply(b, a);
      computed = b.Download();
      in = a.Download();  // as stored
    }
    // Oracle: t = D_oe in, D_eo t, and the composed bound: the inner Dslash's error carried through |D|, the
    // outer one's own, and the epilogue's: 2 x factor x |D|(|D| |in|) + epilogue (4m^2 |in| + |D t|).
    ColourVectorField<double> t(lattice_, Subset::kOdd), dt(lattice_, Subset::kEven), expected(lattice_, Subset::kEven);
    ApplyStaggeredDslashParity(t, links, in, params.boundary);
    ApplyStaggeredDslashParity(dt, links, t, params.boundary);
    const double four_m2 = 4 * params.mass * params.mass;
    for (int i = 0; i < expected.sites(); ++i) expected[i] = four_m2 * in[i] - dt[i];
    ColourVectorField<double> abs_in = testing::AbsoluteTerms(links, in, Parity::kOdd);  // |D| |in| on odd
    ColourVectorField<double> twice = testing::AbsoluteTerms(links, abs_in, Parity::kEven);
    for (int i = 0; i < twice.sites(); ++i) twice[i] *= 2.0;
    testing::CheckXpayWithinBound(computed, expected, twice, in, dt, four_m2, -1.0, precision, 16,
                                  std::string("M_ee ") + ToString(precision));
  }
}

TEST_F(GpuStaggeredTest, TheEvenOddSolveMatchesTheCpuSolve) {
  const StaggeredLinks<double> links = testing::RandomHisqLinks(lattice_, 23);
  StaggeredParams params;
  params.mass = 0.05;
  ColourVectorField<double> b(lattice_);
  FillGaussian(b, 24);
  solvers::SolverParams solver;
  solver.tolerance = 1e-10;
  solver.max_iterations = 2000;
  const auto device_links = std::make_shared<const DeviceStaggeredLinks>(links, Precision::kDouble);
  const solvers::StaggeredSolve gpu = SolveStaggeredEvenOddOnGpu(device_links, links, params, b, solver);
  const solvers::StaggeredSolve cpu = solvers::SolveStaggeredEvenOdd(links, params, b, solver);
  ASSERT_TRUE(gpu.schur.converged()) << gpu.schur.Summary();
  EXPECT_LE(gpu.full_residual, solver.tolerance * 1.1) << gpu.schur.Summary();
  EXPECT_NEAR(gpu.schur.iterations, cpu.schur.iterations, 2) << gpu.schur.Summary() << "\n" << cpu.schur.Summary();
  EXPECT_THROW(SolveStaggeredEvenOddOnGpu(device_links, links, StaggeredParams{}, b, solver), std::invalid_argument);
}

TEST_F(GpuStaggeredTest, TheMixedPrecisionSolveMeetsTheTolerance) {
  // Reliable-update CG with single-precision iterations: the double updates carry the solve to 1e-10.
  const StaggeredLinks<double> links = testing::RandomHisqLinks(lattice_, 26);
  StaggeredParams params;
  params.mass = 0.05;
  ColourVectorField<double> b(lattice_);
  FillGaussian(b, 27);
  solvers::SolverParams solver;
  solver.tolerance = 1e-10;
  solver.max_iterations = 4000;
  const auto double_links = std::make_shared<const DeviceStaggeredLinks>(links, Precision::kDouble);
  const auto single_links = std::make_shared<const DeviceStaggeredLinks>(links, Precision::kSingle);
  const solvers::StaggeredSolve mixed =
      SolveStaggeredEvenOddOnGpu(double_links, links, params, b, solver, single_links);
  ASSERT_TRUE(mixed.schur.converged()) << mixed.schur.Summary();
  EXPECT_LE(mixed.full_residual, solver.tolerance * 1.1) << mixed.schur.Summary();
  EXPECT_GT(mixed.schur.high_precision_updates, 0) << mixed.schur.Summary();
  EXPECT_THROW(SolveStaggeredEvenOddOnGpu(double_links, links, params, b, solver, double_links),
               std::invalid_argument);  // the inner links must be single
  // The block form: each system as the single mixed solve would run it (block_reliable_update.h).
  std::vector<ColourVectorField<double>> sources(3, b);
  for (int k = 1; k < 3; ++k) FillGaussian(sources[k], 27 + k);
  const std::vector<solvers::StaggeredSolve> block =
      SolveStaggeredEvenOddBlockOnGpu(double_links, links, params, sources, solver, single_links);
  for (const solvers::StaggeredSolve& s : block) {
    ASSERT_TRUE(s.schur.converged()) << s.schur.Summary();
    EXPECT_LE(s.full_residual, solver.tolerance * 1.1) << s.schur.Summary();
  }
  EXPECT_NEAR(block[0].schur.iterations, mixed.schur.iterations, 2);
}

TEST_F(GpuStaggeredTest, TheBlockSolveMatchesOneSolveAtATime) {
  // 5 sources: a group of 4 right-hand sides per thread and a partial one. Each system stops on its own
  // criterion; a single solve is a block of one, whose Dslash groups one right-hand side per thread, so the counts
  // agree up to the compiler's contraction of the xpay in the two kernel variants.
  const StaggeredLinks<double> links = testing::RandomHisqLinks(lattice_, 25);
  StaggeredParams params;
  params.mass = 0.05;
  solvers::SolverParams solver;
  solver.tolerance = 1e-10;
  solver.max_iterations = 2000;
  std::vector<ColourVectorField<double>> b;
  for (int k = 0; k < 5; ++k) {
    b.emplace_back(lattice_);
    FillGaussian(b.back(), 30 + k);
  }
  const auto device_links = std::make_shared<const DeviceStaggeredLinks>(links, Precision::kDouble);
  const std::vector<solvers::StaggeredSolve> block = SolveStaggeredEvenOddBlockOnGpu(device_links, links, params, b,
                                                                                     solver);
  ASSERT_EQ(block.size(), b.size());
  for (int k = 0; k < 5; ++k) {
    const solvers::StaggeredSolve one = SolveStaggeredEvenOddOnGpu(device_links, links, params, b[k], solver);
    ASSERT_TRUE(block[k].schur.converged()) << block[k].schur.Summary();
    EXPECT_LE(block[k].full_residual, solver.tolerance * 1.1) << "system " << k;
    EXPECT_NEAR(block[k].schur.iterations, one.schur.iterations, 2) << "system " << k;
  }
}

}  // namespace
}  // namespace lqcd::gpu
