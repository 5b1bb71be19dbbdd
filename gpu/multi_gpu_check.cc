// multi_gpu_check: the multi-GPU Wilson and Wilson-clover code on real ranks, run under mpirun with one rank per
// GPU; multi_gpu_check_test.py runs it over several grids, and by hand (add --allow-run-as-root as root):
//
//     bazel build //gpu:multi_gpu_check
//     mpirun -np 4 bazel-bin/gpu/multi_gpu_check --grid=1x1x2x2 --lattice=8x8x8x16
//     mpirun -np 4 bazel-bin/gpu/multi_gpu_check --grid=1x1x2x2 --lattice=32x32x32x64 --benchmark
//     mpirun -np 2 bazel-bin/gpu/multi_gpu_check --grid=1x1x1x2 --lattice=32x32x32x64 --benchmark
//         --solver=bicgstab-reliable:half/12:0.1 --kappa=0.15 --tolerance=1e-10      (one command line)
//
// Every rank builds the same global inputs (random links and sources from fixed seeds) and takes its piece
// with gpu/comm/subdomain.h; the global results it compares against are computed by the same rank on its
// own GPU on the whole (small) lattice, so every comparison is between two computations of one machine.
//   a. Dslash: for every precision (double, single, half) x reconstruction (18, 12, 8) x temporal gauge
//      fixing (no, yes) x dagger x xpay x output parity, PartitionedWilsonDslash on the local fields equals
//      ApplyWilsonDslash(Xpay) on the global lattice restricted to this rank's sites BIT FOR BIT (downloaded
//      in the device's UKQCD basis, so no arithmetic on the way; outputs poisoned with NaN first).
//   b. M_pp: DeviceSchurOperator on the partitioned Dslash equals the global one bit for bit (M, M^dag and
//      M^dag M, both parities), in double and half, every reconstruction.
//   c. Solves of M x = b at --kappa on Haar-random links, to a relative residual of 1e-12, through the
//      solvers' spec path (solvers/spec_solve.h) on the partitioned operators with global reductions
//      (blas::SetReductionCommunicator): "cg" (CGNR on M_ee), "bicgstab", and the mixed
//      "bicgstab-reliable:half/12:0.1". Asserted: the solver converged; every rank ended with the same
//      iteration count and the same bits of its residual (every rank sees the same global scalars, so all
//      take the same path); the gathered solution's TRUE residual |b - M x| / |b|, recomputed on the host
//      with the CPU oracle on the global lattice, is within the bound derived at HostBound; and on one rank
//      (no face exchanged, one-rank sums return the local partial) the solve is bit for bit the single-GPU
//      solve. Printed, not asserted: the iteration count of the same solve on one GPU on the global lattice
//      (rank 0 runs it). With several ranks the global reductions sum per-rank partials in rank order, a
//      different summation order from one GPU's, so the iterates differ by roundings and the counts may
//      differ by about one (double) or one per reliable update (mixed); gpu_backend_test.cc derives why.
//      With the global sums on the devices (--global-sums=device, the default with one GPU per rank: NCCL
//      all-gathers the partials, a kernel adds them in rank order, device_rank_sum.h), every solve runs twice,
//      its sums through the host and on the devices, and the two must agree BIT FOR BIT (iterations, residual,
//      this rank's solution).
//   d. Clover Dslash: the clover term T = (4 + m) + A (c_sw = 1 at --kappa) built on the GLOBAL links by the
//      oracle, each rank's piece scattered (subdomain.h ScatterClover); for every precision with 12-real links
//      x T or T^{-1} x epilogue (C D in, a C x + b D in, a x + b C D in; the last for D only) x dagger x
//      output parity, PartitionedWilsonDslash::ApplyClover on the local fields equals ApplyCloverDslash on the
//      global lattice restricted to this rank's sites BIT FOR BIT (as a.).
//   e. Clover solve: "bicgstab" in double to 1e-12 on the Schur complement form through the partitioned
//      SolveWithSpecOnGpu clover overload (spec_solver.h), asserted as the solves of c.: converged, the same
//      iterations and residual bits on every rank, the true residual |b - M x| / |b| recomputed on the host
//      with the oracle's clover operator (reference/clover.h) on the global lattice within the bound of
//      CloverHostBound, and on one rank bit for bit the single-GPU solve.
// Each check prints one OK or MISMATCH line from rank 0 (the failures summed over ranks); a failing rank
// prints its own mismatches. Exit status 1 on every rank if any check failed anywhere.
//
// --benchmark (instead of the checks): at --lattice, on this rank's piece of one global random gauge field (the
// same global field on every grid: each link drawn from a stream keyed by its global index), for each of
// --precisions with --reconstruct, the partitioned Dslash (out_even = D in_odd) and M_ee (two Dslash calls and
// two exchanges) against the plain kernels on the same local lattice (its local periodic wrap: no exchange),
// each the median of --repetitions calls (benchmark_support.h), and where one partitioned call's time goes
// (PartitionedWilsonDslash::TimeOneCall, medians of 30 calls, csv_timeline lines; none on grid 1x1x1x1,
// which partitions nothing). Per rank: local volume, time per call, GFLOPS
// (1320 flops per site for the Dslash, 2 x 1320 + 48 for M_ee, on V_local / 2 sites), face bytes per Dslash
// (PartitionedWilsonDslash::FaceBytesPerCall, sent; as many received); rank 0 prints every rank's line, an
// aggregate (summed GFLOPS, slowest rank) and one CSV line per rank and configuration. With --solver=SPEC, then
// the solve of M x = b (a global Gaussian source) at --kappa to --tolerance: on one rank through the single-GPU
// operators every program uses (fused dot products, no global sums), on several through the partitioned ones
// with global sums; one untimed solve, the median of --solve-repetitions; rank 0 prints the iterations, the
// slowest rank's seconds and the Gflop/s per GPU (the solver's flop count on the local lattice), and a
// csv_solve line.
//
// Devices (gpu/rank_device.h, shared with experiments/pion): rank -> local rank on its node
// (OMPI_COMM_WORLD_LOCAL_RANK, or MPI_Comm_split_type when the launcher does not set it) modulo the device count. More ranks on a node than GPUs is refused unless
// --share-gpu is given (then several ranks share a GPU: right for checks, meaningless for timings).
// --transport names how faces travel (partitioned_dslash.h's HaloTransport): "device" (device-to-device copies,
// CUDA IPC within a node; the default, measured much faster) or "host" (staged through pinned host memory and MPI).
// Bad input (flags, a grid that does not tile the lattice, an odd local extent, a rank count other than the
// grid's, too few GPUs, no GPU) is refused on every rank with one line and status 1, before any GPU work.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/blas.h"
#include "gpu/comm/mpi_communicator.h"
#include "gpu/comm/subdomain.h"
#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_rank_sum.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/oracle_comparison.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/rank_device.h"
#include "gpu/schur_operator.h"
#include "gpu/spec_solver.h"
#include "gpu/wilson_dslash.h"
#include "reference/cli/command_line.h"
#include "reference/clover.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/spec_solve.h"
#include "solvers/testing.h"

