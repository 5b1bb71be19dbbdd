// Tests of multiple right-hand sides: the CPU block Wilson operators against the oracle, their traffic
// model, and the lockstep block solvers (block CG on M^dag M, block BiCGstab on M_ee) against n separate
// single solves; every system stops on its own criterion; every exit status.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <vector>

#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "solvers/bicgstab.h"
#include "solvers/block_bicgstab.h"
#include "solvers/block_cg.h"
#include "solvers/block_cgnr.h"
#include "solvers/block_defect_correction.h"
#include "solvers/block_operators.h"
#include "solvers/block_reliable_update.h"
#include "solvers/cg.h"
#include "solvers/normal_equations.h"
#include "solvers/cpu_backend.h"
#include "solvers/cpu_block_wilson.h"
#include "solvers/defect_correction.h"
#include "solvers/even_odd.h"
#include "solvers/operators.h"
#include "solvers/reliable_update.h"
#include "solvers/testing.h"

namespace lqcd::solvers {
namespace {

constexpr double kUDouble = 0x1p-53;

struct Problem {
  Lattice lattice;
  GaugeField<double> u;
  WilsonParams params = WilsonParams::FromKappa(0.12);
  explicit Problem(const Lattice& l, std::uint64_t seed = 31) : lattice(l), u(testing::RandomSu3Gauge(l, seed)) {}
};

template <typename T>
std::vector<SpinorField<T>> GaussianBlock(const Lattice& lattice, Subset subset, int n, std::uint64_t seed) {
  std::vector<SpinorField<T>> v;
  for (int k = 0; k < n; ++k) {
    SpinorField<double> f(lattice, subset);
    FillGaussian(f, seed + k);
    v.push_back(ConvertSpinorField<T>(f));
  }
  return v;
}

template <typename F>
std::vector<F*> Pointers(std::vector<F>& v) {
  std::vector<F*> p;
  for (auto& f : v) p.push_back(&f);
  return p;
}
template <typename F>
std::vector<const F*> ConstPointers(const std::vector<F>& v) {
  std::vector<const F*> p;
  for (const auto& f : v) p.push_back(&f);
  return p;
}

SolverParams Tolerance(double tol) {
  SolverParams p;
  p.tolerance = tol;
  return p;
}

// ---------- the block operators ----------

// The block kernel evaluates, per vector, the same Eigen expressions in the same order as
// reference/wilson.cc (only the loop over vectors is inside the loop over directions), so the results
// are identical to the last bit: any difference means a different stencil, sign, projector or scalar.
template <typename T>
void CheckBlockWilsonAgainstOracle(const Problem& pr) {
  const int n = 3;
  const CpuBlockWilson<T> block(pr.u, pr.params);
  const GaugeField<T> ut = ConvertGaugeField<T>(pr.u);
  const std::vector<SpinorField<T>> in = GaussianBlock<T>(pr.lattice, Subset::kFull, n, 5);
  for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
    std::vector<SpinorField<T>> out(n, SpinorField<T>(pr.lattice));
    if (dagger == Dagger::kNo) {
      block.ApplyBlock(Pointers(out), ConstPointers(in));
    } else {
      block.ApplyDaggerBlock(Pointers(out), ConstPointers(in));
    }
    for (int k = 0; k < n; ++k) {
      SpinorField<T> expected(pr.lattice);
      ApplyWilson(expected, ut, in[k], pr.params, dagger);
      EXPECT_EQ(MaxAbsDifference(out[k], expected), 0.0) << "vector " << k;
    }
  }
  for (Parity parity : {Parity::kEven, Parity::kOdd}) {
    const CpuBlockWilsonSchur<T> schur(pr.u, pr.params, parity);
    const std::vector<SpinorField<T>> in_p = GaussianBlock<T>(pr.lattice, SubsetOf(parity), n, 9);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      std::vector<SpinorField<T>> out(n, SpinorField<T>(pr.lattice, SubsetOf(parity)));
      if (dagger == Dagger::kNo) {
        schur.ApplyBlock(Pointers(out), ConstPointers(in_p));
      } else {
        schur.ApplyDaggerBlock(Pointers(out), ConstPointers(in_p));
      }
      for (int k = 0; k < n; ++k) {
        SpinorField<T> expected(pr.lattice, SubsetOf(parity));
        ApplySchur(expected, ut, in_p[k], pr.params, dagger);
        EXPECT_EQ(MaxAbsDifference(out[k], expected), 0.0) << "vector " << k;
      }
    }
  }
}

TEST(CpuBlockWilson, EqualsTheOracleVectorByVectorInDoubleAndFloat) {
  const Problem pr(Lattice(4, 4, 4, 8));
  CheckBlockWilsonAgainstOracle<double>(pr);
  CheckBlockWilsonAgainstOracle<float>(pr);
}

