// benchmark_support.cc: see benchmark_support.h.
#include "gpu/benchmark_support.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "gpu/event_timer.h"
#include "reference/cli/command_line.h"
#include "reference/cli/machine_info.h"
#include "reference/random.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {

double WallSeconds(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<int> ParseIntList(const std::string& key, const std::string& text, long lo, long hi) {
  std::vector<int> values;
  if (text.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
      const std::size_t colon = text.find(':', start);
      parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (parts.size() != 3) {
      throw std::invalid_argument("--" + key + "=" + text + ": a range is first:last:step (three integers)");
    }
    const long first = command_line::ParseLong(key, parts[0], lo, hi);
    const long last = command_line::ParseLong(key, parts[1], lo, hi);
    const long step = command_line::ParseLong(key, parts[2], 1, hi);
    if (last < first) {
      throw std::invalid_argument("--" + key + "=" + text + ": a range first:last:step needs first <= last");
    }
    for (long v = first; v <= last; v += step) values.push_back(static_cast<int>(v));
    return values;
  }
  for (const std::string& item : command_line::SplitList(key, text)) {
    values.push_back(static_cast<int>(command_line::ParseLong(key, item, lo, hi)));
  }
  return values;
}

int DefaultThreads() { return UsableCores(); }

void ParallelFor(int n, int threads, const std::function<void(int)>& body) {
  threads = std::max(1, std::min(threads, n));
  std::exception_ptr first_error;
  std::mutex mutex;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = t; i < n; i += threads) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (first_error) return;
        }
        try {
          body(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex);
          if (!first_error) first_error = std::current_exception();
          return;
        }
      }
    });
  }
  for (std::thread& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

namespace {

// The global index of `local` site `site` placed at `offset` of `global`.
std::uint64_t GlobalIndex(const Lattice& global, const Lattice& local, const Coordinates& offset, int site) {
  Coordinates n = local.Coords(site);
  for (int mu = 0; mu < kDims; ++mu) n[mu] += offset[mu];
  return static_cast<std::uint64_t>(global.Index(n));
}

}  // namespace

GaugeField<double> ParallelRandomGaugeFieldPiece(const Lattice& global, const Lattice& local,
                                                 const Coordinates& offset, std::uint64_t seed, int threads) {
  GaugeField<double> u(local);
  const int chunk = 4096;
  const int chunks = (local.volume() + chunk - 1) / chunk;
  ParallelFor(chunks, threads, [&](int k) {
    for (int site = k * chunk; site < std::min(local.volume(), (k + 1) * chunk); ++site) {
      const std::uint64_t global_site = GlobalIndex(global, local, offset, site);
      for (int mu = 0; mu < kDims; ++mu) {
        RandomStream rng(seed, kDims * global_site + mu);
        u.Link(site, mu) = HaarRandomSU3<double>(rng);
      }
    }
  });
  return u;
}

GaugeField<double> ParallelRandomGaugeField(const Lattice& lattice, std::uint64_t seed, int threads) {
  return ParallelRandomGaugeFieldPiece(lattice, lattice, Coordinates{0, 0, 0, 0}, seed, threads);
}

void ParallelFillGaussianPiece(SpinorField<double>& field, const Lattice& global, const Coordinates& offset,
                               std::uint64_t seed, int threads) {
  const int chunk = 4096;
  const int chunks = (field.sites() + chunk - 1) / chunk;
  ParallelFor(chunks, threads, [&](int k) {
    for (int i = k * chunk; i < std::min(field.sites(), (k + 1) * chunk); ++i) {
      RandomStream rng(seed, GlobalIndex(global, field.lattice(), offset, field.SiteIndex(i)));
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          const double re = rng.Gaussian(), im = rng.Gaussian();
          field[i](s, c) = Complex<double>(re, im);
        }
      }
    }
  });
}

void ParallelFillGaussian(SpinorField<double>& field, std::uint64_t seed, int threads) {
  ParallelFillGaussianPiece(field, field.lattice(), Coordinates{0, 0, 0, 0}, seed, threads);
}

GaugeField<double> UnitTemporalLinks(const GaugeField<double>& u) {
  GaugeField<double> fixed = u;
  const Lattice& lattice = u.lattice();
  for (int site = 0; site < lattice.volume(); ++site) {
    if (lattice.Coords(site)[3] < lattice.extent(3) - 1) fixed.Link(site, 3) = ColorMatrix<double>::Identity();
  }
  return fixed;
}

}  // namespace lqcd::gpu
