// benchmark_support.h (testonly): what the GPU benchmarks and experiments of the ladder, sweep and accuracy
// family share -- kernel timing, integer-list parsing, and fast host-side inputs for large lattices.
//
// Host-only header (no CUDA types).
//   MedianMilliseconds(n, run): event_timer.h's (included here): the median of n CUDA-event timings after a warm-up.
//   WallSeconds(run): the wall-clock seconds of run() (for work that waits for the device itself, or the host's).
//   MedianSolve(n, solve): one untimed call of `solve` (which returns a solvers::SolveResult; the call tunes
//       every kernel the solve launches), then n calls; returns the record with the median `seconds`.
//   ParseIntList(key, "8,16,24", lo, hi) / ParseIntList(key, "8:128:8", lo, hi) (first:last:step): the value of
//       flag --key, every integer parsed whole (command_line::ParseLong), each value (and first, last) in
//       [lo, hi], step >= 1; std::invalid_argument naming --key otherwise. (Lattices: command_line.h's
//       FlagSet::Extents / ParseExtents.)
//   ParallelFor(n, threads, body): body(0..n-1) on `threads` host threads; the first exception is rethrown.
//   ParallelRandomGaugeField(lattice, seed, threads): EXACTLY reference/su3_random.h's RandomGaugeField (same
//       per-link streams RandomStream(seed, 4 site + mu)), generated on several threads.
//   ParallelFillGaussian(field, seed, threads): EXACTLY reference/spinor_field.h's FillGaussian, in parallel.
//   ParallelRandomGaugeFieldPiece(global, local, offset, seed, threads), ParallelFillGaussianPiece(field, global,
//       offset, seed, threads): the block of those global fields whose site (0, 0, 0, 0) sits at `offset` of
//       `global`, with the extents of `local` (field.lattice()), each link and site drawn from the stream of its
//       GLOBAL index: a rank's share of one global field without the whole field (every offset + extent within
//       `global`). With local = global and a zero offset they are the two functions above.
//   UnitTemporalLinks(u): u with U_t(n) = 1 for every n with t < Lt - 1 (the last slice keeps its links): a
//       field in temporal gauge by construction, which the gauge-fixed kernels accept. It is a different gauge
//       field from u (not a gauge transform of it), fine for timing, where link values do not matter; tests
//       use reference/gauge_transform.h's TemporalGaugeFix instead.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu/event_timer.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "solvers/solve_result.h"

namespace lqcd::gpu {

double WallSeconds(const std::function<void()>& run);

template <typename Solve>
solvers::SolveResult MedianSolve(int repetitions, Solve&& solve) {
  (void)solve();
  std::vector<solvers::SolveResult> runs;
  for (int r = 0; r < repetitions; ++r) runs.push_back(solve());
  std::sort(runs.begin(), runs.end(),
            [](const solvers::SolveResult& a, const solvers::SolveResult& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

std::vector<int> ParseIntList(const std::string& key, const std::string& text, long lo, long hi);

void ParallelFor(int n, int threads, const std::function<void(int)>& body);
// Host threads to use by default: the cores this process may run on (reference/cli/machine_info.h UsableCores).
int DefaultThreads();

GaugeField<double> ParallelRandomGaugeField(const Lattice& lattice, std::uint64_t seed, int threads);
void ParallelFillGaussian(SpinorField<double>& field, std::uint64_t seed, int threads);
GaugeField<double> ParallelRandomGaugeFieldPiece(const Lattice& global, const Lattice& local,
                                                 const Coordinates& offset, std::uint64_t seed, int threads);
void ParallelFillGaussianPiece(SpinorField<double>& field, const Lattice& global, const Coordinates& offset,
                               std::uint64_t seed, int threads);
GaugeField<double> UnitTemporalLinks(const GaugeField<double>& u);

}  // namespace lqcd::gpu