TEST(CpuBlockWilson, TrafficModelShowsTheGaugeFieldSaving) {
  const Problem pr(Lattice(4, 4, 4, 4));
  const CpuBlockWilson<double> md(pr.u, pr.params);
  const CpuBlockWilson<float> mf(pr.u, pr.params);
  const double v = pr.lattice.volume();
  // n = 1 is the model of Alexandru et al. (arXiv:1103.5103, sec. 2): 384 reals per site, 3072 bytes in
  // double, 1536 in single, for 1368 flops per site.
  EXPECT_EQ(md.BytesPerApply(1), 3072 * v);
  EXPECT_EQ(mf.BytesPerApply(1), 1536 * v);
  EXPECT_EQ(md.FlopsPerApply(), 1368 * v);
  // Links are read once for the block: n vectors cost n single applications minus (n - 1) link reads.
  for (int n = 2; n <= 16; ++n) {
    EXPECT_EQ(md.BytesPerApply(n), n * md.BytesPerApply(1) - (n - 1) * 144 * 8 * v);
    const double intensity = n * md.FlopsPerApply() / md.BytesPerApply(n);
    const double previous = (n - 1) * md.FlopsPerApply() / md.BytesPerApply(n - 1);
    EXPECT_GT(intensity, previous);
    EXPECT_LT(intensity, 1368.0 / (240 * 8));  // the n -> infinity limit (spinor traffic only)
  }
  std::cout << "M<double> flop/byte: n=1 " << md.FlopsPerApply() / md.BytesPerApply(1) << ", n=4 "
            << 4 * md.FlopsPerApply() / md.BytesPerApply(4) << ", n=16 " << 16 * md.FlopsPerApply() / md.BytesPerApply(16)
            << ", limit " << 1368.0 / (240 * 8) << "\n";
  const CpuBlockWilsonSchur<double> schur(pr.u, pr.params);
  EXPECT_EQ(schur.BytesPerApply(1), (288 + 456) * 8 * v / 2);
  EXPECT_EQ(schur.FlopsPerApply(), (2 * 1320 + 48) * v / 2);
}

TEST(CpuBlockWilson, AliasingAndWrongShapesThrow) {
  const Problem pr(Lattice(4, 4, 4, 4));
  const CpuBlockWilson<double> m(pr.u, pr.params);
  std::vector<SpinorField<double>> a = GaussianBlock<double>(pr.lattice, Subset::kFull, 2, 1);
  std::vector<SpinorField<double>> out(2, SpinorField<double>(pr.lattice));
  EXPECT_THROW(m.ApplyBlock({&a[1], &out[0]}, {&a[0], &a[1]}), std::invalid_argument);  // out aliases an input
  EXPECT_THROW(m.ApplyBlock({&out[0], &out[0]}, {&a[0], &a[1]}), std::invalid_argument);  // repeated output
  EXPECT_THROW(m.ApplyBlock({&out[0]}, {&a[0], &a[1]}), std::invalid_argument);          // lengths differ
  SpinorField<double> even(pr.lattice, Subset::kEven);
  EXPECT_THROW(m.ApplyBlock({&out[0]}, {&even}), std::invalid_argument);
  const CpuBlockWilsonSchur<double> schur(pr.u, pr.params, Parity::kOdd);
  SpinorField<double> even_out(pr.lattice, Subset::kEven);
  EXPECT_THROW(schur.ApplyBlock({&even_out}, {&even}), std::invalid_argument);  // wrong parity
}

// ---------- block CG ----------

struct NormalFixture {
  Problem pr;
  CpuWilson<double> m;
  NormalOperator<CpuWilson<double>> a;
  CpuBlockWilson<double> block_m;
  BlockNormalOperator<CpuBlockWilson<double>> block_a;
  explicit NormalFixture(const Lattice& l) : pr(l), m(pr.u, pr.params), a(m), block_m(pr.u, pr.params), block_a(block_m) {}
};

TEST(BlockCg, EqualsSeparateCgSolvesSystemBySystem) {
  for (const Lattice& lattice : {Lattice(4, 4, 4, 4), Lattice(4, 4, 4, 8)}) {
    NormalFixture f(lattice);
    const int n = 4;
    const std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kFull, n, 40);
    std::vector<SpinorField<double>> x(n, SpinorField<double>(lattice));
    FillGaussian(x[2], 99);  // one system starts from a nonzero initial guess
    std::vector<SpinorField<double>> x_single = x;
    const BlockSolveResult r = BlockCg(f.block_a, x, b, Tolerance(1e-12));
    std::cout << r.Summary() << "\n";
    ASSERT_TRUE(r.all_converged()) << r.Summary();
    long long applications = 0;
    double single_bytes = 0;
    for (int k = 0; k < n; ++k) {
      SCOPED_TRACE("system " + std::to_string(k));
      const SolveResult single = ConjugateGradient(f.a, x_single[k], b[k], Tolerance(1e-12));
      // Same backend calls in the same order and a bit-identical operator: the same record and solution.
      EXPECT_EQ(r.systems[k].iterations, single.iterations);
      EXPECT_EQ(r.systems[k].restarts, single.restarts);
      EXPECT_EQ(r.systems[k].operator_applications, single.operator_applications);
      EXPECT_EQ(r.systems[k].true_residual, single.true_residual);
      EXPECT_EQ(r.systems[k].flops, single.flops);
      EXPECT_EQ(MaxAbsDifference(x[k], x_single[k]), 0.0);
      EXPECT_LE(r.systems[k].true_residual, 1e-12);
      applications += r.systems[k].operator_applications;
      single_bytes += r.systems[k].operator_applications * f.block_a.BytesPerApply(1);
    }
    // Every vector application went through a block application, and blocks were shared.
    EXPECT_EQ(r.vector_applications, applications);
    EXPECT_LT(r.block_applications, applications);
    EXPECT_GT(r.mean_block_size(), 1.0);
    EXPECT_LT(r.bytes, single_bytes);  // the gauge-field saving of the traffic model
  }
}

