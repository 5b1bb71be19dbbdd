// spec_solve.h: the one place where a SolverSpec (solver_spec.h) becomes a solve. Written once, generic in
// the backend: the CPU oracle and the GPU instantiate it with their own operators.
//
//   SolveWithSpec(spec, M, schur, low, x, b)
//     M      the double full-lattice operator (its Field is the full double field)
//     schur  the double even-odd (Schur) operator of the same action, with PrepareSource / Reconstruct
//     low    a callable: low(PrecisionTag<P>{}) returns (a reference to) the Schur operator in precision P,
//            P = float or Half, in spec.inner's link storage; it is called only for mixed solvers, once,
//            with the spec's inner precision (so a backend builds only the operator that is used).
//            MakeLowSchurOperators<SchurOf>(make) is such a callable for a backend whose Schur operator
//            in precision P is SchurOf<P>: it calls make(PrecisionTag<P>{}) -> std::unique_ptr<SchurOf<P>>
//            on first use and keeps the operator.
//     x, b   full-lattice double fields; x is the initial guess on entry (zero for a fresh field)
//   Returns the even-odd driver's record (even_odd.h): the full system's true residual, recomputed with M.
//
// What runs for each solver of the spec (solvers/README.md describes the algorithms):
//   cg                 SolveEvenOdd + Cgnr on the Schur matrix
//   bicgstab           EvenOddBiCGstab
//   cg-dc              SolveEvenOdd + SolveCgnr with DefectCorrection(CG) on the normal operators
//   bicgstab-dc        SolveEvenOdd + DefectCorrection(BiCGstab) on the Schur operators
//   cg-reliable        SolveEvenOdd + SolveCgnr with ReliableCg on the normal operators
//   bicgstab-reliable  SolveEvenOdd + ReliableBiCGstab on the Schur operators
//
//   SolveBlockWithSpec(spec, M, schur, low, x, b)
//     the n systems M x_k = b_k (vectors of full-lattice double fields) as ONE lockstep block: the even-odd
//     reduction of each (SolveEvenOddBlock), the n Schur systems by BlockBiCGstab (block_bicgstab.h),
//     BlockCgnr (block_cgnr.h), BlockReliableBiCGstab / BlockDefectCorrection, or BlockSolveCgnr with
//     BlockReliableCg / BlockDefectCorrection inside (block_reliable_update.h, block_defect_correction.h, with
//     low(tag) as the inner block operator, as SolveWithSpec) on schur's ApplyBlock / ApplyDaggerBlock: every
//     spec, each system the same algorithm as SolveWithSpec runs for it, every operator application shared.
//     One record per system.
// Gauge fixing (spec.temporal_gauge) is the caller's business: it hands in operators on the fixed links and
// transforms source and solution (the operators cannot tell).
// Errors: spec.Validate()'s std::invalid_argument; then those of the algorithms.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "solvers/block_bicgstab.h"
#include "solvers/block_cgnr.h"
#include "solvers/block_defect_correction.h"
#include "solvers/block_reliable_update.h"
#include "solvers/defect_correction.h"
#include "solvers/even_odd.h"
#include "solvers/normal_equations.h"
#include "solvers/operators.h"
#include "solvers/precision.h"
#include "solvers/reliable_update.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::solvers {

template <typename P>
struct PrecisionTag {
  using type = P;
};

// See the file comment.
template <template <typename> class SchurOf, typename Make>
class LowSchurOperators {
 public:
  explicit LowSchurOperators(Make make) : make_(std::move(make)) {}
  template <typename P>
  const SchurOf<P>& operator()(PrecisionTag<P> tag) {
    std::unique_ptr<SchurOf<P>>& slot = std::get<std::unique_ptr<SchurOf<P>>>(operators_);
    if (!slot) slot = make_(tag);
    return *slot;
  }

 private:
  Make make_;
  std::tuple<std::unique_ptr<SchurOf<float>>, std::unique_ptr<SchurOf<Half>>> operators_;
};

template <template <typename> class SchurOf, typename Make>
LowSchurOperators<SchurOf, Make> MakeLowSchurOperators(Make make) {
  return LowSchurOperators<SchurOf, Make>(std::move(make));
}

namespace detail {

// The Schur solve of a mixed-precision spec with the low operator `low`.
template <typename Schur, typename Low>
SolveResult SolveSchurMixed(const SolverSpec& spec, const Schur& schur, const Low& low, typename Schur::Field& x_p,
                            const typename Schur::Field& b_p, const SolverParams& params) {
  const bool reliable = spec.scheme == MixedScheme::kReliableUpdate;
  if (spec.krylov == KrylovMethod::kBiCGstab) {
    if (reliable) return ReliableBiCGstab(schur, low, x_p, b_p, params);
    return DefectCorrection(InnerSolver::kBiCGstab, schur, low, x_p, b_p, params);
  }
  // CGNR: the mixed solver runs on the normal operators X^dag X of both precisions.
  const NormalOperator<Schur> a(schur);
  const NormalOperator<Low> a_low(low);
  const std::string inner = std::string(reliable ? "ReliableCG<double," : "DefectCorrection-CG<double,") +
                            PrecisionTraits<typename Low::Precision>::kName + "> " + spec.ParameterName() + "=" +
                            Num(spec.parameter);
  return SolveCgnr(schur, x_p, b_p, params, inner,
                   [&](typename Schur::Field& xx, const typename Schur::Field& bn, const SolverParams& p) {
                     if (reliable) return ReliableCg(a, a_low, xx, bn, p);
                     return DefectCorrection(InnerSolver::kCg, a, a_low, xx, bn, p);
                   });
}

}  // namespace detail

