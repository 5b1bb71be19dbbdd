#include "gpu/comm/subdomain.h"

#include <stdexcept>
#include <string>

namespace lqcd::comm {
namespace {

// One rank's block of the global lattice: its local lattice and where its local origin sits.
struct Block {
  Lattice local;
  Coordinates offset;
};

// Checks the grid against the global lattice and the rank, then describes the rank's block. `where` names the
// caller in the messages.
Block BlockOf(const char* where, const Lattice& global, const ProcessGrid& grid, int rank) {
  if (rank < 0 || rank >= grid.size()) {
    throw std::invalid_argument(std::string(where) + ": rank " + std::to_string(rank) + " is not in the process grid " +
                                grid.ToString() + " (ranks 0.." + std::to_string(grid.size() - 1) + ")");
  }
  try {
    return Block{Lattice(grid.LocalExtents(global.extents())), grid.Offset(rank, global.extents())};
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(where) + ": " + e.what());
  }
}

// Global lexicographic site of every local lexicographic site of the block.
std::vector<int> GlobalSites(const Block& block, const Lattice& global) {
  std::vector<int> sites(block.local.volume());
  for (int site = 0; site < block.local.volume(); ++site) {
    Coordinates n = block.local.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) n[mu] += block.offset[mu];
    sites[site] = global.Index(n);
  }
  return sites;
}

// Global element (index into a SpinorField of `subset`) of every local element: the site itself for full
// fields, the checkerboard index for one parity. Local and global parity agree (subdomain.h); checked here,
// since a block with an odd offset sum would silently pair the wrong sites.
std::vector<int> GlobalElements(const Block& block, const Lattice& global, Subset subset) {
  const std::vector<int> sites = GlobalSites(block, global);
  if (subset == Subset::kFull) return sites;
  const Parity parity = subset == Subset::kEven ? Parity::kEven : Parity::kOdd;
  std::vector<int> elements(block.local.half_volume());
  for (int cb = 0; cb < block.local.half_volume(); ++cb) {
    const int site = sites[block.local.FullIndex(parity, cb)];
    if (global.SiteParity(site) != parity) {
      throw std::logic_error("subdomain: a local " + std::string(ToString(parity)) + " site is globally " +
                             ToString(global.SiteParity(site)) + " (block offset " + FormatCoordinates(block.offset) +
                             " has an odd sum)");
    }
    elements[cb] = Lattice::CheckerboardIndex(site);
  }
  return elements;
}

}  // namespace

GaugeField<double> ScatterGauge(const GaugeField<double>& global, const ProcessGrid& grid, int rank) {
  const Block block = BlockOf("ScatterGauge", global.lattice(), grid, rank);
  const std::vector<int> sites = GlobalSites(block, global.lattice());
  GaugeField<double> local(block.local);
  for (int site = 0; site < block.local.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) local.Link(site, mu) = global.Link(sites[site], mu);
  }
  return local;
}

CloverField<double> ScatterClover(const CloverField<double>& global, const ProcessGrid& grid, int rank) {
  const Block block = BlockOf("ScatterClover", global.lattice(), grid, rank);
  return CloverField<double>(global, block.local, GlobalSites(block, global.lattice()));
}

SpinorField<double> ScatterSpinor(const SpinorField<double>& global, const ProcessGrid& grid, int rank) {
  const Block block = BlockOf("ScatterSpinor", global.lattice(), grid, rank);
  const std::vector<int> elements = GlobalElements(block, global.lattice(), global.subset());
  SpinorField<double> local(block.local, global.subset());
  for (int i = 0; i < local.sites(); ++i) local[i] = global[elements[i]];
  return local;
}