// The power-iterated vector v = A^20 b / |A^20 b| is dominated by the top of the spectrum of A = M^dag M,
// where CG converges fastest; the Gaussian sources are not. So the easy system stops first, and from then
// on it is frozen: its record and solution equal those of its single solve although the block carried on.
TEST(BlockCg, EachSystemStopsOnItsOwnCriterion) {
  NormalFixture f(Lattice(4, 4, 4, 4));
  std::vector<SpinorField<double>> b = GaussianBlock<double>(f.pr.lattice, Subset::kFull, 3, 50);
  SpinorField<double> tmp(f.pr.lattice);
  for (int i = 0; i < 20; ++i) {
    f.a.Apply(tmp, b[1]);
    Scale(Complex<double>(1 / std::sqrt(Norm2(tmp))), tmp);
    b[1] = tmp;
  }
  std::vector<SpinorField<double>> x(3, SpinorField<double>(f.pr.lattice));
  const std::vector<double> tolerances = {1e-12, 1e-12, 1e-6};  // system 2: its own, looser tolerance
  const BlockSolveResult r = BlockCg(f.block_a, x, b, Tolerance(1e-12), tolerances);
  std::cout << r.Summary() << "\n";
  ASSERT_TRUE(r.all_converged()) << r.Summary();
  EXPECT_LT(r.systems[1].iterations, r.systems[0].iterations);
  EXPECT_LT(r.systems[2].iterations, r.systems[0].iterations);
  EXPECT_LE(r.systems[2].true_residual, 1e-6);
  EXPECT_GT(r.systems[2].true_residual, 1e-12);  // it really stopped at its own tolerance
  for (int k = 1; k < 3; ++k) {
    SpinorField<double> single(f.pr.lattice);
    const SolveResult s = ConjugateGradient(f.a, single, b[k], Tolerance(tolerances[k]));
    EXPECT_EQ(r.systems[k].iterations, s.iterations);
    EXPECT_EQ(MaxAbsDifference(x[k], single), 0.0) << "system " << k << " was touched after it stopped";
  }
}

TEST(BlockCg, FailureStatusesAreReportedPerSystem) {
  NormalFixture f(Lattice(4, 4, 4, 4));
  std::vector<SpinorField<double>> b = GaussianBlock<double>(f.pr.lattice, Subset::kFull, 3, 60);
  {  // a tolerance below the double floor stagnates for that system only
    std::vector<SpinorField<double>> x(3, SpinorField<double>(f.pr.lattice));
    const BlockSolveResult r = BlockCg(f.block_a, x, b, Tolerance(1e-12), {1e-12, 1e-18, 1e-12});
    EXPECT_EQ(r.systems[0].status, SolveStatus::kConverged);
    EXPECT_EQ(r.systems[1].status, SolveStatus::kStagnation) << r.Summary();
    EXPECT_EQ(r.systems[2].status, SolveStatus::kConverged);
  }
  {  // max iterations, with honest residuals
    std::vector<SpinorField<double>> x(3, SpinorField<double>(f.pr.lattice));
    SolverParams p = Tolerance(1e-12);
    p.max_iterations = 5;
    const BlockSolveResult r = BlockCg(f.block_a, x, b, p);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(r.systems[k].status, SolveStatus::kMaxIterations);
      EXPECT_EQ(r.systems[k].iterations, 5);
      SpinorField<double> ax(f.pr.lattice);
      ApplyWilsonNormal(ax, f.pr.u, x[k], f.pr.params);
      EXPECT_NEAR(r.systems[k].true_residual, std::sqrt(Norm2(Difference(b[k], ax)) / Norm2(b[k])), 1e3 * kUDouble);
    }
  }
  {  // NaN in a source is bad input
    std::vector<SpinorField<double>> x(3, SpinorField<double>(f.pr.lattice));
    std::vector<SpinorField<double>> bad = b;
    bad[1][3](1, 1) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(BlockCg(f.block_a, x, bad, SolverParams{}), std::invalid_argument);
    EXPECT_THROW(BlockCg(f.block_a, x, b, SolverParams{}, {1e-12}), std::invalid_argument);  // 1 tolerance, 3 systems
    std::vector<SpinorField<double>> two(2, SpinorField<double>(f.pr.lattice));
    EXPECT_THROW(BlockCg(f.block_a, two, b, SolverParams{}), std::invalid_argument);
  }
  {  // NaN in the gauge field: every system kNotFinite
    Problem pr(Lattice(4, 4, 4, 4));
    pr.u.Link(3, 0)(2, 2) = std::numeric_limits<double>::quiet_NaN();
    const CpuBlockWilson<double> m(pr.u, pr.params);
    const BlockNormalOperator<CpuBlockWilson<double>> a(m);
    std::vector<SpinorField<double>> x(3, SpinorField<double>(pr.lattice));
    const BlockSolveResult r = BlockCg(a, x, b, SolverParams{});
    for (const SolveResult& s : r.systems) EXPECT_EQ(s.status, SolveStatus::kNotFinite) << r.Summary();
  }
  {  // an indefinite operator: non-positive curvature (cg_test.cc's construction), zero source handled
    SpinMatrix g = SpinMatrix::Zero();
    g.diagonal() << 1, -1, 1, -1;
    const testing::SpinMatrixOperator<> op(f.pr.lattice, Subset::kFull, g);
    const LoopedBlockOperator<testing::SpinMatrixOperator<>> a(op, 0.0);
    std::vector<SpinorField<double>> bb = {
        testing::UniformField(f.pr.lattice, Subset::kFull, SiteSpinor<double>::Ones()), SpinorField<double>(f.pr.lattice)};
    std::vector<SpinorField<double>> x(2, SpinorField<double>(f.pr.lattice));
    const BlockSolveResult r = BlockCg(a, x, bb, SolverParams{});
    EXPECT_EQ(r.systems[0].status, SolveStatus::kNonPositiveCurvature) << r.Summary();
    EXPECT_EQ(r.systems[1].status, SolveStatus::kConverged);  // zero source: x = 0
    EXPECT_EQ(r.systems[1].iterations, 0);
  }
}

// ---------- block BiCGstab ----------

