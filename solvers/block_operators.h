// block_operators.h: operators applied to a block of n vectors at once (multiple right-hand sides), for
// any backend, and the result record of the block solvers (block_cg.h, block_bicgstab.h).
//
// A BLOCK OPERATOR is an ordinary operator (solvers/README.md: Backend, Precision, Field, Apply, NewField,
// FlopsPerApply, Name) with, in addition,
//   ApplyBlock(out, in)        out[k] = A in[k] for k = 0..n-1; `out` and `in` are std::vector<Field*> and
//                              std::vector<const Field*> of equal length; no out[k] may alias any in[j],
//                              the out[k] are distinct (throws std::invalid_argument otherwise)
//   ApplyDaggerBlock(out, in)  the same with A^dag (Dirac operators)
//   BytesPerApply(n)           memory traffic model of ONE block application to n vectors (bytes)
// FlopsPerApply() stays the flops of one vector, so a block application costs n * FlopsPerApply() flops.
// Why: the gauge field is the same for all n systems, so a native block kernel loads each link once per
// site for all n vectors (cpu_block_wilson.h; on the GPU the same interface is implemented by a kernel
// that keeps the link in registers while it visits n spinors), and the arithmetic intensity grows with n
// (Kaczmarek et al., "HISQ inverter on Intel Xeon Phi and NVIDIA GPUs", paper 003's multi-RHS part).
//
// Here:
//   LoopedBlockOperator<Op>      any operator as a block operator, applying it n times (no link reuse;
//                                BytesPerApply(n) = n * bytes_per_vector given at construction). The
//                                fallback for operators without a native block kernel and a test reference.
//   BlockNormalOperator<Dirac>   A = M^dag M on a block: ApplyBlock(M), then ApplyDaggerBlock(M^dag), through a
//                                scratch block of its own (not thread-safe; M must outlive it).
//   BlockSolveResult             per-system SolveResults plus the shared block-application counts.
#pragma once

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "solvers/solve_result.h"

namespace lqcd::solvers {

namespace block_detail {

// Throws unless out and in have the same length n >= 1, the out[k] are distinct and none is an input.
template <typename Field>
void CheckBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in, const std::string& where) {
  if (out.size() != in.size()) {
    throw std::invalid_argument(where + ": " + std::to_string(out.size()) + " outputs for " +
                                std::to_string(in.size()) + " inputs");
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k] == nullptr || in[k] == nullptr) throw std::invalid_argument(where + ": null field in the block");
    for (std::size_t j = 0; j < in.size(); ++j) {
      if (static_cast<const Field*>(out[k]) == in[j]) {
        throw std::invalid_argument(where + ": output " + std::to_string(k) + " aliases input " + std::to_string(j));
      }
      if (j < k && out[j] == out[k]) {
        throw std::invalid_argument(where + ": outputs " + std::to_string(j) + " and " + std::to_string(k) +
                                    " are the same field");
      }
    }
  }
}

}  // namespace block_detail

template <typename Op>
class LoopedBlockOperator {
 public:
  using Backend = typename Op::Backend;
  using Precision = typename Op::Precision;
  using Field = typename Op::Field;

  LoopedBlockOperator(const Op& a, double bytes_per_vector) : a_(a), bytes_per_vector_(bytes_per_vector) {}
  void Apply(Field& out, const Field& in) const { a_.Apply(out, in); }
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    block_detail::CheckBlock(out, in, Name() + "::ApplyBlock");
    for (std::size_t k = 0; k < in.size(); ++k) a_.Apply(*out[k], *in[k]);
  }
  template <typename O = Op>
  auto ApplyDaggerBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const
      -> decltype(std::declval<const O&>().ApplyDagger(*out[0], *in[0])) {
    block_detail::CheckBlock(out, in, Name() + "::ApplyDaggerBlock");
    for (std::size_t k = 0; k < in.size(); ++k) a_.ApplyDagger(*out[k], *in[k]);
  }
  template <typename O = Op>
  auto ApplyDagger(Field& out, const Field& in) const -> decltype(std::declval<const O&>().ApplyDagger(out, in)) {
    a_.ApplyDagger(out, in);
  }
  Field NewField() const { return a_.NewField(); }
  double FlopsPerApply() const { return a_.FlopsPerApply(); }
  double BytesPerApply(int n) const { return n * bytes_per_vector_; }
  std::string Name() const { return "looped[" + a_.Name() + "]"; }

 private:
  const Op& a_;
  double bytes_per_vector_;
};

template <typename Dirac>
class BlockNormalOperator {
 public:
  using Backend = typename Dirac::Backend;
  using Precision = typename Dirac::Precision;
  using Field = typename Dirac::Field;

  explicit BlockNormalOperator(const Dirac& m) : m_(m) {}
  void Apply(Field& out, const Field& in) const { ApplyBlock({&out}, {&in}); }
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    block_detail::CheckBlock(out, in, Name() + "::ApplyBlock");
    while (scratch_.size() < in.size()) scratch_.push_back(m_.NewField());
    std::vector<Field*> mid(in.size());
    std::vector<const Field*> mid_in(in.size());
    for (std::size_t k = 0; k < in.size(); ++k) {
      mid[k] = &scratch_[k];
      mid_in[k] = &scratch_[k];
    }
    m_.ApplyBlock(mid, in);
    m_.ApplyDaggerBlock(out, mid_in);
  }
  Field NewField() const { return m_.NewField(); }
  double FlopsPerApply() const { return 2 * m_.FlopsPerApply(); }
  double BytesPerApply(int n) const { return 2 * m_.BytesPerApply(n); }
  std::string Name() const { return m_.Name() + "^dag " + m_.Name(); }

 private:
  const Dirac& m_;
  mutable std::vector<Field> scratch_;
};

// The record of a block solve: one SolveResult per system (each counts its own vector applications,
// iterations, flops exactly as a single solve would), plus what the systems shared.
struct BlockSolveResult {
  std::string solver;                 // e.g. "block-CG<double> n=4"
  std::vector<SolveResult> systems;   // one per right-hand side, in the order given
  int block_applications = 0;         // calls of ApplyBlock (each serves every system that needed A)
  long long vector_applications = 0;  // sum over block applications of the block size
  double bytes = 0;                   // sum of BytesPerApply(block size) over block applications (model)
  double flops = 0;                   // operator + vector flops of all systems
  double seconds = 0;

  bool all_converged() const {
    return std::all_of(systems.begin(), systems.end(), [](const SolveResult& r) { return r.converged(); });
  }
  // Mean block size: vector applications per block application.
  double mean_block_size() const {
    return block_applications > 0 ? static_cast<double>(vector_applications) / block_applications : 0.0;
  }
  std::string Summary() const {
    std::ostringstream s;
    s << solver << ": " << systems.size() << " systems, " << block_applications << " block applications ("
      << vector_applications << " vector applications, mean block " << mean_block_size() << "), model traffic "
      << bytes << " bytes, " << flops << " flops in " << seconds << " s";
    for (std::size_t k = 0; k < systems.size(); ++k) s << "\n  [" << k << "] " << systems[k].Summary();
    return s.str();
  }
};

}  // namespace lqcd::solvers