namespace lqcd::gpu {
namespace {

using comm::MpiCommunicator;
using comm::ProcessGrid;

constexpr double kUd = 0x1p-53;
constexpr double kA = 1.25, kB = -0.375;  // dyadic: exact in every precision
constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
constexpr std::uint64_t kSeed = 20240611;
// The checks' fermion boundary (the default of every operator) and no self-partitioned direction.
const FermionBoundary kBoundary = FermionBoundary::AntiperiodicTime();
constexpr std::array<bool, 4> kNoSelf = {false, false, false, false};

struct Options {
  std::string grid_text = "1x1x1x1";
  Coordinates global{8, 8, 8, 16};
  bool share_gpu = false;
  HaloTransport transport = HaloTransport::kDevice;
  bool device_sums = true;  // --global-sums=device (the default without --share-gpu)
  double kappa = 0.12;
  double tolerance = 1e-12;
  bool benchmark = false;
  std::vector<Precision> precisions{Precision::kDouble, Precision::kSingle, Precision::kHalf};
  Reconstruct reconstruct = Reconstruct::k12;
  int repetitions = 100;
  std::string solver;  // --benchmark: the solve timed after the operators (empty: none)
  int solve_repetitions = 3;
};

// ---- MPI beyond the Communicator: gathers to rank 0 for printing and for the host check ----

void MpiCheck(int code, const char* call) {
  if (code != MPI_SUCCESS) throw comm::MpiError(call, code);
}

// Every rank's `line`, in rank order, on rank 0 (empty on the others).
std::vector<std::string> GatherLines(const std::string& line, int rank, int size) {
  const int length = static_cast<int>(line.size());
  std::vector<int> lengths(size), offsets(size);
  MpiCheck(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<char> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(std::max(total, 1));
  }
  MpiCheck(MPI_Gatherv(line.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                       MPI_COMM_WORLD),
           "MPI_Gatherv");
  std::vector<std::string> lines;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) lines.emplace_back(all.data() + offsets[r], lengths[r]);
  }
  return lines;
}

// Rank 0: the global field from every rank's local piece (subdomain.h's GatherSpinor); the others: nothing.
std::optional<SpinorField<double>> GatherToRoot(const SpinorField<double>& local, const ProcessGrid& grid,
                                                const Lattice& global, int rank) {
  static_assert(sizeof(SiteSpinor<double>) == 24 * sizeof(double), "a site is 24 contiguous doubles");
  const int count = 24 * local.sites();
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(count) * grid.size() : 1);
  MpiCheck(MPI_Gather(local.data().data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD),
           "MPI_Gather");
  if (rank != 0) return std::nullopt;
  std::vector<SpinorField<double>> locals;
  for (int r = 0; r < grid.size(); ++r) {
    locals.emplace_back(local.lattice(), local.subset());
    // A SiteSpinor is 12 complex doubles in one array (no other state): its bytes are its value.
    std::memcpy(static_cast<void*>(locals.back().data().data()), all.data() + static_cast<std::size_t>(r) * count,
                count * sizeof(double));
  }
  return comm::GatherSpinor(locals, grid, global);
}

// ---- the checks ----

class Checker {
 public:
  explicit Checker(MpiCommunicator& comm) : comm_(comm) {}

  bool Expect(bool ok, const std::string& what) {
    if (!ok) {
      ++failures_;
      if (failures_ <= 20) {
        // One write per line, so that the ranks' lines do not interleave mid-line on the shared stderr.
        std::cerr << "multi_gpu_check: rank " + std::to_string(comm_.rank()) + " of " + std::to_string(comm_.size()) +
                         ": MISMATCH: " + what + "\n"
                  << std::flush;
      }
    }
    return ok;
  }

  // Ends one check: its failures summed over ranks, one line from rank 0.
  void Conclude(const std::string& check, const std::string& what) {
    const double total = comm_.SumDeterministic(static_cast<double>(failures_));
    if (comm_.rank() == 0) {
      if (total == 0) {
        std::cout << "multi_gpu_check: " << check << ": OK: " << what << std::endl;
      } else {
        std::cout << "multi_gpu_check: " << check << ": MISMATCH: " << total << " failures over all ranks (" << what
                  << ")" << std::endl;
      }
    }
    if (total != 0) ++failed_checks_;
    failures_ = 0;
  }

  int failed_checks() const { return failed_checks_; }

 private:
  MpiCommunicator& comm_;
  int failures_ = 0;
  int failed_checks_ = 0;
};

// Sites whose values differ in any bit (both fields downloaded in the device basis).
int DifferingSites(const SpinorField<double>& a, const SpinorField<double>& b) {
  if (a.lattice() != b.lattice() || a.subset() != b.subset()) return a.sites() + b.sites();
  int differing = 0;
  for (int i = 0; i < a.sites(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(a[i])) != 0) ++differing;
  }
  return differing;
}

struct Setup {
  MpiCommunicator& comm;
  const Options& options;
  Lattice global, local;
  const DeviceRankSum* device_sums;  // null: the global sums go through the host
  int rank() const { return comm.rank(); }
  const ProcessGrid& grid() const { return comm.grid(); }
};

// Expects this rank's output to be the global output restricted to this rank, bit for bit.
void ExpectRestriction(const Setup& s, Checker& checker, const DeviceSpinorField& global_out,
                       const DeviceSpinorField& local_out, const std::string& what) {
  const SpinorField<double> expected =
      comm::ScatterSpinor(global_out.Download(GammaBasis::kUkqcd), s.grid(), s.rank());
  const int differing = DifferingSites(expected, local_out.Download(GammaBasis::kUkqcd));
  checker.Expect(differing == 0, what + ": " + std::to_string(differing) + " of " +
                                     std::to_string(s.local.half_volume()) + " local sites differ");
}

std::string VariantName(Precision precision, Reconstruct reconstruct, bool gauge_fixed, Parity out, Dagger dagger,
                        bool xpay) {
  return DslashVariant{precision, reconstruct, gauge_fixed, dagger, xpay}.Name() + " out " + ToString(out);
}

void CheckDslash(const Setup& s, Checker& checker) {
  int cases = 0;
  for (const bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(s.global, kSeed + gauge_fixed, gauge_fixed);
    const GaugeField<double> u_local = comm::ScatterGauge(u, s.grid(), s.rank());
    SpinorField<double> in(s.global), x(s.global);
    FillGaussian(in, kSeed + 10);
    FillGaussian(x, kSeed + 11);
    const SpinorField<double> in_local = comm::ScatterSpinor(in, s.grid(), s.rank());
    const SpinorField<double> x_local = comm::ScatterSpinor(x, s.grid(), s.rank());
    for (const Precision precision : kPrecisions) {
      for (const Reconstruct reconstruct : kReconstructions) {
        const GaugeLayout layout{precision, reconstruct, gauge_fixed, 0};
        const DeviceGaugeField gauge(u, layout), gauge_local(u_local, layout);
        const PartitionedWilsonDslash dslash(gauge_local, s.comm, kBoundary, kNoSelf, s.options.transport);
        DeviceSpinorField g_in(s.global, Subset::kFull, precision), g_x(s.global, Subset::kFull, precision);
        DeviceSpinorField l_in(s.local, Subset::kFull, precision), l_x(s.local, Subset::kFull, precision);
        g_in.Upload(in);
        g_x.Upload(x);
        l_in.Upload(in_local);
        l_x.Upload(x_local);
        for (const Parity p : {Parity::kEven, Parity::kOdd}) {
          DeviceSpinorField g_out(s.global, SubsetOf(p), precision), l_out(s.local, SubsetOf(p), precision);
          for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
            for (const bool xpay : {false, true}) {
              g_out.FillBytes(0xff);  // NaN: a site that no kernel writes fails
              l_out.FillBytes(0xff);
              if (xpay) {
                ApplyWilsonDslashXpay(g_out.View(), gauge, g_in.View(Opposite(p)), dagger, g_x.View(p), kA, kB);
                dslash.ApplyXpay(l_out.View(), l_in.View(Opposite(p)), dagger, l_x.View(p), kA, kB);
              } else {
                ApplyWilsonDslash(g_out.View(), gauge, g_in.View(Opposite(p)), dagger);
                dslash.Apply(l_out.View(), l_in.View(Opposite(p)), dagger);
              }
              ExpectRestriction(s, checker, g_out, l_out,
                                "Dslash " + VariantName(precision, reconstruct, gauge_fixed, p, dagger, xpay));
              ++cases;
            }
          }
        }
      }
    }
  }
  checker.Conclude("a. Dslash", std::to_string(cases) +
                                    " variants (precision x links x gauge fixing x dagger x xpay x parity), "
                                    "partitioned = global restricted to each rank, bit for bit");
}