TEST(BlockBiCGstab, EqualsSeparateBiCGstabSolvesOnTheSchurComplement) {
  for (const Lattice& lattice : {Lattice(4, 4, 4, 4), Lattice(4, 4, 4, 8)}) {
    const Problem pr(lattice, 32);
    const CpuWilsonSchur<double> schur(pr.u, pr.params, Parity::kEven);
    const CpuBlockWilsonSchur<double> block(pr.u, pr.params, Parity::kEven);
    const int n = 3;
    std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kEven, n, 70);
    std::vector<SpinorField<double>> x(n, SpinorField<double>(lattice, Subset::kEven));
    std::vector<SpinorField<double>> x_single = x;
    const BlockSolveResult r = BlockBiCGstab(block, x, b, Tolerance(1e-12), {1e-12, 1e-8, 1e-12});
    std::cout << r.Summary() << "\n";
    ASSERT_TRUE(r.all_converged()) << r.Summary();
    long long applications = 0;
    // Sparse LU of M_ee as ground truth, at 4^4 only (the factorisation costs ~1 s there, ~6 s at 4^3x8).
    std::optional<DirectWilsonSolver> direct;
    if (lattice.volume() == 256) direct.emplace(pr.u, pr.params, Parity::kEven);
    for (int k = 0; k < n; ++k) {
      SCOPED_TRACE("system " + std::to_string(k));
      if (direct) {
        // |x - x_lu| <= |M_ee^{-1}| (tol_k + e_lu) |b| with |M_ee^{-1}| <= 1 / (1 - 64 kappa^2) (testing.h) and
        // e_lu the LU solution's own residual, measured with the oracle's ApplySchur.
        const SpinorField<double> x_lu = direct->Solve(b[k]);
        SpinorField<double> m_x_lu(lattice, Subset::kEven);
        ApplySchur(m_x_lu, pr.u, x_lu, pr.params, Dagger::kNo);
        const double lu_residual = std::sqrt(Norm2(Difference(b[k], m_x_lu)) / Norm2(b[k]));
        ASSERT_LT(lu_residual, 1e-13);
        EXPECT_LE(std::sqrt(Norm2(Difference(x[k], x_lu))), testing::SchurInverseNormBound(0.12) *
                                                                 ((k == 1 ? 1e-8 : 1e-12) + lu_residual) *
                                                                 std::sqrt(Norm2(b[k])));
      }
      const SolveResult single = BiCGstab(schur, x_single[k], b[k], Tolerance(k == 1 ? 1e-8 : 1e-12));
      EXPECT_EQ(r.systems[k].iterations, single.iterations);
      EXPECT_EQ(r.systems[k].operator_applications, single.operator_applications);
      EXPECT_EQ(r.systems[k].true_residual, single.true_residual);
      EXPECT_EQ(MaxAbsDifference(x[k], x_single[k]), 0.0);
      applications += r.systems[k].operator_applications;
    }
    EXPECT_LT(r.systems[1].iterations, r.systems[0].iterations);  // the looser system stopped first
    EXPECT_EQ(r.vector_applications, applications);
    EXPECT_LT(r.block_applications, applications);
  }
}

// Block CGNR on M_ee: every system's record and solution equal Cgnr's for that system alone (the CPU block
// operator is bit for bit the single one, and each system runs the same verification loop), with its own
// tolerance (1e-8 for system 2), a zero source answered at once, and verification restarts where the normal
// equations' residual understates the true one.
TEST(BlockCgnr, EachSystemIsCgnrAlone) {
  const Lattice lattice(4, 4, 4, 8);
  Problem pr(lattice, 35);
  pr.params = WilsonParams::FromKappa(0.2);  // closer to critical: |M^dag r| < |r| by more, so CG restarts
  const CpuWilsonSchur<double> schur(pr.u, pr.params, Parity::kEven);
  const CpuBlockWilsonSchur<double> block(pr.u, pr.params, Parity::kEven);
  std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kEven, 4, 70);
  b[1] = SpinorField<double>(lattice, Subset::kEven);  // zero
  const std::vector<double> tolerances = {1e-12, 1e-12, 1e-8, 1e-13};
  std::vector<SpinorField<double>> x(b.size(), SpinorField<double>(lattice, Subset::kEven)), x_single = x;
  const BlockSolveResult r = BlockCgnr(block, x, b, Tolerance(1e-12), tolerances);
  std::cout << r.Summary() << "\n";
  int restarts = 0;
  long long applications = 0;
  for (std::size_t k = 0; k < b.size(); ++k) {
    SCOPED_TRACE("system " + std::to_string(k));
    const SolveResult single = Cgnr(schur, x_single[k], b[k], Tolerance(tolerances[k]));
    ASSERT_TRUE(r.systems[k].converged()) << r.systems[k].Summary();
    EXPECT_EQ(r.systems[k].iterations, single.iterations);
    EXPECT_EQ(r.systems[k].restarts, single.restarts);
    EXPECT_EQ(r.systems[k].operator_applications, single.operator_applications);
    EXPECT_EQ(r.systems[k].flops, single.flops);
    EXPECT_EQ(r.systems[k].true_residual, single.true_residual);
    EXPECT_EQ(r.systems[k].updates.size(), single.updates.size());
    EXPECT_EQ(MaxAbsDifference(x[k], x_single[k]), 0.0);
    restarts += r.systems[k].restarts;
    applications += r.systems[k].operator_applications;
  }
  EXPECT_EQ(r.systems[1].iterations, 0);
  EXPECT_LT(r.systems[2].iterations, r.systems[0].iterations);  // the looser system stopped first
  EXPECT_GT(restarts, 0) << "no verification restart: the loop's second branch went untested";
  EXPECT_LT(r.block_applications, applications);
}

// M_ee of one problem in double and single, for one system and for a block, and their normal operators: the
// operators of the mixed-precision block tests, each block one bit for bit its single counterpart.
struct MixedSchur {
  explicit MixedSchur(const Problem& pr)
      : schur(pr.u, pr.params, Parity::kEven), schur_low(pr.u, pr.params, Parity::kEven),
        block(pr.u, pr.params, Parity::kEven), block_low(pr.u, pr.params, Parity::kEven) {}
  const CpuWilsonSchur<double> schur;
  const CpuWilsonSchur<float> schur_low;
  const CpuBlockWilsonSchur<double> block;
  const CpuBlockWilsonSchur<float> block_low;
  const NormalOperator<CpuWilsonSchur<double>> normal{schur};
  const NormalOperator<CpuWilsonSchur<float>> normal_low{schur_low};
  const BlockNormalOperator<CpuBlockWilsonSchur<double>> block_normal{block};
  const BlockNormalOperator<CpuBlockWilsonSchur<float>> block_normal_low{block_low};
};