namespace {

// InsertSpinor's checks, shared with GatherSpinor (which checks every piece before inserting any).
Block CheckInsert(const char* where, const SpinorField<double>& global, const SpinorField<double>& local,
                  const ProcessGrid& grid, int rank) {
  Block block = BlockOf(where, global.lattice(), grid, rank);
  if (local.lattice() != block.local) {
    throw std::invalid_argument(std::string(where) + ": rank " + std::to_string(rank) + "'s field is on a " +
                                local.lattice().ToString() + " lattice, but its block of " +
                                global.lattice().ToString() + " over process grid " + grid.ToString() + " is " +
                                block.local.ToString());
  }
  if (local.subset() != global.subset()) {
    throw std::invalid_argument(std::string(where) + ": rank " + std::to_string(rank) + "'s field is " +
                                ToString(local.subset()) + ", the global field " + ToString(global.subset()) +
                                " (local parity = global parity, so the subsets must match)");
  }
  return block;
}

void InsertChecked(SpinorField<double>& global, const SpinorField<double>& local, const Block& block) {
  const std::vector<int> elements = GlobalElements(block, global.lattice(), global.subset());
  for (int i = 0; i < local.sites(); ++i) global[elements[i]] = local[i];
}

}  // namespace

void InsertSpinor(SpinorField<double>& global, const SpinorField<double>& local, const ProcessGrid& grid, int rank) {
  const Block block = CheckInsert("InsertSpinor", global, local, grid, rank);
  InsertChecked(global, local, block);
}

SpinorField<double> GatherSpinor(const std::vector<SpinorField<double>>& locals, const ProcessGrid& grid,
                                 const Lattice& global) {
  if (static_cast<long long>(locals.size()) != grid.size()) {
    throw std::invalid_argument("GatherSpinor: " + std::to_string(locals.size()) + " pieces for the process grid " +
                                grid.ToString() + " of " + std::to_string(grid.size()) +
                                " ranks (one piece per rank, index = rank)");
  }
  SpinorField<double> out(global, locals[0].subset());
  std::vector<Block> blocks;
  blocks.reserve(locals.size());
  for (int rank = 0; rank < grid.size(); ++rank) {
    blocks.push_back(CheckInsert("GatherSpinor", out, locals[rank], grid, rank));
  }
  for (int rank = 0; rank < grid.size(); ++rank) InsertChecked(out, locals[rank], blocks[rank]);
  return out;
}

SpinorSubdomainMap::SpinorSubdomainMap(const Lattice& global, Subset subset, const ProcessGrid& grid)
    : global_(global), local_(BlockOf("SpinorSubdomainMap", global, grid, 0).local), subset_(subset) {
  elements_.reserve(grid.size());
  for (int rank = 0; rank < grid.size(); ++rank) {
    elements_.push_back(GlobalElements(BlockOf("SpinorSubdomainMap", global, grid, rank), global, subset));
  }
}

void SpinorSubdomainMap::ScatterInto(const SpinorField<double>& global, int rank, SpinorField<double>& local) const {
  if (global.lattice() != global_ || global.subset() != subset_ || local.lattice() != local_ ||
      local.subset() != subset_) {
    throw std::invalid_argument("SpinorSubdomainMap::ScatterInto: fields " + global.lattice().ToString() + " " +
                                ToString(global.subset()) + " -> " + local.lattice().ToString() + " " +
                                ToString(local.subset()) + ", the map " + global_.ToString() + " -> " +
                                local_.ToString() + " " + ToString(subset_));
  }
  if (rank < 0 || rank >= ranks()) {
    throw std::invalid_argument("SpinorSubdomainMap::ScatterInto: rank " + std::to_string(rank) + " of " +
                                std::to_string(ranks()));
  }
  const std::vector<int>& elements = elements_[rank];
  const int n = local_elements();
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) local[i] = global[elements[i]];
}

void SpinorSubdomainMap::GatherInto(const SiteSpinor<double>* pieces, SpinorField<double>& global) const {
  if (global.lattice() != global_ || global.subset() != subset_) {
    throw std::invalid_argument("SpinorSubdomainMap::GatherInto: global field " + global.lattice().ToString() + " " +
                                ToString(global.subset()) + ", the map's " + global_.ToString() + " " +
                                ToString(subset_));
  }
  const long long n = local_elements();
  const long long total = n * ranks();
#pragma omp parallel for schedule(static)
  for (long long k = 0; k < total; ++k) global[elements_[k / n][k % n]] = pieces[k];
}

}  // namespace lqcd::comm