template <typename Full, typename Schur, typename LowFactory>
SolveResult SolveWithSpec(const SolverSpec& spec, const Full& M, const Schur& schur, LowFactory&& low,
                          typename Full::Field& x, const typename Full::Field& b) {
  static_assert(std::is_same_v<typename Full::Precision, double> && std::is_same_v<typename Schur::Precision, double>,
                "the outer operators of a spec solve are double");
  spec.Validate();
  const SolverParams params = spec.Params();
  using Field = typename Full::Field;
  auto schur_solve = [&](auto&& solve) { return SolveEvenOdd(schur, M, x, b, params, solve); };
  if (!spec.mixed()) {
    if (spec.krylov == KrylovMethod::kBiCGstab) {
      return schur_solve([&](Field& xp, const Field& bp, const SolverParams& p) { return BiCGstab(schur, xp, bp, p); });
    }
    return schur_solve([&](Field& xp, const Field& bp, const SolverParams& p) { return Cgnr(schur, xp, bp, p); });
  }
  auto mixed = [&](auto tag) {
    const auto& low_op = low(tag);
    return schur_solve([&](Field& xp, const Field& bp, const SolverParams& p) {
      return detail::SolveSchurMixed(spec, schur, low_op, xp, bp, p);
    });
  };
  if (spec.inner.precision == OperatorPrecision::kSingle) return mixed(PrecisionTag<float>{});
  return mixed(PrecisionTag<Half>{});
}

template <typename Full, typename Schur, typename LowFactory>
std::vector<SolveResult> SolveBlockWithSpec(const SolverSpec& spec, const Full& M, const Schur& schur, LowFactory&& low,
                                            std::vector<typename Full::Field>& x,
                                            const std::vector<typename Full::Field>& b) {
  static_assert(std::is_same_v<typename Full::Precision, double> && std::is_same_v<typename Schur::Precision, double>,
                "the outer operators of a spec solve are double");
  spec.Validate();
  using Field = typename Full::Field;
  auto block_solve = [&](auto&& solve) { return SolveEvenOddBlock(schur, M, x, b, spec.Params(), solve); };
  if (!spec.mixed()) {
    return block_solve([&](std::vector<Field>& xp, const std::vector<Field>& bp, const SolverParams& p,
                           const std::vector<double>& tolerances) {
      if (spec.krylov == KrylovMethod::kBiCGstab) return BlockBiCGstab(schur, xp, bp, p, tolerances);
      return BlockCgnr(schur, xp, bp, p, tolerances);
    });
  }
  const bool reliable = spec.scheme == MixedScheme::kReliableUpdate;
  auto mixed = [&](auto tag) {
    const auto& low_op = low(tag);
    using Low = std::decay_t<decltype(low_op)>;
    return block_solve([&](std::vector<Field>& xp, const std::vector<Field>& bp, const SolverParams& p,
                           const std::vector<double>& tolerances) {
      if (spec.krylov == KrylovMethod::kBiCGstab) {
        if (reliable) return BlockReliableBiCGstab(schur, low_op, xp, bp, p, tolerances);
        return BlockDefectCorrection(InnerSolver::kBiCGstab, schur, low_op, xp, bp, p, tolerances);
      }
      // CGNR: the mixed solver on the normal operators of both precisions (as SolveWithSpec).
      const BlockNormalOperator<Schur> a(schur);
      const BlockNormalOperator<Low> a_low(low_op);
      const std::string inner = std::string(reliable ? "ReliableCG<double," : "DefectCorrection-CG<double,") +
                                PrecisionTraits<typename Low::Precision>::kName + "> " + spec.ParameterName() + "=" +
                                detail::Num(spec.parameter);
      return BlockSolveCgnr(schur, xp, bp, p, tolerances, inner,
                            [&](std::vector<Field>& xx, const std::vector<Field>& bn, const SolverParams& pp,
                                const std::vector<double>& tol) {
                              if (reliable) return BlockReliableCg(a, a_low, xx, bn, pp, tol);
                              return BlockDefectCorrection(InnerSolver::kCg, a, a_low, xx, bn, pp, tol);
                            });
    });
  };
  if (spec.inner.precision == OperatorPrecision::kSingle) return mixed(PrecisionTag<float>{});
  return mixed(PrecisionTag<Half>{});
}

}  // namespace lqcd::solvers