// A system's record in a block solve against the single solver's for that system alone: every count, the flops
// and the true residual equal.
void ExpectSameRecord(const SolveResult& block, const SolveResult& single) {
  ASSERT_TRUE(block.converged()) << block.Summary();
  EXPECT_EQ(block.iterations, single.iterations);
  EXPECT_EQ(block.krylov_iterations, single.krylov_iterations);
  EXPECT_EQ(block.restarts, single.restarts);
  EXPECT_EQ(block.high_precision_updates, single.high_precision_updates);
  EXPECT_EQ(block.operator_applications, single.operator_applications);
  EXPECT_EQ(block.low_precision_applications, single.low_precision_applications);
  EXPECT_EQ(block.flops, single.flops);
  EXPECT_EQ(block.true_residual, single.true_residual);
  EXPECT_EQ(block.updates.size(), single.updates.size());
}

// Four sources on the even sites, the second zero, and the tolerance of each (system 2 looser).
std::vector<SpinorField<double>> MixedTestSources(const Lattice& lattice, std::uint64_t seed) {
  std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kEven, 4, seed);
  b[1] = SpinorField<double>(lattice, Subset::kEven);
  return b;
}
const std::vector<double> kMixedTolerances = {1e-12, 1e-12, 1e-9, 1e-13};

