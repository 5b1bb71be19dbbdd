// mpi_communicator_check: the multi-rank test of MpiCommunicator, run under mpirun by
// mpi_communicator_test.py (and by hand: gpu/comm/README.md).
//
// On every rank, for the process grid --grid and the global lattice --lattice:
//   1. neighbour maps: the grid's Neighbour agrees with grid coordinates +-1 (periodic), and an exchange of
//      rank numbers in every (mu, side) delivers exactly the rank the grid names as the opposite neighbour;
//   2. halo exchange: every face (mu, side, parity) is sent with, per site, a code (rank, mu, side, parity,
//      position) and the site's global coordinates; the ghost must hold exactly the sender's codes, and each
//      ghost site must be the global neighbour (one step beyond my face, periodic) of the face site it
//      belongs to, with the opposite global parity (face_map.h's contract, checked across real ranks);
//   3. deterministic sums: per-rank values made of 1e16, 1 and -1e16 (where the order of addition changes
//      the result) must equal the rank-order sum bit for bit, on every rank, in each of --repetitions calls.
//   4. all-gather: every rank's bytes (a distinct pattern per rank and byte) arrive on every rank in rank
//      order, for 0, 1, 7 and 4099 bytes per rank; ranks passing different sizes are refused on every rank.
// Each rank prints its mismatches; the failure count is summed over ranks, so every rank exits 1 together
// if any rank failed. Bad input (a grid that does not fit the lattice or the rank count) is refused on
// every rank with one line and status 1, before any communication.
//
// The dead-rank test (--die-rank=R): rank R prints one line saying so and stops without MPI_Finalize, by
// std::abort() (--die-how=abort, a crash) or _exit(1) (--die-how=exit, a silent exit), in the middle of the
// halo exchanges (--die-in=halo: after the neighbour check, before the first halo exchange) or of the
// repeated sums (--die-in=sum: before repetition repetitions / 2). The other ranks are then blocked in an
// MPI call waiting for it; mpirun must end the whole job with a non-zero status (mpi_communicator.h says
// which Open MPI behaviour that relies on).
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <vector>

#include "gpu/comm/face_map.h"
#include "gpu/comm/mpi_communicator.h"
#include "reference/cli/command_line.h"

namespace lqcd::comm {
namespace {

constexpr int kPayload = 5;  // per site: code, then the four global coordinates

// Where and how --die-rank stops its rank (see the file comment).
enum class DieIn { kHalo, kSum };
enum class DieHow { kAbort, kExit };
struct DeathPlan {
  int rank = -1;  // -1: nobody dies
  DieIn in = DieIn::kHalo;
  DieHow how = DieHow::kAbort;
};

// A distinct, exactly representable code for every (rank, mu, side, parity, position).
double Code(int rank, int mu, Side side, Parity parity, int position, int face_sites) {
  const long long id = ((static_cast<long long>(rank) * kDims + mu) * 2 + static_cast<int>(side)) * 2 +
                       static_cast<int>(parity);
  return static_cast<double>(id * face_sites + position);
}

class Checker {
 public:
  Checker(MpiCommunicator& comm, const Coordinates& global, const DeathPlan& death)
      : comm_(comm),
        global_(global),
        local_(comm.grid().LocalExtents(global)),
        offset_(comm.grid().Offset(comm.rank(), global)),
        local_lattice_(local_),
        death_(death) {}

  int failures() const { return failures_; }

  void CheckNeighbours() {
    const ProcessGrid& grid = comm_.grid();
    const Coordinates me = grid.CoordsOf(comm_.rank());
    for (int mu = 0; mu < kDims; ++mu) {
      for (const Side side : {Side::kBackward, Side::kForward}) {
        Coordinates expected = me;
        expected[mu] = (me[mu] + (side == Side::kForward ? 1 : -1) + grid.dim(mu)) % grid.dim(mu);
        const int neighbour = grid.Neighbour(comm_.rank(), mu, side);
        Expect(grid.CoordsOf(neighbour) == expected, "Neighbour(mu=" + std::to_string(mu) + ", " + ToString(side) +
                                                         ") = rank " + std::to_string(neighbour) + " at " +
                                                         FormatCoordinates(grid.CoordsOf(neighbour)));
        Expect(grid.Neighbour(neighbour, mu, Opposite(side)) == comm_.rank(), "Neighbour is not reversible");
        const int sent = comm_.rank();
        int received = -1;
        comm_.Exchange(mu, side, &sent, &received, sizeof(int));
        const int sender = grid.Neighbour(comm_.rank(), mu, Opposite(side));
        Expect(received == sender, "Exchange(mu=" + std::to_string(mu) + ", " + ToString(side) + ") delivered rank " +
                                       std::to_string(received) + ", expected rank " + std::to_string(sender));
      }
    }
  }

