// benchmark_support.cc: see benchmark_support.h.
#include "gpu/benchmark_support.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "gpu/event_timer.h"
#include "reference/random.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {

double MedianMilliseconds(int repetitions, const std::function<void()>& run) {
  if (repetitions < 1) throw std::invalid_argument("MedianMilliseconds: repetitions must be >= 1");
  EventTimer timer;
  run();  // warm-up; tunes on first sight
  std::vector<double> ms;
  for (int r = 0; r < repetitions; ++r) {
    timer.Start();
    run();
    ms.push_back(timer.Stop());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

Lattice ParseLattice(const std::string& text) {
  Coordinates e{};
  char extra = 0;
  if (std::sscanf(text.c_str(), "%dx%dx%dx%d%c", &e[0], &e[1], &e[2], &e[3], &extra) != 4) {
    throw std::invalid_argument("lattice '" + text + "' is not of the form LXxLYxLZxLT");
  }
  return Lattice(e);
}

std::vector<int> ParseIntList(const std::string& text) {
  std::vector<int> values;
  int first = 0, last = 0, step = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d:%d:%d%c", &first, &last, &step, &extra) == 3) {
    if (step <= 0 || last < first) throw std::invalid_argument("range '" + text + "' needs first <= last and step > 0");
    for (int v = first; v <= last; v += step) values.push_back(v);
    return values;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    int v = 0;
    if (std::sscanf(item.c_str(), "%d%c", &v, &extra) != 1) {
      throw std::invalid_argument("'" + text + "' is not a list of integers (a,b,c) or a range (first:last:step)");
    }
    values.push_back(v);
    start = comma + 1;
  }
  return values;
}

int DefaultThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

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

GaugeField<double> ParallelRandomGaugeField(const Lattice& lattice, std::uint64_t seed, int threads) {
  GaugeField<double> u(lattice);
  const int chunk = 4096;
  const int chunks = (lattice.volume() + chunk - 1) / chunk;
  ParallelFor(chunks, threads, [&](int k) {
    for (int site = k * chunk; site < std::min(lattice.volume(), (k + 1) * chunk); ++site) {
      for (int mu = 0; mu < kDims; ++mu) {
        RandomStream rng(seed, kDims * static_cast<std::uint64_t>(site) + mu);
        u.Link(site, mu) = HaarRandomSU3<double>(rng);
      }
    }
  });
  return u;
}

void ParallelFillGaussian(SpinorField<double>& field, std::uint64_t seed, int threads) {
  const int chunk = 4096;
  const int chunks = (field.sites() + chunk - 1) / chunk;
  ParallelFor(chunks, threads, [&](int k) {
    for (int i = k * chunk; i < std::min(field.sites(), (k + 1) * chunk); ++i) {
      RandomStream rng(seed, static_cast<std::uint64_t>(field.SiteIndex(i)));
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          const double re = rng.Gaussian(), im = rng.Gaussian();
          field[i](s, c) = Complex<double>(re, im);
        }
      }
    }
  });
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