// The mixed-precision block solvers, double outer and single inner, on M_ee (BiCGstab) or inside block CGNR on
// its normal operators (CG): every system's record and solution equal the single solver's for that system alone
// (BlockSolveCgnr against SolveCgnr with the same inner solver), each with its own tolerance and several
// reliable updates or corrections, a zero source answered at once, the looser system stopping first.
TEST(BlockMixedPrecision, EachSystemIsTheSingleSolverAlone) {
  const Lattice lattice(4, 4, 4, 8);
  const Problem pr(lattice, 43);
  const MixedSchur op(pr);
  const std::vector<SpinorField<double>> b = MixedTestSources(lattice, 170);
  using Fields = std::vector<SpinorField<double>>;
  using SingleSolve = std::function<SolveResult(SpinorField<double>&, const SpinorField<double>&, const SolverParams&)>;
  using BlockSolve = std::function<BlockSolveResult(Fields&, const Fields&, const SolverParams&,
                                                    const std::vector<double>&)>;
  struct Case {
    const char* name;
    bool cgnr;  // the solver runs inside (block) CGNR on the normal operators
    SingleSolve single;
    BlockSolve block;
  };
  SolverParams params = Tolerance(1e-12);
  params.delta = 0.1;
  params.inner_tolerance = 1e-3;
  const std::vector<Case> cases = {
      {"reliable-update BiCGstab", false,
       [&](auto& x, const auto& bb, const auto& p) { return ReliableBiCGstab(op.schur, op.schur_low, x, bb, p); },
       [&](auto& x, const auto& bb, const auto& p, const auto& t) {
         return BlockReliableBiCGstab(op.block, op.block_low, x, bb, p, t);
       }},
      {"reliable-update CG in CGNR", true,
       [&](auto& x, const auto& bb, const auto& p) { return ReliableCg(op.normal, op.normal_low, x, bb, p); },
       [&](auto& x, const auto& bb, const auto& p, const auto& t) {
         return BlockReliableCg(op.block_normal, op.block_normal_low, x, bb, p, t);
       }},
      {"defect correction with BiCGstab", false,
       [&](auto& x, const auto& bb, const auto& p) {
         return DefectCorrection(InnerSolver::kBiCGstab, op.schur, op.schur_low, x, bb, p);
       },
       [&](auto& x, const auto& bb, const auto& p, const auto& t) {
         return BlockDefectCorrection(InnerSolver::kBiCGstab, op.block, op.block_low, x, bb, p, t);
       }},
      {"defect correction with CG in CGNR", true,
       [&](auto& x, const auto& bb, const auto& p) {
         return DefectCorrection(InnerSolver::kCg, op.normal, op.normal_low, x, bb, p);
       },
       [&](auto& x, const auto& bb, const auto& p, const auto& t) {
         return BlockDefectCorrection(InnerSolver::kCg, op.block_normal, op.block_normal_low, x, bb, p, t);
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Fields x(b.size(), SpinorField<double>(lattice, Subset::kEven)), x_single = x;
    const BlockSolveResult r = c.cgnr ? BlockSolveCgnr(op.block, x, b, params, kMixedTolerances, c.name, c.block)
                                      : c.block(x, b, params, kMixedTolerances);
    std::cout << r.Summary() << "\n";
    for (std::size_t k = 0; k < b.size(); ++k) {
      SCOPED_TRACE("system " + std::to_string(k));
      SolverParams p = params;
      p.tolerance = kMixedTolerances[k];
      const SolveResult single = c.cgnr ? SolveCgnr(op.schur, x_single[k], b[k], p, c.name, c.single)
                                        : c.single(x_single[k], b[k], p);
      ExpectSameRecord(r.systems[k], single);
      EXPECT_EQ(MaxAbsDifference(x[k], x_single[k]), 0.0);
      if (k != 1) {
        EXPECT_GE(r.systems[k].updates.size(), 2u) << "fewer than two updates or corrections: the loop went untested";
      }
    }
    EXPECT_EQ(r.systems[1].iterations, 0);
    EXPECT_LT(r.systems[2].iterations, r.systems[0].iterations);  // the looser system stopped first
  }
}

void ExpectSameBlockSolve(const BlockSolveResult& hooked, const BlockSolveResult& plain,
                          const std::vector<SpinorField<double>>& x_hooked,
                          const std::vector<SpinorField<double>>& x_plain) {
  EXPECT_EQ(hooked.block_applications, plain.block_applications);
  EXPECT_EQ(hooked.vector_applications, plain.vector_applications);
  EXPECT_EQ(hooked.bytes, plain.bytes);
  for (std::size_t k = 0; k < plain.systems.size(); ++k) {
    SCOPED_TRACE("system " + std::to_string(k));
    ExpectSameRecord(hooked.systems[k], plain.systems[k]);
    EXPECT_EQ(MaxAbsDifference(x_hooked[k], x_plain[k]), 0.0);
  }
}

// A block operator with the optional ApplyCurvatureUpdateBlock (solvers/README.md), formed here as what the solvers do
// without it: ApplyBlock into its own q fields, the backend's ReDot and the deferred AxpyNorm of each system. Every
// record and solution must be the plain operator's bit for bit; a difference means a system got another's step, a
// residual was updated twice or not at all, or the step was counted otherwise. `calls` shows the solver took it.
template <typename BlockOp>
struct WithCurvatureUpdateBlock : BlockOp {
  using Field = typename BlockOp::Field;
  using B = typename BlockOp::Backend;
  explicit WithCurvatureUpdateBlock(const BlockOp& op) : BlockOp(op) {}
  std::vector<CurvatureUpdate<double>> ApplyCurvatureUpdateBlock(const std::vector<const Field*>& p,
                                                                 const std::vector<Field*>& r,
                                                                 const std::vector<double>& rr) const {
    ++calls;
    while (q_.size() < p.size()) q_.push_back(this->NewField());
    std::vector<Field*> q;
    for (std::size_t k = 0; k < p.size(); ++k) q.push_back(&q_[k]);
    this->ApplyBlock(q, p);
    std::vector<CurvatureUpdate<double>> steps;
    for (std::size_t k = 0; k < p.size(); ++k) {
      const double pAp = B::DeferredReDot(*p[k], *q[k]);
      const double alpha = rr[k] / pAp;
      steps.push_back({pAp, alpha, B::DeferredAxpyNorm(-alpha, *q[k], *r[k])});
    }
    return steps;
  }
  mutable int calls = 0;
  mutable std::vector<Field> q_;
};

TEST(BlockCg, AnOperatorsCurvatureUpdateBlockIsTakenSystemBySystem) {
  const Lattice lattice(4, 4, 4, 4);
  NormalFixture f(lattice);
  const WithCurvatureUpdateBlock<BlockNormalOperator<CpuBlockWilson<double>>> hooked(f.block_a);
  const std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kFull, 4, 42);
  std::vector<SpinorField<double>> x(4, SpinorField<double>(lattice));
  FillGaussian(x[2], 99);  // systems that stop at different iterations: the block shrinks
  std::vector<SpinorField<double>> x_plain = x;
  const std::vector<double> tolerances = {1e-12, 1e-9, 1e-12, 1e-10};
  const BlockSolveResult r = BlockCg(hooked, x, b, Tolerance(1e-12), tolerances);
  const BlockSolveResult plain = BlockCg(f.block_a, x_plain, b, Tolerance(1e-12), tolerances);
  EXPECT_GT(hooked.calls, 0);
  ExpectSameBlockSolve(r, plain, x, x_plain);
}

// The reliable-update CG takes the low operator's ApplyCurvatureUpdateBlock the same way (the defect correction's
// inner CG keeps the separate step).
TEST(BlockMixedPrecision, ReliableCgTakesTheLowOperatorsCurvatureUpdateBlock) {
  const Lattice lattice(4, 4, 4, 8);
  const Problem pr(lattice, 44);
  const MixedSchur op(pr);
  const WithCurvatureUpdateBlock<BlockNormalOperator<CpuBlockWilsonSchur<float>>> hooked_low(op.block_normal_low);
  const std::vector<SpinorField<double>> b = MixedTestSources(lattice, 172);
  SolverParams params = Tolerance(1e-12);
  params.delta = 0.1;
  using Fields = std::vector<SpinorField<double>>;
  Fields x(b.size(), SpinorField<double>(lattice, Subset::kEven)), x_plain = x;
  const BlockSolveResult r = BlockReliableCg(op.block_normal, hooked_low, x, b, params, kMixedTolerances);
  const BlockSolveResult plain =
      BlockReliableCg(op.block_normal, op.block_normal_low, x_plain, b, params, kMixedTolerances);
  EXPECT_GT(hooked_low.calls, 0);
  ExpectSameBlockSolve(r, plain, x, x_plain);
  for (std::size_t k = 0; k < r.systems.size(); ++k) {
    if (k != 1) {
      EXPECT_GE(r.systems[k].updates.size(), 2u) << "system " << k << ": the updates went untested";
    }
  }
}

// A block operator with the optional ApplyDotNormBlock (solvers/README.md), formed here as what the solvers do
// without it: ApplyBlock and the backend's deferred DotNorm of each system. Every record and solution must be the
// plain operator's bit for bit; a difference means a system got another's sums or the application was counted
// otherwise. `calls` shows the solver took it.
template <typename BlockOp>
struct WithDotNormBlock : BlockOp {
  using Field = typename BlockOp::Field;
  using B = typename BlockOp::Backend;
  explicit WithDotNormBlock(const BlockOp& op) : BlockOp(op) {}
  auto ApplyDotNormBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in,
                         const std::vector<const Field*>& w) const {
    ++calls;
    this->ApplyBlock(out, in);
    std::vector<decltype(B::DeferredDotNorm(*out[0], *w[0]))> sums;
    for (std::size_t k = 0; k < in.size(); ++k) sums.push_back(B::DeferredDotNorm(*out[k], *w[k]));
    return sums;
  }
  mutable int calls = 0;
};