  void CheckHaloExchange() {
    DieIfPlanned(DieIn::kHalo, "between the neighbour check and the first halo exchange");
    for (int mu = 0; mu < kDims; ++mu) {
      const FaceMap faces(local_, mu);
      const int n = faces.sites_per_parity();
      for (const Side side : {Side::kBackward, Side::kForward}) {
        const int sender = comm_.grid().Neighbour(comm_.rank(), mu, Opposite(side));
        for (const Parity parity : {Parity::kEven, Parity::kOdd}) {
          std::vector<double> send(static_cast<std::size_t>(n) * kPayload), ghost(send.size(), -1.0);
          const std::vector<int>& face = faces.Face(side, parity);
          for (int k = 0; k < n; ++k) {
            send[kPayload * k] = Code(comm_.rank(), mu, side, parity, k, n);
            const Coordinates g = Global(face[k], parity);
            for (int nu = 0; nu < kDims; ++nu) send[kPayload * k + 1 + nu] = g[nu];
          }
          comm_.Exchange(mu, side, send.data(), ghost.data(), send.size() * sizeof(double));
          // What arrived is the ghost of my face (Opposite(side), Opposite(parity)).
          const Side my_side = Opposite(side);
          const Parity my_parity = FaceMap::SourceParity(parity);
          const std::vector<int>& mine = faces.Face(my_side, my_parity);
          const std::string where = "halo mu=" + std::to_string(mu) + " sent " + ToString(side) + " " +
                                    lqcd::ToString(parity) + ": ghost position ";
          for (int k = 0; k < n; ++k) {
            const double code = ghost[kPayload * k];
            const double expected_code = Code(sender, mu, side, parity, k, n);
            if (!Expect(code == expected_code, where + std::to_string(k) + " holds code " + Str(code) +
                                                   ", expected " + Str(expected_code))) {
              continue;
            }
            // The ghost site is one step beyond my face site, outward, wrapping around the global lattice.
            Coordinates expected_site = Global(mine[k], my_parity);
            const int step = my_side == Side::kForward ? 1 : -1;
            expected_site[mu] = (expected_site[mu] + step + global_[mu]) % global_[mu];
            Coordinates got{};
            for (int nu = 0; nu < kDims; ++nu) got[nu] = static_cast<int>(ghost[kPayload * k + 1 + nu]);
            Expect(got == expected_site, where + std::to_string(k) + " is global site " + FormatCoordinates(got) +
                                             ", expected " + FormatCoordinates(expected_site));
            Expect(GlobalParity(got, {0, 0, 0, 0}) != GlobalParity(Global(mine[k], my_parity), {0, 0, 0, 0}),
                   where + std::to_string(k) + ": ghost and face site have the same global parity");
          }
        }
      }
    }
  }

