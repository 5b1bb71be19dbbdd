// wall_timing.h: how the CPU benchmarks time a call (reference/wilson_benchmark, the solvers' block
// benchmark): one untimed warm-up call (pages in the fields, fills the caches), then calls until at least
// `min_seconds` of wall-clock time and at least 3 calls have passed. Returns the mean seconds per call.
#pragma once

#include <chrono>

namespace lqcd {

template <typename F>
double SecondsPerCall(F&& f, double min_seconds) {
  f();
  int calls = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    f();
    ++calls;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < min_seconds || calls < 3);
  return elapsed / calls;
}

}  // namespace lqcd
