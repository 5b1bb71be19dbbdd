// cpu_clover_test: the CPU backend's Wilson-clover operators (cpu_clover.h): the even-odd driver's contract
// for both Schur forms, and the float and half operators bit for bit against the oracle's float operator.
#include "solvers/cpu_clover.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "reference/clover.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "solvers/cpu_backend.h"

namespace lqcd::solvers {
namespace {

TEST(CpuCloverTest, SchurOperatorsSolveTheFullSystemThroughTheEvenOddDriver) {
  // The even-odd driver's contract: |b - M x| <= c |b'_p - M_pp x_p| with c = FullResidualPerSchurResidual().
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 81, 0.4);
  CloverParams p;
  p.mass = 0.1;
  p.c_sw = 1.2;
  SpinorField<double> b(lattice);
  FillGaussian(b, 3);
  const CpuClover<double> m(u, p);
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    const CpuCloverSchur<double> schur(u, p, form);
    SpinorField<double> x(lattice);
    FillGaussian(x, 4);  // any x_p: the relation holds for every x_p, not only solutions
    SpinorField<double> bp = schur.NewField(), xp = schur.NewField(), r = schur.NewField();
    schur.PrepareSource(bp, b);
    schur.RestrictGuess(xp, x);
    schur.Apply(r, xp);
    const double schur_residual = std::sqrt(Norm2(Difference(bp, r)));
    schur.Reconstruct(x, xp, b);
    SpinorField<double> mx(lattice);
    m.Apply(mx, x);
    const double full_residual = std::sqrt(Norm2(Difference(b, mx)));
    const double c = schur.FullResidualPerSchurResidual();
    // O(1) quantities, a few hundred roundings each.
    if (form == CloverSchurForm::kComplement) {
      EXPECT_NEAR(full_residual, schur_residual, 1e-12 * full_residual) << ToString(form);
    } else {
      EXPECT_LE(full_residual, c * schur_residual * (1 + 1e-12)) << ToString(form);
      EXPECT_GT(c, 4 + p.mass - 1);  // ||T|| is about 4 + m
    }
    EXPECT_GT(schur_residual, 1);  // a random x_p is far from the solution
  }
  // The float and half operators are the oracle's float clover Schur operator, bit for bit: float on float
  // links; half on 16-bit fixed-point links, applied to the dequantised input and quantised on output.
  const CpuCloverSchur<double> sd(u, p, CloverSchurForm::kComplement);
  const CpuCloverSchur<float> sf(u, p, CloverSchurForm::kComplement);
  const CpuCloverSchur<Half> sh(u, p, CloverSchurForm::kComplement);
  SpinorField<double> in = sd.NewField(), out = sd.NewField();
  FillGaussian(in, 9);
  SpinorField<float> in_f = sf.NewField(), out_f = sf.NewField(), expect_f = sf.NewField();
  CpuBackend::Convert(in_f, in);
  sf.Apply(out_f, in_f);
  const GaugeField<float> u_f = ConvertGaugeField<float>(u);
  ApplyCloverSchur(expect_f, u_f, CloverField<float>(u_f, p), in_f, CloverSchurForm::kComplement, Dagger::kNo);
  EXPECT_EQ(MaxAbsDifference(out_f, expect_f), 0);
  HalfSpinorField in_h = sh.NewField(), out_h = sh.NewField(), expect_h = sh.NewField();
  CpuBackend::Convert(in_h, in);
  sh.Apply(out_h, in_h);
  const GaugeField<float> u_h = cpu_detail::GaugeIn<Half>(u);
  SpinorField<float> dequantised = sf.NewField(), applied = sf.NewField();
  for (int i = 0; i < in_h.sites(); ++i) dequantised[i] = in_h.Load(i);
  ApplyCloverSchur(applied, u_h, CloverField<float>(u_h, p), dequantised, CloverSchurForm::kComplement, Dagger::kNo);
  for (int i = 0; i < applied.sites(); ++i) expect_h.Store(i, applied[i]);
  float half_vs_float = 0;
  for (int i = 0; i < out_h.sites(); ++i) {
    ASSERT_EQ(out_h.Load(i), expect_h.Load(i)) << i;
    half_vs_float = std::max(half_vs_float, (out_h.Load(i) - out_f[i]).cwiseAbs().maxCoeff());
  }
  EXPECT_GT(half_vs_float, 0);  // the half operator is really quantised
  EXPECT_THROW(sd.Apply(out, out), std::invalid_argument);
  SpinorField<double> odd(lattice, Subset::kOdd);
  EXPECT_THROW(sd.Apply(odd, in), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::solvers