  void CheckDeterministicSums(int repetitions) {
    // Element i of rank r's partial is 1e16, 3 or -1e16 (cycling with r + i), scaled by 1 + r/4. Doubles
    // near 1e16 are 2 apart or more, so the small terms are rounded away or not depending on when they meet
    // the large ones: the order of addition shows up in the bits.
    const double pattern[3] = {1e16, 3.0, -1e16};
    const int size = comm_.size(), count = 6;
    std::vector<std::vector<double>> all(size, std::vector<double>(count));
    for (int r = 0; r < size; ++r) {
      for (int i = 0; i < count; ++i) all[r][i] = pattern[(r + i) % 3] * (1.0 + 0.25 * r);
    }
    // Written out here rather than through SumInRankOrder, so that a wrong order there cannot cancel.
    std::vector<double> expected = all[0];
    for (int r = 1; r < size; ++r) {
      for (int i = 0; i < count; ++i) expected[i] += all[r][i];
    }
    if (size >= 3) {
      // Guard against a vacuous test: with 3 or more ranks the patterns must tell rank order from the
      // reverse order or from a pairwise tree (what a reduction tree would do). (Two numbers add the same
      // either way, so with 2 ranks no pattern can.)
      const std::vector<std::vector<double>> reversed(all.rbegin(), all.rend());
      const std::vector<double> reverse_sum = SumInRankOrder(reversed);
      std::vector<std::vector<double>> tree = all;
      while (tree.size() > 1) {
        std::vector<std::vector<double>> next;
        for (std::size_t k = 0; k < tree.size(); k += 2) {
          next.push_back(k + 1 < tree.size() ? SumInRankOrder({tree[k], tree[k + 1]}) : tree[k]);
        }
        tree = next;
      }
      const bool order_sensitive = std::memcmp(reverse_sum.data(), expected.data(), count * sizeof(double)) != 0 ||
                                   std::memcmp(tree[0].data(), expected.data(), count * sizeof(double)) != 0;
      Expect(order_sensitive, "the sum patterns are not order-sensitive (the test would be vacuous)");
    }
    for (int rep = 0; rep < repetitions; ++rep) {
      if (rep == repetitions / 2) DieIfPlanned(DieIn::kSum, "before sum repetition " + std::to_string(rep));
      const std::vector<double> sum = comm_.SumDeterministic(all[comm_.rank()]);
      Expect(sum.size() == expected.size() && std::memcmp(sum.data(), expected.data(), count * sizeof(double)) == 0,
             "SumDeterministic (vector) repetition " + std::to_string(rep) + " differs from the rank-order sum");
      const double scalar = comm_.SumDeterministic(all[comm_.rank()][0]);
      Expect(std::memcmp(&scalar, &expected[0], sizeof(double)) == 0,
             "SumDeterministic (scalar) repetition " + std::to_string(rep) + " = " + Str(scalar) + ", expected " +
                 Str(expected[0]));
    }
  }

  void CheckAllGather() {
    const int size = comm_.size();
    auto byte_of = [](int rank, std::size_t i) { return static_cast<unsigned char>((rank * 131 + i * 7 + 1) & 0xff); };
    for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4099}}) {
      std::vector<unsigned char> local(bytes), all(bytes * size + 1, 0xee);
      for (std::size_t i = 0; i < bytes; ++i) local[i] = byte_of(comm_.rank(), i);
      comm_.AllGather(local.data(), bytes, all.data());
      int wrong = 0;
      for (int r = 0; r < size; ++r) {
        for (std::size_t i = 0; i < bytes; ++i) wrong += all[r * bytes + i] != byte_of(r, i);
      }
      Expect(wrong == 0, "AllGather of " + std::to_string(bytes) + " bytes per rank: " + std::to_string(wrong) +
                             " bytes differ from the senders'");
      Expect(all[bytes * size] == 0xee, "AllGather of " + std::to_string(bytes) + " bytes wrote past the end");
    }
    if (size > 1) {
      // Rank 0 passes one byte more than the others: every rank must refuse, none may hang.
      std::vector<unsigned char> local(9, 1), all(9 * size, 0);
      std::string error;
      try {
        comm_.AllGather(local.data(), comm_.rank() == 0 ? 9 : 8, all.data());
      } catch (const std::invalid_argument& e) {
        error = e.what();
      }
      Expect(error.find("AllGather: the ranks pass different sizes (from 8 to 9 bytes)") != std::string::npos,
             "AllGather with different sizes: expected a refusal on every rank, got '" + error + "'");
    }
  }

 private:
  // The dead-rank test: the planned rank stops here without MPI_Finalize while the others go on into MPI
  // calls that need it. The line goes out first (one write, flushed), so the job's output says who died why.
  void DieIfPlanned(DieIn in, const std::string& where) const {
    if (death_.rank != comm_.rank() || death_.in != in) return;
    const bool crash = death_.how == DieHow::kAbort;
    std::cerr << "mpi_communicator_check: rank " + std::to_string(comm_.rank()) + " of " +
                     std::to_string(comm_.size()) + ": --die-rank: stopping " + where + " with " +
                     (crash ? "std::abort()" : "_exit(1)") + ", without MPI_Finalize\n"
              << std::flush;
    if (crash) std::abort();
    _exit(1);
  }

  Coordinates Global(int cb_index, Parity parity) const {
    const Coordinates local = local_lattice_.Coords(local_lattice_.FullIndex(parity, cb_index));
    Coordinates g{};
    for (int nu = 0; nu < kDims; ++nu) g[nu] = local[nu] + offset_[nu];
    return g;
  }

  static std::string Str(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
  }

  bool Expect(bool ok, const std::string& what) {
    if (!ok) {
      ++failures_;
      if (failures_ <= 20) {
        // One write per line, so that the ranks' lines do not interleave mid-line on the shared stderr.
        const std::string line =
            "rank " + std::to_string(comm_.rank()) + " of " + std::to_string(comm_.size()) + ": MISMATCH: " + what + "\n";
        std::cerr << line << std::flush;
      }
    }
    return ok;
  }

  MpiCommunicator& comm_;
  Coordinates global_, local_, offset_;
  Lattice local_lattice_;
  DeathPlan death_;
  int failures_ = 0;
};

