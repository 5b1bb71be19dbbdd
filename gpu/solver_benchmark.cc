// solver_benchmark: time to solution of the even-odd Wilson system on the GPU, the paper's Figure 7
// analogue: double BiCGstab on M_ee against reliable-update BiCGstab (Algorithm 2, delta = 0.1) with a
// half/12 and a single/8 inner operator, all to eps = 1e-12 in the full-lattice true residual (double),
// on Haar-random SU(3) links for a few kappas; then the bandwidth of the fused vector kernels.
//
//   solver_benchmark [LXxLYxLZxLT] [--kappas K1,K2,...] [--repetitions N] [--seed S]
//                    (default 24x24x24x32, 0.2,0.22,0.23,0.24, 3, 1)
//
// Solvers are the unchanged algorithms of solvers/ on GpuBackend (gpu/gpu_backend.h): outer operators
// double/18 (M and M_ee sharing one gauge field), inner operators half/12 and single/8. Each operator is
// applied once before timing (the launch tuner times its block sizes then). Every solve is repeated N
// times (deterministic: the same iterations each time); the median wall-clock time is reported.
// GFLOPS = the solver's own count (operator flops, 1320 per Dslash site + 48 per xpay site, plus the
// vector operations of solvers/vector_flops.h, plus the source preparation, reconstruction and final
// residual) / that time. Speed-up = double time / mixed time. Measures and prints; asserts nothing.
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/blas.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/event_timer.h"
#include "gpu/gpu_backend.h"
#include "reference/su3_random.h"
#include "solvers/even_odd.h"
#include "solvers/reliable_update.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using solvers::SolveResult;
using solvers::SolverParams;

Lattice ParseLattice(const std::string& s) {
  Coordinates e{};
  if (std::sscanf(s.c_str(), "%dx%dx%dx%d", &e[0], &e[1], &e[2], &e[3]) != 4) {
    throw std::invalid_argument("lattice '" + s + "' is not of the form LXxLYxLZxLT");
  }
  return Lattice(e);
}

std::vector<double> ParseList(const std::string& s) {
  std::vector<double> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stod(item));
  if (out.empty()) throw std::invalid_argument("empty list '" + s + "'");
  return out;
}