// BlockBiCGstab, the block reliable-update BiCGstab (low operator) and the block defect correction with BiCGstab
// (low operator) take the hook for both applications of an iteration.
TEST(BlockBiCGstab, TheSolversTakeAnOperatorsDotNormBlockSystemBySystem) {
  const Lattice lattice(4, 4, 4, 8);
  const Problem pr(lattice, 45);
  const MixedSchur op(pr);
  const std::vector<SpinorField<double>> b = MixedTestSources(lattice, 173);
  using Fields = std::vector<SpinorField<double>>;
  {
    SCOPED_TRACE("BlockBiCGstab");
    const WithDotNormBlock<CpuBlockWilsonSchur<double>> hooked(op.block);
    Fields x(b.size(), SpinorField<double>(lattice, Subset::kEven)), x_plain = x;
    const BlockSolveResult r = BlockBiCGstab(hooked, x, b, Tolerance(1e-12), kMixedTolerances);
    const BlockSolveResult plain = BlockBiCGstab(op.block, x_plain, b, Tolerance(1e-12), kMixedTolerances);
    EXPECT_GT(hooked.calls, 0);
    ExpectSameBlockSolve(r, plain, x, x_plain);
  }
  const WithDotNormBlock<CpuBlockWilsonSchur<float>> hooked_low(op.block_low);
  SolverParams params = Tolerance(1e-12);
  params.delta = 0.1;
  params.inner_tolerance = 1e-3;
  for (const bool reliable : {true, false}) {
    SCOPED_TRACE(reliable ? "reliable-update BiCGstab" : "defect correction with BiCGstab");
    Fields x(b.size(), SpinorField<double>(lattice, Subset::kEven)), x_plain = x;
    const int calls_before = hooked_low.calls;
    const BlockSolveResult r =
        reliable ? BlockReliableBiCGstab(op.block, hooked_low, x, b, params, kMixedTolerances)
                 : BlockDefectCorrection(InnerSolver::kBiCGstab, op.block, hooked_low, x, b, params, kMixedTolerances);
    const BlockSolveResult plain =
        reliable ? BlockReliableBiCGstab(op.block, op.block_low, x_plain, b, params, kMixedTolerances)
                 : BlockDefectCorrection(InnerSolver::kBiCGstab, op.block, op.block_low, x_plain, b, params,
                                         kMixedTolerances);
    EXPECT_GT(hooked_low.calls, calls_before);
    ExpectSameBlockSolve(r, plain, x, x_plain);
  }
}

// The even-odd block driver: n full-lattice systems, each reduced to M_ee, one block BiCGstab, each
// reconstructed: every record and solution equal EvenOddBiCGstab's for that system alone (the CPU block operator
// is bit for bit the single one), and a zero source is answered at once without entering the block. The sources
// differ in shape so that their Schur tolerances (proportional to |b| / |b_e + kappa D_eo b_o|) differ by about
// 2x: a source on the even sites only gives ratio 1, a Gaussian one sqrt(2 / (1 + 16 kappa^2)) ~ 1.3, one on the
// odd sites only 1 / (kappa |D_eo b_o| / |b_o|) ~ 1 / (4 kappa) ~ 2.1 (random links: 8 hops, each projector
// keeping half the norm squared, |D b|^2 ~ 16 |b|^2); a driver that handed one system's tolerance to another
// would change that system's iterations against its separate solve.
TEST(SolveEvenOddBlock, EqualsSeparateEvenOddSolvesSystemBySystem) {
  const Lattice lattice(4, 4, 4, 8);
  const Problem pr(lattice, 33);
  const CpuWilson<double> m(pr.u, pr.params);
  const CpuWilsonSchur<double> schur(pr.u, pr.params, Parity::kEven);
  const CpuBlockWilsonSchur<double> block(pr.u, pr.params, Parity::kEven);
  std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kFull, 4, 90);
  b[2] = SpinorField<double>(lattice);  // zero
  for (int site = 0; site < lattice.volume(); ++site) {
    if (lattice.SiteParity(site) == Parity::kOdd) b[1][site].setZero();   // even sites only
    if (lattice.SiteParity(site) == Parity::kEven) b[3][site].setZero();  // odd sites only
  }
  std::vector<SpinorField<double>> x(b.size(), SpinorField<double>(lattice)), x_single = x;
  std::vector<double> schur_tolerances;
  const std::vector<SolveResult> r = SolveEvenOddBlock(
      schur, m, x, b, Tolerance(1e-11),
      [&](std::vector<SpinorField<double>>& xp, const std::vector<SpinorField<double>>& bp, const SolverParams& p,
          const std::vector<double>& tolerances) {
        schur_tolerances = tolerances;
        return BlockBiCGstab(block, xp, bp, p, tolerances);
      });
  ASSERT_EQ(schur_tolerances.size(), 3u) << "the zero source stays out of the block";
  // Block order: systems 0 (Gaussian), 1 (even sites), 3 (odd sites).
  EXPECT_LT(schur_tolerances[1], schur_tolerances[0]);
  EXPECT_LT(schur_tolerances[0], schur_tolerances[2]);
  EXPECT_GT(schur_tolerances[2], 1.5 * schur_tolerances[1]);
  for (std::size_t k = 0; k < b.size(); ++k) {
    SCOPED_TRACE("system " + std::to_string(k));
    const SolveResult single = EvenOddBiCGstab(schur, m, x_single[k], b[k], Tolerance(1e-11));
    ASSERT_TRUE(r[k].converged()) << r[k].Summary();
    EXPECT_EQ(r[k].iterations, single.iterations);
    EXPECT_EQ(r[k].true_residual, single.true_residual);
    EXPECT_EQ(MaxAbsDifference(x[k], x_single[k]), 0.0);
  }
  EXPECT_EQ(r[2].iterations, 0);
  std::vector<SpinorField<double>> one(1, SpinorField<double>(lattice));
  EXPECT_THROW(SolveEvenOddBlock(schur, m, one, b, Tolerance(1e-11),
                                 [&](auto&, const auto&, const auto&, const auto&) { return BlockSolveResult{}; }),
               std::invalid_argument);
}