void CheckSchur(const Setup& s, Checker& checker) {
  int cases = 0;
  const GaugeField<double> u = testing::RandomLinks(s.global, kSeed + 20, false);
  const GaugeField<double> u_local = comm::ScatterGauge(u, s.grid(), s.rank());
  for (const Precision precision : {Precision::kDouble, Precision::kHalf}) {
    for (const Reconstruct reconstruct : kReconstructions) {
      const GaugeLayout layout{precision, reconstruct, false, 0};
      const DeviceGaugeField gauge(u, layout), gauge_local(u_local, layout);
      const PartitionedWilsonDslash dslash(gauge_local, s.comm, kBoundary, kNoSelf, s.options.transport);
      for (const Parity p : {Parity::kEven, Parity::kOdd}) {
        const DeviceSchurOperator global_op(gauge, s.options.kappa, p);
        const DeviceSchurOperator local_op(dslash, s.options.kappa, p);
        SpinorField<double> in(s.global, SubsetOf(p));
        FillGaussian(in, kSeed + 21 + static_cast<int>(p));
        DeviceSpinorField g_in(s.global, SubsetOf(p), precision), g_out(s.global, SubsetOf(p), precision);
        DeviceSpinorField l_in(s.local, SubsetOf(p), precision), l_out(s.local, SubsetOf(p), precision);
        g_in.Upload(in);
        l_in.Upload(comm::ScatterSpinor(in, s.grid(), s.rank()));
        for (const int form : {0, 1, 2}) {  // M, M^dag, M^dag M
          g_out.FillBytes(0xff);
          l_out.FillBytes(0xff);
          if (form == 2) {
            global_op.ApplyNormal(g_out.View(), g_in.View());
            local_op.ApplyNormal(l_out.View(), l_in.View());
          } else {
            const Dagger dagger = form == 1 ? Dagger::kYes : Dagger::kNo;
            global_op.Apply(g_out.View(), g_in.View(), dagger);
            local_op.Apply(l_out.View(), l_in.View(), dagger);
          }
          const char* names[] = {"M", "M^dag", "M^dag M"};
          ExpectRestriction(s, checker, g_out, l_out,
                            std::string(names[form]) + " on " + ToString(p) + " sites, " + ToString(precision) + "/" +
                                ToString(reconstruct));
          ++cases;
        }
      }
    }
  }
  checker.Conclude("b. M_pp", std::to_string(cases) +
                                  " cases (M, M^dag, M^dag M x parity x double/half x links), partitioned = global "
                                  "restricted to each rank, bit for bit");
}

// The largest |b - M x| / |b| that the host may find when the device's own full residual met the tolerance:
// the derivation of gpu_backend_test.cc's CheckOnTheHost, plus the reductions' own rounding. The device
// stops on sqrt(|r|^2 / |b|^2) <= tol with both squared norms sums of n = 24 V non-negative terms in double;
// any order of summation (a per-rank tree, then the rank-order sum) is within gamma_{n} < n u_d relatively,
// so the exact norm of the device's r is at most tol (1 + n u_d). The device's r and the host's b - M x
// each lie within gamma_21 < 22 u_d of the exact residual per component, relative to the sum of |terms|
// b + (4 + m) x + D x / 2, of norm at most |b| + (|4 + m| + 8 sqrt 3) |x|; downloading x (basis change)
// adds 3 sqrt 2 u_d per real, times |M| <= 4 + |m| + 4.
// In general: per component gamma_k relative to the sum of |terms|, whose norm is at most
// |b| + `operator_terms` |x|, and |M| <= `operator_norm` for the download.
double HostBound(double k, double operator_terms, double operator_norm, double tolerance, double nb, double nx,
                 double volume) {
  const double terms = nb + operator_terms * nx;
  const double download = 3 * std::sqrt(2.0) * kUd * operator_norm * nx;
  return tolerance * (1 + 24 * volume * kUd) + (2 * (k + 1) * kUd * terms + download) / nb;
}
double WilsonHostBound(const WilsonParams& w, double tolerance, double nb, double nx, double volume) {
  return HostBound(21, std::abs(4 + w.mass) + 8 * std::sqrt(3.0), std::abs(4 + w.mass) + 4, tolerance, nb, nx,
                   volume);
}
// The clover matrix M = T - D/2: T x adds to each real component one row of a complex 6x6 chiral block, a sum
// of 12 real products, and on the device a change into and out of the chiral basis (one addition each,
// clover_apply.h), so gamma_21 becomes gamma_37 (21 + 12 + 2 + the combination with D x and a margin of 2).
// The sum of |terms| of T x is || |B| |x| || <= || |B| ||_F |x| = ||B||_F |x| <= sqrt(6) max|lambda(T)| |x|
// per chiral block, at most twice that for the device's unnormalised basis change; |M| <= max|lambda(T)| + 4.
double CloverHostBound(const CloverField<double>& clover, double tolerance, double nb, double nx, double volume) {
  const double t_norm = std::max(std::abs(clover.min_eigenvalue()), std::abs(clover.max_eigenvalue()));
  return HostBound(37, 2 * std::sqrt(6.0) * t_norm + 8 * std::sqrt(3.0), t_norm + 4, tolerance, nb, nx, volume);
}

// The solve of `spec` with `m` and `schur` (double) and low-precision Schur operators from `make_low`.
template <typename MakeLow>
solvers::SolveResult Solve(const solvers::SolverSpec& spec, const GpuWilson<double>& m,
                           const GpuWilsonSchur<double>& schur, MakeLow make_low, GpuSpinorField<double>& x,
                           const GpuSpinorField<double>& b) {
  auto low = solvers::MakeLowSchurOperators<GpuWilsonSchur>(make_low);
  return solvers::SolveWithSpec(spec, m, schur, low, x, b);
}

std::string Num(double v) {
  std::ostringstream out;
  out << std::setprecision(3) << std::scientific << v;
  return out.str();
}