// Runs `solve` (which returns a SolveResult) `repetitions` times; returns the record of the median time.
template <typename Solve>
SolveResult Median(int repetitions, Solve&& solve) {
  std::vector<SolveResult> runs;
  for (int r = 0; r < repetitions; ++r) runs.push_back(solve());
  std::sort(runs.begin(), runs.end(), [](const SolveResult& a, const SolveResult& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

void PrintRow(double kappa, const char* solver, const SolveResult& r, double double_seconds) {
  std::printf("%6.3f %-16s %-11s %6d %6d %6lld %9.4f %8.1f %8.2f  %.2e\n", kappa, solver, solvers::ToString(r.status),
              r.iterations, r.high_precision_updates, r.low_precision_applications, r.seconds,
              r.flops / r.seconds / 1e9, double_seconds / r.seconds, r.true_residual);
}

void SolveTable(const Lattice& lattice, const std::vector<double>& kappas, int repetitions, std::uint64_t seed) {
  const GaugeField<double> links = RandomGaugeField<double>(lattice, seed);
  SpinorField<double> source(lattice);
  FillGaussian(source, seed + 1);
  const auto gauge_double = UploadGauge<double>(links, {Reconstruct::k18, false, 0});
  const auto gauge_half12 = UploadGauge<Half>(links, {Reconstruct::k12, false, 0});
  const auto gauge_single8 = UploadGauge<float>(links, {Reconstruct::k8, false, 0});
  GpuSpinorField<double> b(lattice, Subset::kFull);
  b.Upload(source);

  SolverParams params;
  params.tolerance = 1e-12;
  params.delta = 0.1;
  params.max_iterations = 20000;
  params.record_history = false;
  std::printf("\nlattice %s, Haar-random links (seed %llu), Gaussian source, eps = %.0e, delta = %.1f, median of %d\n",
              lattice.ToString().c_str(), static_cast<unsigned long long>(seed), params.tolerance, params.delta,
              repetitions);
  std::printf("%6s %-16s %-11s %6s %6s %6s %9s %8s %8s  %s\n", "kappa", "solver", "status", "iters", "updts",
              "lowapp", "time s", "GFLOPS", "speedup", "true residual");

  for (double kappa : kappas) {
    const WilsonParams w = WilsonParams::FromKappa(kappa);
    const GpuWilson<double> m(gauge_double, w);
    const GpuWilsonSchur<double> schur(gauge_double, w);
    const GpuWilsonSchur<Half> schur_half12(gauge_half12, w);
    const GpuWilsonSchur<float> schur_single8(gauge_single8, w);
    {  // warm-up: every Dslash variant the solves launch is tuned here, outside the timing
      GpuSpinorField<double> full = m.NewField(), e = schur.NewField(), e2 = schur.NewField();
      m.Apply(full, b);
      schur.PrepareSource(e, b);
      schur.Apply(e2, e);
      GpuSpinorField<Half> h = schur_half12.NewField(), h2 = schur_half12.NewField();
      GpuBackend::Convert(h, e);
      schur_half12.Apply(h2, h);
      GpuSpinorField<float> s = schur_single8.NewField(), s2 = schur_single8.NewField();
      GpuBackend::Convert(s, e);
      schur_single8.Apply(s2, s);
      (void)GpuBackend::Norm2(s2);
    }
    const SolveResult d = Median(repetitions, [&] {
      GpuSpinorField<double> x = m.NewField();
      return solvers::EvenOddBiCGstab(schur, m, x, b, params);
    });
    auto mixed = [&](const auto& low) {
      return Median(repetitions, [&] {
        GpuSpinorField<double> x = m.NewField();
        return solvers::SolveEvenOdd(schur, m, x, b, params,
                                     [&](GpuSpinorField<double>& xp, const GpuSpinorField<double>& bp,
                                         const SolverParams& p) { return solvers::ReliableBiCGstab(schur, low, xp, bp, p); });
      });
    };
    const SolveResult h = mixed(schur_half12);
    const SolveResult s = mixed(schur_single8);
    PrintRow(kappa, "double", d, d.seconds);
    PrintRow(kappa, "reliable half12", h, d.seconds);
    PrintRow(kappa, "reliable single8", s, d.seconds);
  }
}

// Median time of `repetitions` calls of `run` between CUDA events (a reduction includes its host round
// trip), after one warm-up call.
template <typename F>
double MedianMicroseconds(int repetitions, F&& run) {
  run();
  EventTimer timer;
  std::vector<double> us;
  for (int r = 0; r < repetitions; ++r) {
    timer.Start();
    run();
    us.push_back(1e3 * timer.Stop());
  }
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  return us[us.size() / 2];
}

template <typename P>
void BlasRow(const Lattice& lattice, double copy_gbs) {
  using B = GpuBackend;
  const Precision precision = DevicePrecisionOf<P>::kValue;
  SpinorField<double> host(lattice, Subset::kEven);
  std::vector<GpuSpinorField<P>> f;
  for (int k = 0; k < 5; ++k) {
    FillGaussian(host, 100 + k);
    f.emplace_back(lattice, Subset::kEven);
    f.back().Upload(host);
  }
  const double sites = lattice.half_volume();
  const std::complex<double> alpha(1e-3, 2e-3), omega(-1e-3, 1e-3);
  struct Item {
    blas::Operation op;
    std::function<void()> run;
  };
  // Small coefficients keep the fields of order one however often the updates are repeated.
  const Item items[] = {
      {blas::Operation::kNorm2, [&] { (void)B::Norm2(f[0]); }},
      {blas::Operation::kDotNorm, [&] { (void)B::DotNorm(f[0], f[1]); }},
      {blas::Operation::kAxpyNorm, [&] { (void)B::AxpyNorm(1e-3, f[0], f[1]); }},
      {blas::Operation::kCaxpyNorm, [&] { (void)B::CaxpyNorm(alpha, f[0], f[1]); }},
      {blas::Operation::kBicgstabDirection, [&] { B::BicgstabDirection(f[0], alpha, omega, f[1], f[2]); }},
      {blas::Operation::kBicgstabUpdate, [&] { (void)B::BicgstabUpdate(alpha, f[0], omega, f[1], f[2], f[3], f[4]); }},
  };
  for (const Item& item : items) {
    const double us = MedianMicroseconds(50, item.run);
    const blas::BlasCost c = blas::Cost(item.op, precision, sites);
    std::printf("%-7s %-18s %9.1f %8.0f %7.1f%%\n", ToString(precision), blas::InfoOf(item.op).name, us,
                c.bytes / us / 1e3, 100 * c.bytes / us / 1e3 / copy_gbs);
  }
}

void BlasTable(const Lattice& lattice, double copy_gbs) {
  std::printf("\nfused vector kernels on one parity of %s (%d sites), median of 50; %% of the copy bandwidth\n",
              lattice.ToString().c_str(), lattice.half_volume());
  std::printf("%-7s %-18s %9s %8s %8s\n", "prec", "operation", "time us", "GB/s", "of copy");
  BlasRow<double>(lattice, copy_gbs);
  BlasRow<float>(lattice, copy_gbs);
  BlasRow<Half>(lattice, copy_gbs);
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  using namespace lqcd;
  using namespace lqcd::gpu;
  std::string lattice_text = "24x24x24x32";
  std::vector<double> kappas = {0.2, 0.22, 0.23, 0.24};
  int repetitions = 3;
  std::uint64_t seed = 1;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--kappas" && i + 1 < argc) {
        kappas = ParseList(argv[++i]);
      } else if (arg == "--repetitions" && i + 1 < argc) {
        repetitions = std::max(1, std::atoi(argv[++i]));
      } else if (arg == "--seed" && i + 1 < argc) {
        seed = std::strtoull(argv[++i], nullptr, 10);
      } else if (!arg.empty() && arg[0] != '-') {
        lattice_text = arg;
      } else {
        throw std::invalid_argument("unknown argument '" + arg + "'");
      }
    }
    if (const std::string why = NoDeviceReason(); !why.empty()) {
      std::printf("solver_benchmark: %s\n", why.c_str());
      return 1;
    }
    const Lattice lattice = ParseLattice(lattice_text);
    std::printf("solver_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
    const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
    std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
    SolveTable(lattice, kappas, repetitions, seed);
    BlasTable(lattice, copy.kernel_gbs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "solver_benchmark: %s\n", e.what());
    return 1;
  }
  return 0;
}