// The even-odd block driver with block CGNR (what SolveBlockWithSpec runs for "cg"; its operator needs both
// the even-odd preparation and ApplyBlock, which on the CPU are two objects): each system equal to the even-odd
// CGNR solve of that system alone.
TEST(SolveEvenOddBlock, BlockCgnrSolvesEachSystemAsEvenOddCgnrAlone) {
  const Lattice lattice(4, 4, 4, 4);
  const Problem pr(lattice, 37);
  const CpuWilson<double> m(pr.u, pr.params);
  const CpuWilsonSchur<double> schur(pr.u, pr.params, Parity::kEven);
  const CpuBlockWilsonSchur<double> block(pr.u, pr.params, Parity::kEven);
  const std::vector<SpinorField<double>> b = GaussianBlock<double>(lattice, Subset::kFull, 3, 110);
  std::vector<SpinorField<double>> x(b.size(), SpinorField<double>(lattice)), x_single = x;
  const std::vector<SolveResult> r = SolveEvenOddBlock(
      schur, m, x, b, Tolerance(1e-11),
      [&](std::vector<SpinorField<double>>& xp, const std::vector<SpinorField<double>>& bp, const SolverParams& p,
          const std::vector<double>& tolerances) { return BlockCgnr(block, xp, bp, p, tolerances); });
  for (std::size_t k = 0; k < b.size(); ++k) {
    SCOPED_TRACE("system " + std::to_string(k));
    const SolveResult single = SolveEvenOdd(
        schur, m, x_single[k], b[k], Tolerance(1e-11),
        [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
          return Cgnr(schur, xp, bp, p);
        });
    ASSERT_TRUE(r[k].converged()) << r[k].Summary();
    EXPECT_EQ(r[k].iterations, single.iterations);
    EXPECT_EQ(r[k].true_residual, single.true_residual);
    EXPECT_EQ(MaxAbsDifference(x[k], x_single[k]), 0.0);
  }
}

TEST(BlockBiCGstab, FailureStatusesAreReportedPerSystem) {
  const Lattice lattice(4, 4, 4, 4);
  // J = [[0, -1], [1, 0]] on spin pairs (solvers/testing.h): a real source gives (r0, A p) = 0 at once, a
  // complex one does not. The breakdown of system 0 must not stop system 1.
  SpinMatrix j = SpinMatrix::Zero();
  j(0, 1) = -1;
  j(1, 0) = 1;
  j(2, 3) = -1;
  j(3, 2) = 1;
  const testing::SpinMatrixOperator<> op(lattice, Subset::kFull, j);
  const LoopedBlockOperator<testing::SpinMatrixOperator<>> a(op, 0.0);
  SpinorField<double> complex_source(lattice);
  FillGaussian(complex_source, 3);
  std::vector<SpinorField<double>> b = {testing::UniformField(lattice, Subset::kFull, SiteSpinor<double>::Ones()),
                                        complex_source};
  std::vector<SpinorField<double>> x(2, SpinorField<double>(lattice));
  const BlockSolveResult r = BlockBiCGstab(a, x, b, SolverParams{});
  EXPECT_EQ(r.systems[0].status, SolveStatus::kBreakdown) << r.Summary();
  EXPECT_EQ(r.systems[1].status, SolveStatus::kConverged) << r.Summary();
  {  // omega = 0 exactly for G = [[1, -1], [1, 0]] and b = (1, 0) per spin pair (solvers/testing.h)
    const SpinMatrix g = testing::OmegaBreakdownSpinMatrix();
    const testing::SpinMatrixOperator<> gop(lattice, Subset::kFull, g);
    const LoopedBlockOperator<testing::SpinMatrixOperator<>> ga(gop, 0.0);
    std::vector<SpinorField<double>> gb = {testing::OmegaBreakdownSource(lattice)};
    std::vector<SpinorField<double>> gx(1, SpinorField<double>(lattice));
    const BlockSolveResult gr = BlockBiCGstab(ga, gx, gb, SolverParams{});
    EXPECT_EQ(gr.systems[0].status, SolveStatus::kBreakdown) << gr.Summary();
    EXPECT_NE(gr.systems[0].reason.find("omega"), std::string::npos) << gr.systems[0].reason;
  }
  {  // max iterations
    const Problem pr(lattice);
    const CpuBlockWilson<double> m(pr.u, pr.params);
    std::vector<SpinorField<double>> bw = GaussianBlock<double>(lattice, Subset::kFull, 2, 80);
    std::vector<SpinorField<double>> xw(2, SpinorField<double>(lattice));
    SolverParams p;
    p.max_iterations = 2;
    const BlockSolveResult rw = BlockBiCGstab(m, xw, bw, p);
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(rw.systems[k].status, SolveStatus::kMaxIterations);
      EXPECT_NEAR(rw.systems[k].true_residual, testing::WilsonResidual(pr.u, pr.params, xw[k], bw[k]), 1e3 * kUDouble);
    }
    std::vector<SpinorField<double>> bad = bw;
    bad[0][0](0, 0) = std::numeric_limits<double>::infinity();
    EXPECT_THROW(BlockBiCGstab(m, xw, bad, p), std::invalid_argument);
  }
}

}  // namespace
}  // namespace lqcd::solvers