void CheckSolves(const Setup& s, Checker& checker) {
  const WilsonParams w = WilsonParams::FromKappa(s.options.kappa);
  const GaugeField<double> u = testing::RandomLinks(s.global, kSeed + 30, false);
  const GaugeField<double> u_local = comm::ScatterGauge(u, s.grid(), s.rank());
  SpinorField<double> b(s.global);
  FillGaussian(b, kSeed + 31);
  const SpinorField<double> b_local = comm::ScatterSpinor(b, s.grid(), s.rank());

  const auto dslash = UploadPartitioned<double>(u_local, {}, s.comm, kBoundary, s.options.transport);
  const GpuWilson<double> m(dslash, w);
  const GpuWilsonSchur<double> schur(dslash, w);
  // The single-GPU operators on the global lattice: rank 0's reference solves.
  std::shared_ptr<const DeviceGaugeField> global_gauge;
  if (s.rank() == 0) global_gauge = UploadGauge<double>(u, {});

  int solves = 0;
  for (const char* text : {"cg", "bicgstab", "bicgstab-reliable:half/12:0.1"}) {
    solvers::SolverSpec spec = solvers::SolverSpec::Parse(text);
    spec.tolerance = s.options.tolerance;
    spec.max_iterations = 10000;
    GpuSpinorField<double> x = m.NewField(), bd = m.NewField();
    bd.Upload(b_local);
    // The solve on the partitioned operators, its global sums through the host or (device_sums) on the devices.
    const auto solve_partitioned = [&](GpuSpinorField<double>& solution, const DeviceRankSum* device_sums) {
      const blas::ScopedReductionCommunicator global_sums(&s.comm, device_sums);
      return Solve(spec, m, schur,
                   [&](auto tag) {
                     using P = typename decltype(tag)::type;
                     const GpuOperatorLayout layout{static_cast<Reconstruct>(spec.inner.link_reals), false, 0};
                     return std::make_unique<GpuWilsonSchur<P>>(
                         UploadPartitioned<P>(u_local, layout, s.comm, kBoundary, s.options.transport), w);
                   },
                   solution, bd);
    };
    const solvers::SolveResult r = solve_partitioned(x, nullptr);
    checker.Expect(r.converged(), std::string(text) + ": " + solvers::ToString(r.status) + ": " + r.reason);
    // Every rank must have taken the same path: rank 0's iteration count and residual bits everywhere.
    double mine[2] = {static_cast<double>(r.iterations), r.true_residual};
    double root[2] = {mine[0], mine[1]};
    MpiCheck(MPI_Bcast(root, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    checker.Expect(std::memcmp(mine, root, sizeof(mine)) == 0,
                   std::string(text) + ": this rank ended after " + std::to_string(r.iterations) +
                       " iterations with residual " + Num(r.true_residual) + ", rank 0 after " +
                       std::to_string(static_cast<int>(root[0])) + " with " + Num(root[1]));
    const SpinorField<double> x_local = x.Download();
    if (s.device_sums != nullptr) {
      // The same solve with the ranks' partials added on the devices (DeviceRankSum): the same partials in the
      // same order, so the same iterations, residual and solution, bit for bit.
      GpuSpinorField<double> x_device = m.NewField();
      const solvers::SolveResult r_device = solve_partitioned(x_device, s.device_sums);
      const int differing = DifferingSites(x_local, x_device.Download());
      checker.Expect(r_device.iterations == r.iterations &&
                         std::memcmp(&r_device.true_residual, &r.true_residual, sizeof(double)) == 0 && differing == 0,
                     std::string(text) + ": with the sums on the devices: " + std::to_string(r_device.iterations) +
                         " iterations, residual " + Num(r_device.true_residual) + ", " + std::to_string(differing) +
                         " sites differ; through the host: " + std::to_string(r.iterations) + " iterations, residual " +
                         Num(r.true_residual));
      if (s.rank() == 0) {
        std::cout << "multi_gpu_check: solve " << std::left << std::setw(30) << spec.Name() << std::right
                  << " global sums on the devices: iterations " << r_device.iterations << ", device residual "
                  << Num(r_device.true_residual) << ", solution " << (differing == 0 ? "the same bits" : "DIFFERS")
                  << " as through the host (rank 0's sites)" << std::endl;
      }
    }
    const std::optional<SpinorField<double>> x_global = GatherToRoot(x_local, s.grid(), s.global, s.rank());
    if (s.rank() == 0) {
      const double residual = solvers::testing::WilsonResidual(u, w, *x_global, b);
      const double allowed = WilsonHostBound(w, spec.tolerance, std::sqrt(Norm2(b)), std::sqrt(Norm2(*x_global)),
                                             s.global.volume());
      // The same solve on this one GPU on the global lattice (local reductions only).
      const blas::ScopedReductionCommunicator one_gpu(nullptr);
      // Its Schur operators sum the solvers' dot products as the partitioned ones do (separately, not fused into
      // the Dslash, which adds in another order), so that one rank is comparable bit for bit.
      const GpuWilson<double> m1(global_gauge, w);
      GpuWilsonSchur<double> schur1(global_gauge, w);
      schur1.set_fused_dot_products(false);
      GpuSpinorField<double> x1 = m1.NewField(), b1 = m1.NewField();
      b1.Upload(b);
      const solvers::SolveResult r1 = Solve(spec, m1, schur1,
                                            [&](auto tag) {
                                              using P = typename decltype(tag)::type;
                                              const GpuOperatorLayout layout{
                                                  static_cast<Reconstruct>(spec.inner.link_reals), false, 0};
                                              auto inner = std::make_unique<GpuWilsonSchur<P>>(u, w, Parity::kEven, layout);
                                              inner->set_fused_dot_products(false);
                                              return inner;
                                            },
                                            x1, b1);
      std::cout << "multi_gpu_check: solve " << std::left << std::setw(30) << spec.Name() << std::right << " "
                << s.comm.size() << " ranks: " << solvers::ToString(r.status) << ", iterations " << r.iterations
                << " (updates " << r.high_precision_updates << "), device residual " << Num(r.true_residual)
                << "; one GPU: iterations " << r1.iterations << " (difference " << r.iterations - r1.iterations
                << "); host |b - M x| / |b| = " << Num(residual) << " (allowed " << Num(allowed) << ")" << std::endl;
      checker.Expect(residual <= allowed, std::string(text) + ": true residual " + Num(residual) + " > allowed " +
                                              Num(allowed));
      if (s.comm.size() == 1) {
        // One rank: no direction is partitioned (the plain kernel runs) and a one-rank sum is the local
        // partial itself, so the solve is the single-GPU solve, bit for bit.
        checker.Expect(r.iterations == r1.iterations &&
                           DifferingSites(x1.Download(GammaBasis::kUkqcd), x.Download(GammaBasis::kUkqcd)) == 0,
                       std::string(text) + ": one rank differs from one GPU");
      }
    }
    ++solves;
  }
  checker.Conclude("c. solves", std::to_string(solves) + " solves (cg, bicgstab, reliable bicgstab half/12) at kappa " +
                                    Num(s.options.kappa) + " to " + Num(s.options.tolerance) +
                                    ", true residual on the host within the derived bound" +
                                    (s.device_sums != nullptr ? "; global sums on the devices: the same bits" : ""));
}

// The clover term of checks d. and e.: c_sw = 1 at --kappa, the checks' boundary; well conditioned on
// Haar-random links at the default kappa (CloverField refuses an ill-conditioned T(n)).
CloverParams CheckCloverParams(double kappa) {
  CloverParams p = CloverParams::FromKappa(kappa, 1.0);
  p.boundary = kBoundary;
  return p;
}

void CheckCloverDslash(const Setup& s, Checker& checker) {
  int cases = 0;
  const GaugeField<double> u = testing::RandomLinks(s.global, kSeed + 50, false);
  const GaugeField<double> u_local = comm::ScatterGauge(u, s.grid(), s.rank());
  const CloverField<double> clover(u, CheckCloverParams(s.options.kappa));  // on the global links
  const CloverField<double> clover_local = comm::ScatterClover(clover, s.grid(), s.rank());
  SpinorField<double> in(s.global), x(s.global);
  FillGaussian(in, kSeed + 51);
  FillGaussian(x, kSeed + 52);
  const SpinorField<double> in_local = comm::ScatterSpinor(in, s.grid(), s.rank());
  const SpinorField<double> x_local = comm::ScatterSpinor(x, s.grid(), s.rank());
  for (const Precision precision : kPrecisions) {
    const GaugeLayout layout{precision, Reconstruct::k12, false, 0};
    const DeviceGaugeField gauge(u, layout), gauge_local(u_local, layout);
    const PartitionedWilsonDslash dslash(gauge_local, s.comm, kBoundary, kNoSelf, s.options.transport);
    const DeviceCloverField c(clover, CloverLayout{precision, 0}), c_local(clover_local, CloverLayout{precision, 0});
    DeviceSpinorField g_in(s.global, Subset::kFull, precision), g_x(s.global, Subset::kFull, precision);
    DeviceSpinorField l_in(s.local, Subset::kFull, precision), l_x(s.local, Subset::kFull, precision);
    g_in.Upload(in);
    g_x.Upload(x);
    l_in.Upload(in_local);
    l_x.Upload(x_local);
    for (const Parity p : {Parity::kEven, Parity::kOdd}) {
      DeviceSpinorField g_out(s.global, SubsetOf(p), precision), l_out(s.local, SubsetOf(p), precision);
      for (const bool inverse : {false, true}) {
        for (const DslashEpilogue kind :
             {DslashEpilogue::kClover, DslashEpilogue::kCloverXpay, DslashEpilogue::kXpayClover}) {
          for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
            if (kind == DslashEpilogue::kXpayClover && dagger == Dagger::kYes) continue;  // D only
            const CloverEpilogue g_e{kind, c.View(p, inverse), g_x.View(p), kA, kB};
            const CloverEpilogue l_e{kind, c_local.View(p, inverse), l_x.View(p), kA, kB};
            g_out.FillBytes(0xff);  // NaN: a site that no kernel writes fails
            l_out.FillBytes(0xff);
            ApplyCloverDslash(g_out.View(), gauge, g_in.View(Opposite(p)), dagger, g_e);
            dslash.ApplyClover(l_out.View(), l_in.View(Opposite(p)), dagger, l_e);
            ExpectRestriction(s, checker, g_out, l_out,
                              std::string("clover Dslash ") + ToString(precision) + "/12 " + ToString(kind) +
                                  (inverse ? " T^-1" : " T") + (dagger == Dagger::kYes ? " dagger" : "") + " out " +
                                  ToString(p));
            ++cases;
          }
        }
      }
    }
  }
  checker.Conclude("d. clover Dslash", std::to_string(cases) +
                                           " variants (precision x T or T^-1 x epilogue x dagger x parity, 12-real "
                                           "links), partitioned = global restricted to each rank, bit for bit");
}

void CheckCloverSolve(const Setup& s, Checker& checker) {
  const GaugeField<double> u = testing::RandomLinks(s.global, kSeed + 60, false);
  const CloverField<double> clover(u, CheckCloverParams(s.options.kappa));  // on the global links
  SpinorField<double> b(s.global);
  FillGaussian(b, kSeed + 61);
  solvers::SolverSpec spec = solvers::SolverSpec::Parse("bicgstab");
  spec.tolerance = s.options.tolerance;
  spec.max_iterations = 10000;
  const CloverSchurForm form = CloverSchurForm::kComplement;

  GpuPartitionedLinks links(comm::ScatterGauge(u, s.grid(), s.rank()), false, s.comm, kBoundary,
                            s.options.transport);
  GpuCloverTerms terms(comm::ScatterClover(clover, s.grid(), s.rank()));
  GpuSpinorField<double> x(s.local, Subset::kFull), bd(s.local, Subset::kFull);
  bd.Upload(comm::ScatterSpinor(b, s.grid(), s.rank()));
  solvers::SolveResult r;
  {
    const blas::ScopedReductionCommunicator global_sums(&s.comm);
    r = SolveWithSpecOnGpu(spec, links, terms, form, x, bd);
  }
  checker.Expect(r.converged(), "clover bicgstab: " + std::string(solvers::ToString(r.status)) + ": " + r.reason);
  double mine[2] = {static_cast<double>(r.iterations), r.true_residual};
  double root[2] = {mine[0], mine[1]};
  MpiCheck(MPI_Bcast(root, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  checker.Expect(std::memcmp(mine, root, sizeof(mine)) == 0,
                 "clover bicgstab: this rank ended after " + std::to_string(r.iterations) +
                     " iterations with residual " + Num(r.true_residual) + ", rank 0 after " +
                     std::to_string(static_cast<int>(root[0])) + " with " + Num(root[1]));
  const std::optional<SpinorField<double>> x_global = GatherToRoot(x.Download(), s.grid(), s.global, s.rank());
  if (s.rank() == 0) {
    SpinorField<double> mx(s.global);
    ApplyWilsonClover(mx, u, clover, *x_global, Dagger::kNo);
    const double nb = std::sqrt(Norm2(b));
    const double residual = std::sqrt(Norm2(Difference(b, mx))) / nb;
    const double allowed = CloverHostBound(clover, spec.tolerance, nb, std::sqrt(Norm2(*x_global)), s.global.volume());
    // The same solve on this one GPU on the global lattice (local reductions only), its Schur operator summing
    // the solver's dot products separately as the partitioned one does (as in c.).
    const blas::ScopedReductionCommunicator one_gpu(nullptr);
    GpuGaugeLinks global_links(u, false);
    GpuCloverTerms global_terms(u, clover.params());
    GpuSpinorField<double> x1(s.global, Subset::kFull), b1(s.global, Subset::kFull);
    b1.Upload(b);
    const auto outer = global_links.Get<double>(spec.outer().link_reals);
    const GpuClover<double> m1(outer, global_terms.Get<double>());
    GpuCloverSchur<double> schur1(outer, global_terms.Get<double>(), form);
    schur1.set_fused_dot_products(false);
    auto low = solvers::MakeLowSchurOperators<GpuCloverSchur>([&](auto tag) {
      using P = typename decltype(tag)::type;
      auto inner = std::make_unique<GpuCloverSchur<P>>(global_links.Get<P>(spec.inner.link_reals),
                                                       global_terms.Get<P>(), form);
      inner->set_fused_dot_products(false);
      return inner;
    });
    const solvers::SolveResult r1 = solvers::SolveWithSpec(spec, m1, schur1, low, x1, b1);
    std::cout << "multi_gpu_check: solve clover " << std::left << std::setw(23) << spec.Name() << std::right << " "
              << s.comm.size() << " ranks: " << solvers::ToString(r.status) << ", iterations " << r.iterations
              << ", device residual " << Num(r.true_residual) << "; one GPU: iterations " << r1.iterations
              << " (difference " << r.iterations - r1.iterations << "); host |b - M x| / |b| = " << Num(residual)
              << " (allowed " << Num(allowed) << ")" << std::endl;
    checker.Expect(residual <= allowed,
                   "clover bicgstab: true residual " + Num(residual) + " > allowed " + Num(allowed));
    if (s.comm.size() == 1) {
      // As in c.: one rank is the single-GPU solve, bit for bit.
      checker.Expect(r.iterations == r1.iterations &&
                         DifferingSites(x1.Download(GammaBasis::kUkqcd), x.Download(GammaBasis::kUkqcd)) == 0,
                     "clover bicgstab: one rank differs from one GPU");
    }
  }
  checker.Conclude("e. clover solve", "bicgstab (" + std::string(ToString(form)) + ", c_sw 1) at kappa " +
                                          Num(s.options.kappa) + " to " + Num(s.options.tolerance) +
                                          ", true residual on the host within the derived bound");
}

// ---- the benchmark ----

// Every rank's `mine` in its own slot, summed in rank order: all ranks' values on every rank.
std::vector<double> AllValues(const Setup& s, const std::vector<double>& mine) {
  const int size = s.comm.size(), count = static_cast<int>(mine.size());
  std::vector<double> slots(static_cast<std::size_t>(count) * size, 0.0);
  for (int i = 0; i < count; ++i) slots[static_cast<std::size_t>(i) * size + s.rank()] = mine[i];
  return s.comm.SumDeterministic(slots);
}

// The Dslash and M_ee of each precision: partitioned against the plain kernels on the same local lattice.
void BenchmarkOperators(const Setup& s, const RankPlacement& place, const GaugeField<double>& u,
                        const SpinorField<double>& in_host) {
  const double sites = s.local.half_volume();
  const int size = s.comm.size();
  if (s.rank() == 0) {
    std::cout << "csv,transport,precision,reconstruct,grid,lattice,local,rank,device,partitioned_ms,partitioned_gflops,"
                 "unpartitioned_ms,unpartitioned_gflops,face_bytes,mee_ms,mee_gflops,mee_unpartitioned_ms,"
                 "mee_unpartitioned_gflops"
              << "\ncsv_timeline,transport,precision,grid,local,rank,interior_done_us,packs_done_us,host_waiting_us,"
                 "host_exchange_us,ghosts_ready_us,exterior_done_us"
              << std::endl;
  }
  for (const Precision precision : s.options.precisions) {
    const DeviceGaugeField gauge(u, GaugeLayout{precision, s.options.reconstruct, false, 0});
    const PartitionedWilsonDslash dslash(gauge, s.comm, kBoundary, kNoSelf, s.options.transport);
    DeviceSpinorField in(s.local, Subset::kOdd, precision), out(s.local, Subset::kEven, precision);
    in.Upload(in_host);
    s.comm.Barrier();
    const double partitioned_ms =
        MedianMilliseconds(s.options.repetitions, [&] { dslash.Apply(out.View(), in.View(), Dagger::kNo); });
    s.comm.Barrier();
    const double plain_ms = MedianMilliseconds(
        s.options.repetitions, [&] { ApplyWilsonDslash(out.View(), gauge, in.View(), Dagger::kNo); });
    // Where one call's time goes, each call from a synchronised device: medians of every point of the timeline.
    // One rank (grid 1x1x1x1, the one-GPU baseline of the scaling tables) partitions nothing: no timeline.
    if (dslash.FaceBytesPerCall() > 0) {
      std::vector<PartitionedWilsonDslash::CallTimeline> calls;
      s.comm.Barrier();
      for (int k = 0; k < 30; ++k) calls.push_back(dslash.TimeOneCall(out.View(), in.View(), Dagger::kNo));
      const auto median_of = [&](double PartitionedWilsonDslash::CallTimeline::*field) {
        std::vector<double> v;
        for (const auto& c : calls) v.push_back(c.*field);
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
      };
      using Timeline = PartitionedWilsonDslash::CallTimeline;
      std::ostringstream timeline;
      timeline << std::fixed << std::setprecision(1) << "csv_timeline," << ToString(s.options.transport) << ","
               << ToString(precision) << "," << s.grid().ToString() << "," << s.local.ToString() << "," << s.rank()
               << "," << median_of(&Timeline::interior_done) << "," << median_of(&Timeline::packs_done) << ","
               << median_of(&Timeline::host_waiting) << "," << median_of(&Timeline::host_exchange) << ","
               << median_of(&Timeline::ghosts_ready) << "," << median_of(&Timeline::exterior_done);
      const std::vector<std::string> timelines = GatherLines(timeline.str(), s.rank(), size);
      if (s.rank() == 0) {
        for (const std::string& l : timelines) std::cout << l << "\n";
      }
    }
    // M_ee = 1 - kappa^2 D_eo D_oe: two Dslash calls, two exchanges (the kappa does not change the work).
    const DeviceSchurOperator mee(dslash, s.options.kappa, Parity::kEven);
    const DeviceSchurOperator mee_plain(gauge, s.options.kappa, Parity::kEven, kBoundary);
    DeviceSpinorField e_in(s.local, Subset::kEven, precision), e_out(s.local, Subset::kEven, precision);
    blas::Convert(e_in, out);  // any even field: the Dslash output above
    s.comm.Barrier();
    const double mee_ms =
        MedianMilliseconds(s.options.repetitions, [&] { mee.Apply(e_out.View(), e_in.View(), Dagger::kNo); });
    s.comm.Barrier();
    const double mee_plain_ms =
        MedianMilliseconds(s.options.repetitions, [&] { mee_plain.Apply(e_out.View(), e_in.View(), Dagger::kNo); });
    const auto gflops_of = [&](double flops_per_site, double ms) { return flops_per_site * sites / (ms * 1e-3) / 1e9; };
    const double mee_flops_per_site = 2 * kDslashFlopsPerSite + kXpayFlopsPerSite;
    const double gflops = gflops_of(kDslashFlopsPerSite, partitioned_ms);
    const double plain_gflops = gflops_of(kDslashFlopsPerSite, plain_ms);
    const double mee_gflops = gflops_of(mee_flops_per_site, mee_ms);
    const double mee_plain_gflops = gflops_of(mee_flops_per_site, mee_plain_ms);
    const std::string variant = std::string(ToString(precision)) + "/" + ToString(s.options.reconstruct) +
                                " (" + ToString(s.options.transport) + " transport)";
    std::ostringstream line, csv;
    line << std::fixed << std::setprecision(4) << "rank " << s.rank() << " (" << place.host << " GPU "
         << place.device << ") " << variant << ": local " << s.local.ToString() << " (V/2 = " << s.local.half_volume()
         << "), Dslash partitioned " << partitioned_ms << " ms = " << std::setprecision(1) << gflops
         << " GFLOPS, unpartitioned " << std::setprecision(4) << plain_ms << " ms = " << std::setprecision(1)
         << plain_gflops << " GFLOPS; M_ee partitioned " << std::setprecision(4) << mee_ms << " ms = "
         << std::setprecision(1) << mee_gflops << " GFLOPS, unpartitioned " << std::setprecision(4) << mee_plain_ms
         << " ms = " << std::setprecision(1) << mee_plain_gflops << " GFLOPS; faces " << dslash.FaceBytesPerCall()
         << " bytes per Dslash";
    csv << "csv," << ToString(s.options.transport) << "," << ToString(precision) << "," << ToString(s.options.reconstruct) << "," << s.grid().ToString()
        << "," << s.global.ToString() << "," << s.local.ToString() << "," << s.rank() << "," << place.device << ","
        << std::setprecision(6) << partitioned_ms << "," << gflops << "," << plain_ms << "," << plain_gflops << ","
        << dslash.FaceBytesPerCall() << "," << mee_ms << "," << mee_gflops << "," << mee_plain_ms << ","
        << mee_plain_gflops;
    const std::vector<std::string> lines = GatherLines(line.str(), s.rank(), size);
    const std::vector<std::string> csvs = GatherLines(csv.str(), s.rank(), size);
    const std::vector<double> all = AllValues(s, {gflops, plain_gflops, partitioned_ms});
    if (s.rank() == 0) {
      for (const std::string& l : lines) std::cout << "multi_gpu_check: " << l << "\n";
      double total = 0, total_plain = 0, slowest = 0;
      for (int r = 0; r < size; ++r) {
        total += all[r];
        total_plain += all[size + r];
        slowest = std::max(slowest, all[2 * size + r]);
      }
      std::cout << std::fixed << std::setprecision(1) << "multi_gpu_check: aggregate " << variant << " on " << size
                << " ranks, grid " << s.grid().ToString() << ", lattice " << s.global.ToString() << ": "
                << total << " GFLOPS partitioned (sum over ranks; " << total / size << " per GPU), " << total_plain
                << " GFLOPS unpartitioned on the same local lattices, slowest rank " << std::setprecision(4)
                << slowest << " ms per call, parallel efficiency " << std::setprecision(3)
                << total / total_plain << "\n";
      for (const std::string& c : csvs) std::cout << c << "\n";
      std::cout << std::flush;
    }
  }
}

// One solve of M x = b (--solver, at --kappa to --tolerance) on the global problem: on one rank the single-GPU
// operators as every program uses them (fused dot products, local reductions); on several, the partitioned
// operators with global reductions. Untimed once (tuning), then the median of --solve-repetitions solves.
void BenchmarkSolve(const Setup& s, const RankPlacement& place, const GaugeField<double>& u,
                    const SpinorField<double>& b) {
  const WilsonParams w = WilsonParams::FromKappa(s.options.kappa);
  solvers::SolverSpec spec = solvers::SolverSpec::Parse(s.options.solver);
  spec.tolerance = s.options.tolerance;
  spec.max_iterations = 20000;
  const bool one_rank = s.comm.size() == 1;
  std::shared_ptr<const DeviceGaugeField> gauge;
  std::shared_ptr<const PartitionedWilsonDslash> dslash;
  if (one_rank) {
    gauge = UploadGauge<double>(u, {});
  } else {
    dslash = UploadPartitioned<double>(u, {}, s.comm, kBoundary, s.options.transport);
  }
  const GpuWilson<double> m = one_rank ? GpuWilson<double>(gauge, w) : GpuWilson<double>(dslash, w);
  const GpuWilsonSchur<double> schur = one_rank ? GpuWilsonSchur<double>(gauge, w) : GpuWilsonSchur<double>(dslash, w);
  GpuSpinorField<double> x = m.NewField(), bd = m.NewField();
  bd.Upload(b);
  const blas::ScopedReductionCommunicator sums(one_rank ? nullptr : &s.comm, one_rank ? nullptr : s.device_sums);
  // The inner operator's links, uploaded by the first (tuning) solve and reused by the timed ones, as a program
  // uploads them once per configuration (a collective on several ranks: every rank takes the same path).
  std::map<Precision, std::shared_ptr<const DeviceGaugeField>> inner_gauge;
  std::map<Precision, std::shared_ptr<const PartitionedWilsonDslash>> inner_dslash;
  const auto solve = [&] {
    blas::Zero(x.device());
    s.comm.Barrier();
    return Solve(spec, m, schur,
                 [&](auto tag) {
                   using P = typename decltype(tag)::type;
                   const Precision precision = DevicePrecisionOf<P>::kValue;
                   const GpuOperatorLayout layout{static_cast<Reconstruct>(spec.inner.link_reals), false, 0};
                   if (one_rank) {
                     if (!inner_gauge[precision]) inner_gauge[precision] = UploadGauge<P>(u, layout);
                     return std::make_unique<GpuWilsonSchur<P>>(inner_gauge[precision], w);
                   }
                   if (!inner_dslash[precision]) {
                     inner_dslash[precision] = UploadPartitioned<P>(u, layout, s.comm, kBoundary, s.options.transport);
                   }
                   return std::make_unique<GpuWilsonSchur<P>>(inner_dslash[precision], w);
                 },
                 x, bd);
  };
  const auto started = std::chrono::steady_clock::now();
  const solvers::SolveResult r = MedianSolve(s.options.solve_repetitions, solve);
  // The wall time of all solves with the host work around them (the inner links' upload in the first, the
  // solver's set-up and checks), against the solver's own seconds: printed so that a slow setup is visible.
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double gflops = r.flops / r.seconds * 1e-9;
  const std::vector<double> all = AllValues(s, {r.seconds, gflops});
  if (s.rank() == 0) {
    const int size = s.comm.size();
    double slowest = 0, total = 0;
    for (int k = 0; k < size; ++k) {
      slowest = std::max(slowest, all[k]);
      total += all[size + k];
    }
    std::cout << std::defaultfloat << std::setprecision(4) << "multi_gpu_check: solve " << spec.Name() << " at kappa " << s.options.kappa
              << " to " << s.options.tolerance << " on " << size << " ranks (" << place.host << "): "
              << solvers::ToString(r.status) << ", iterations " << r.iterations << " (updates "
              << r.high_precision_updates << "), true residual " << Num(r.true_residual) << ", global sums "
              << (one_rank ? "none (one rank)" : s.device_sums != nullptr ? "on the devices" : "through the host")
              << ", slowest rank "
              << slowest << " s, " << std::setprecision(1) << std::fixed << total / size << " Gflop/s per GPU ("
              << s.options.solve_repetitions + 1 << " solves in " << wall << " s of wall time on rank 0)"
              << std::defaultfloat << std::endl;
    std::cout << "csv_solve,transport,solver,kappa,tolerance,grid,lattice,local,ranks,status,iterations,updates,"
                 "true_residual,seconds,gflops_per_gpu,global_sums\n"
              << std::setprecision(6) << "csv_solve," << ToString(s.options.transport) << "," << spec.Name() << ","
              << s.options.kappa << "," << s.options.tolerance << "," << s.grid().ToString() << ","
              << s.global.ToString() << "," << s.local.ToString() << "," << size << "," << solvers::ToString(r.status)
              << "," << r.iterations << "," << r.high_precision_updates << "," << r.true_residual << "," << slowest
              << "," << total / size << ","
              << (one_rank ? "none" : s.device_sums != nullptr ? "device" : "host") << std::endl;
  }
}

void Benchmark(const Setup& s, const RankPlacement& place) {
  const int threads = place.HostThreads();
  // This rank's piece of one global random gauge field and source (each link and site drawn from the stream of
  // its global index), so that every grid times the same global problem and no rank holds the global field.
  const Coordinates offset = s.grid().Offset(s.rank(), s.global.extents());
  const GaugeField<double> u = ParallelRandomGaugeFieldPiece(s.global, s.local, offset, kSeed + 40, threads);
  SpinorField<double> source(s.local);
  ParallelFillGaussianPiece(source, s.global, offset, kSeed + 41, threads);
  BenchmarkOperators(s, place, u, Extract(source, Parity::kOdd));
  if (!s.options.solver.empty()) BenchmarkSolve(s, place, u, source);
}

// ---- main ----

std::vector<Precision> ParsePrecisions(const std::string& text) {
  std::vector<Precision> out;
  for (const std::string& word : command_line::SplitList("precisions", text)) {
    if (word == "double") {
      out.push_back(Precision::kDouble);
    } else if (word == "single") {
      out.push_back(Precision::kSingle);
    } else if (word == "half") {
      out.push_back(Precision::kHalf);
    } else {
      throw std::invalid_argument("--precisions: '" + word + "' is not double, single or half");
    }
  }
  return out;
}

int Run(int argc, char** argv, const comm::MpiSession& session) {
  Options o;
  command_line::FlagSet flags("multi_gpu_check",
                              "Checks the partitioned Wilson and clover Dslash, M_ee and Wilson and clover solves "
                              "against the global lattice on every rank (run it under mpirun, one rank per GPU; exit "
                              "1 on any mismatch), or times the partitioned Dslash (--benchmark).");
  flags.String("grid", &o.grid_text, "PXxPYxPZxPT", "the process grid; its product must be the number of ranks");
  flags.Extents("lattice", &o.global, "the global lattice split over the grid (every local extent even)");
  flags.Switch("share-gpu", &o.share_gpu,
               "allow more ranks on a node than it has GPUs (device = local rank mod count)");
  flags.Custom("transport", "host|device|nccl", "device",
               "how faces travel between ranks (partitioned_dslash.h): host = staged through pinned host memory "
               "and MPI; device = device-to-device copies (CUDA IPC between the ranks of one node; the default, "
               "measured 4-11x faster per Dslash than host staging on one node, docs/multi_gpu.md; host is needed "
               "across nodes); nccl = NCCL send / receive on the comm stream, no host wait per call (needs one GPU "
               "per rank)",
               [&](const std::string& value) {
                 try {
                   o.transport = ParseHaloTransport(value);
                 } catch (const std::invalid_argument& e) {
                   throw std::invalid_argument(std::string("--transport: ") + e.what());
                 }
               });
  std::string global_sums = "";
  flags.String("global-sums", &global_sums, "host|device",
               "how the solvers' global sums add the ranks' partials: device = NCCL all-gather and a rank-order "
               "sum on the devices (device_rank_sum.h; the default, needs one GPU per rank), host = MPI through "
               "the host (the default with --share-gpu); the same bits either way");
  flags.Double("kappa", &o.kappa, "hopping parameter of the solves", command_line::Range::Positive());
  flags.Section("The benchmark");
  flags.Switch("benchmark", &o.benchmark, "time the partitioned Dslash instead of checking");
  std::string precisions_text = "double,single,half";
  flags.String("precisions", &precisions_text, "LIST", "precisions timed by --benchmark (double,single,half)");
  flags.Choice("reconstruct", &o.reconstruct,
               {{"18", Reconstruct::k18}, {"12", Reconstruct::k12}, {"8", Reconstruct::k8}},
               "reals stored per link in --benchmark");
  flags.Int("repetitions", &o.repetitions, 1, 100000,
            "Dslash and M_ee calls timed per configuration (the median is kept)");
  flags.String("solver", &o.solver, "SPEC",
               "also time this solve of M x = b (solver spec, e.g. bicgstab-reliable:half/12:0.1) at --kappa to "
               "--tolerance on the same links, with a Gaussian source");
  flags.Double("tolerance", &o.tolerance, "relative residual of the solves (the checks' and --solver's)", command_line::Range::Positive());
  flags.Int("solve-repetitions", &o.solve_repetitions, 1, 1000,
            "timed solves after one untimed (tuning) solve (the median is kept)");
  std::ostringstream discard;
  if (!flags.Parse(argc, argv, session.world_rank() == 0 ? static_cast<std::ostream&>(std::cout) : discard)) return 0;
  o.precisions = ParsePrecisions(precisions_text);
  o.device_sums = GlobalSumsOnDevices(global_sums, o.share_gpu);
  RequireTransportForSharing(o.transport, o.share_gpu);
  if (!o.benchmark) {
    for (const char* name : {"precisions", "reconstruct", "repetitions", "solver", "solve-repetitions"}) {
      if (flags.Given(name)) throw std::invalid_argument(std::string("--") + name + " needs --benchmark");
    }
  } else if (o.solver.empty()) {
    for (const char* name : {"kappa", "tolerance", "solve-repetitions"}) {
      if (flags.Given(name)) throw std::invalid_argument(std::string("--") + name + " with --benchmark needs --solver");
    }
  } else {
    (void)solvers::SolverSpec::Parse(o.solver);  // a bad spec is refused here, before any GPU work
  }
  const ProcessGrid grid = ProcessGrid::Parse("grid", o.grid_text);
  // Every rank refuses a bad decomposition here, identically, before any message is sent.
  const Coordinates local = grid.LocalExtents(o.global);
  MpiCommunicator comm(grid);  // checks the rank count on every rank
  const RankPlacement place = PlaceRankOnDevice(comm, o.share_gpu);

  // Built by every rank together, after each selected its GPU; refused on every rank when NCCL is missing.
  const std::unique_ptr<DeviceRankSum> device_sums = o.device_sums ? std::make_unique<DeviceRankSum>(comm) : nullptr;
  const Setup s{comm, o, Lattice(o.global), Lattice(local), device_sums.get()};
  std::ostringstream me;
  me << place.Describe();
  const std::vector<std::string> lines = GatherLines(me.str(), comm.rank(), comm.size());
  if (comm.rank() == 0) {
    std::cout << "multi_gpu_check: " << comm.size() << " ranks, grid " << grid.ToString() << ", lattice "
              << s.global.ToString() << ", local " << s.local.ToString() << ", transport " << ToString(o.transport)
              << (o.share_gpu ? ", GPUs shared" : "") << ", global sums "
              << (o.device_sums ? "on the devices (NCCL)" : "through the host") << "\n";
    for (const std::string& l : lines) std::cout << "multi_gpu_check: " << l << "\n";
    std::cout << std::flush;
  }
  if (o.benchmark) {
    Benchmark(s, place);
    return 0;
  }
  Checker checker(comm);
  CheckDslash(s, checker);
  CheckSchur(s, checker);
  CheckSolves(s, checker);
  CheckCloverDslash(s, checker);
  CheckCloverSolve(s, checker);
  if (checker.failed_checks() != 0) {
    if (comm.rank() == 0) {
      std::cerr << "multi_gpu_check: FAILED: " << checker.failed_checks() << " of 5 checks" << std::endl;
    }
    return 1;
  }
  if (comm.rank() == 0) {
    std::cout << "multi_gpu_check: OK: " << comm.size() << " ranks, grid " << grid.ToString() << ", lattice "
              << s.global.ToString() << std::endl;
  }
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  lqcd::comm::MpiSession session(&argc, &argv);
  const std::string prefix = "multi_gpu_check: rank " + std::to_string(session.world_rank()) + " of " +
                             std::to_string(session.world_size()) + ": error: ";
  try {
    return lqcd::gpu::Run(argc, argv, session);
  } catch (const std::invalid_argument& e) {
    // Bad input: every rank sees the same input (the device refusal is made collective) and throws before
    // the GPU work, so each one reports it and leaves through MPI_Finalize; no rank is left waiting.
    std::cerr << prefix + e.what() + "\n" << std::flush;
    return 1;
  } catch (const std::exception& e) {
    // Anything else may have hit one rank only, while the others wait in a collective: stop them all.
    std::cerr << prefix + e.what() + "\n" << std::flush;
    lqcd::comm::MpiCommunicator::AbortJob(1);
  }
}
