// stopwatch.h: wall seconds since construction, for the experiments' timing of solves, transfers and phases of a
// job (steady clock: never jumps with the time of day). A timed interval that ends with a synchronous device copy
// or host read (the GPU transfers, the device residual) measures the device's work too.
#pragma once

#include <chrono>

namespace lqcd::experiments {

class Stopwatch {
 public:
  double Seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace lqcd::experiments
