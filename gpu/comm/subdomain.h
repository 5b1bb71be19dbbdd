// subdomain.h: a rank's piece of a global field, and the global field put back together from the pieces.
// Host copies between oracle fields (reference/), for setting up and checking decomposed runs: every value
// is copied bit for bit, nothing is computed on it.
//
// Exports:
//   ScatterGauge(global, grid, rank)      the rank's local gauge field: local site n holds the global links
//                                         U_mu(offset + n) for all four mu.
//   ScatterSpinor(global, grid, rank)     the rank's local spinor field, same subset as `global` (full, even or
//                                         odd): local site n holds global site offset + n.
//   ScatterClover(global, grid, rank)     the rank's local clover term (reference/clover.h's T(n) and T(n)^{-1}
//                                         blocks): local site n holds global site offset + n's blocks; parameters
//                                         and spectral summary (condition, extreme eigenvalues) are the global
//                                         field's, so every rank sees the same bounds. T(n) is built from the four
//                                         plaquettes around n in every plane, which reach the links of the
//                                         neighbouring ranks: build the CloverField on the GLOBAL links, then
//                                         scatter it (a clover term built from ScatterGauge's local links would be
//                                         wrong on every face site).
//   InsertSpinor(global, local, grid, rank)  the inverse on one rank's sites: writes local site n into global
//                                         site offset + n; the other ranks' sites of `global` are untouched.
//   GatherSpinor(locals, grid, global)    the global field on lattice `global` from every rank's piece,
//                                         locals[r] = rank r's (InsertSpinor for each r into a zero field).
//   SpinorSubdomainMap(global, subset, grid)   the element maps of ScatterSpinor and GatherSpinor for one
//                                         global lattice, subset and grid, built once, for callers that move
//                                         many fields (the partitioned GPU solver moves two per solve) without
//                                         new whole-lattice fields: ScatterInto(global, rank, local) writes
//                                         ScatterSpinor's result into an existing local field, GatherInto(pieces,
//                                         global) GatherSpinor's into an existing global field from the ranks'
//                                         pieces laid out one after another in rank order (what an AllGather of
//                                         the local fields' storage gives). Both copy in parallel (OpenMP).
//
// Conventions:
//   - The local lattice is Lattice(grid.LocalExtents(L)) and offset = grid.Offset(rank, L) for the global
//     extents L (process_grid.h). Local coordinates n map to global coordinates offset + n, which never wrap:
//     0 <= offset_mu + n_mu < L_mu. The ranks' blocks tile the global lattice, so every global site belongs
//     to exactly one rank.
//   - Links: U_mu(n) is the link from n to n + mu (gauge_field.h). A rank gets the links that start on its own
//     sites; the one leaving its forward face in direction mu ends on the neighbour's backward face, whose
//     site values arrive by halo exchange (face_map.h). No halo is stored here.
//   - Single-parity spinor fields: a field of parity p scatters into local fields of the same parity p, and
//     the pieces of a gather must all have one parity. This is exact because local parity equals global
//     parity: ProcessGrid makes every local extent even, so every offset component is a multiple of an even
//     number and the offset sum is even (face_map.h's comment). Local checkerboard index i is local site
//     FullIndex(p, i) (lattice.h); its global site s has parity p, and its global checkerboard index is s / 2.
//
// Errors: std::invalid_argument naming the problem, thrown before anything is read or written:
//   a global lattice the grid does not split (ProcessGrid::LocalExtents's message), a rank outside
//   [0, grid.size()), a local field not on the rank's local lattice or of another subset than the global
//   field (InsertSpinor), a number of pieces other than grid.size(), or pieces of different subsets (Gather).
// Aliasing: harmless. InsertSpinor's two fields can be one object only on a 1x1x1x1 grid (otherwise their
//   lattices differ), where every site is copied onto itself.
#pragma once

#include <vector>

#include "gpu/comm/process_grid.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"

namespace lqcd::comm {

GaugeField<double> ScatterGauge(const GaugeField<double>& global, const ProcessGrid& grid, int rank);

CloverField<double> ScatterClover(const CloverField<double>& global, const ProcessGrid& grid, int rank);

SpinorField<double> ScatterSpinor(const SpinorField<double>& global, const ProcessGrid& grid, int rank);

void InsertSpinor(SpinorField<double>& global, const SpinorField<double>& local, const ProcessGrid& grid, int rank);

SpinorField<double> GatherSpinor(const std::vector<SpinorField<double>>& locals, const ProcessGrid& grid,
                                 const Lattice& global);

class SpinorSubdomainMap {
 public:
  SpinorSubdomainMap(const Lattice& global, Subset subset, const ProcessGrid& grid);
  const Lattice& global() const { return global_; }
  const Lattice& local() const { return local_; }
  Subset subset() const { return subset_; }
  int ranks() const { return static_cast<int>(elements_.size()); }
  // Elements (sites, or checkerboard sites for one parity) of one rank's local field.
  int local_elements() const { return static_cast<int>(elements_[0].size()); }

  // local = ScatterSpinor(global, grid, rank); global and local of this map's lattices and subset.
  void ScatterInto(const SpinorField<double>& global, int rank, SpinorField<double>& local) const;
  // global = GatherSpinor of the pieces: pieces[r * local_elements() + i] is rank r's local element i.
  void GatherInto(const SiteSpinor<double>* pieces, SpinorField<double>& global) const;
  // The global element (site, or checkerboard site for one parity) of rank r's local element i
  // (0 <= r < ranks(), 0 <= i < local_elements(); not checked).
  int GlobalElement(int rank, int local_element) const { return elements_[rank][local_element]; }

 private:
  Lattice global_, local_;
  Subset subset_;
  std::vector<std::vector<int>> elements_;  // [rank][local element] -> global element
};

}  // namespace lqcd::comm