int Run(int argc, char** argv) {
  std::string grid_text = "1x1x1x1";
  Coordinates global{4, 4, 4, 8};
  int repetitions = 10;
  command_line::FlagSet flags("mpi_communicator_check",
                              "Checks MpiCommunicator on every rank (run it under mpirun; exit 1 on any mismatch).");
  flags.String("grid", &grid_text, "PXxPYxPZxPT", "the process grid; its product must be the number of ranks");
  flags.Extents("lattice", &global, "the global lattice split over the grid");
  flags.Int("repetitions", &repetitions, 1, 1000, "how many times each deterministic sum is repeated");
  DeathPlan death;
  flags.Section("The dead-rank test");
  flags.Int("die-rank", &death.rank, -1, INT_MAX, "this rank stops mid-check without MPI_Finalize "
            "(-1: none); the job must end with a non-zero status instead of hanging");
  flags.Choice("die-in", &death.in, {{"halo", DieIn::kHalo}, {"sum", DieIn::kSum}},
               "where --die-rank stops: before the halo exchanges or halfway through the repeated sums");
  flags.Choice("die-how", &death.how, {{"abort", DieHow::kAbort}, {"exit", DieHow::kExit}},
               "how --die-rank stops: std::abort() (a crash, SIGABRT) or _exit(1) (a silent exit)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  const ProcessGrid grid = ProcessGrid::Parse("grid", grid_text);
  // Every rank refuses a bad decomposition here, identically, before any message is sent.
  grid.LocalExtents(global);
  if (death.rank >= grid.size()) {
    throw std::invalid_argument("--die-rank=" + std::to_string(death.rank) + " is not a rank of the process grid " +
                                grid.ToString() + " (0.." + std::to_string(grid.size() - 1) + ")");
  }
  MpiCommunicator comm(grid);

  Checker checker(comm, global, death);
  checker.CheckNeighbours();
  checker.CheckHaloExchange();
  checker.CheckDeterministicSums(repetitions);
  checker.CheckAllGather();
  const double total = comm.SumDeterministic(static_cast<double>(checker.failures()));
  if (total != 0) {
    if (comm.rank() == 0) std::cerr << "mpi_communicator_check: FAILED: " << total << " mismatches" << std::endl;
    return 1;
  }
  if (comm.rank() == 0) {
    std::cout << "mpi_communicator_check: OK: " << comm.size() << " ranks, grid " << grid.ToString() << ", lattice "
              << FormatCoordinates(global) << ", local " << FormatCoordinates(grid.LocalExtents(global)) << std::endl;
  }
  return 0;
}

}  // namespace
}  // namespace lqcd::comm

int main(int argc, char** argv) {
  using lqcd::comm::MpiCommunicator;
  lqcd::comm::MpiSession session(&argc, &argv);
  const std::string prefix = "mpi_communicator_check: rank " + std::to_string(session.world_rank()) + " of " +
                             std::to_string(session.world_size()) + ": error: ";
  try {
    return lqcd::comm::Run(argc, argv);
  } catch (const std::invalid_argument& e) {
    // Bad input: every rank sees the same input and throws the same error before communicating, so each
    // one reports it and leaves through MPI_Finalize; no rank is left waiting.
    std::cerr << prefix + e.what() + "\n" << std::flush;
    return 1;
  } catch (const std::exception& e) {
    // Anything else may have hit one rank only, while the others wait in a collective: stop them all.
    std::cerr << prefix + e.what() + "\n" << std::flush;
    MpiCommunicator::AbortJob(1);
  }
}
