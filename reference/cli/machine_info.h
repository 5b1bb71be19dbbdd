// machine_info.h: a one-line description of the CPU a program runs on, for the "what it ran on" line
// every binary prints: "<model name from /proc/cpuinfo>, <N> hardware threads (<M> usable), OMP_NUM_THREADS=<...>,
// OMP_WAIT_POLICY=<...>" ("unknown CPU" where /proc/cpuinfo has no model name; "unset" for unset
// variables).
//
// UsableCores(): the CPUs this process may run on (its affinity mask), which is fewer than the hardware
// threads when a launcher binds it: Open MPI's mpirun binds each rank to ONE core when it starts one or two
// ranks (to a socket with more), so host threads started from hardware_concurrency() would all share that
// core. `mpirun --bind-to none` lifts the binding.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace lqcd {

inline std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

inline int UsableCores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) return std::max(1, CPU_COUNT(&mask));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

inline std::string DescribeMachine() {
  auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "unset");
  };
  return CpuModelName() + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads (" +
         std::to_string(UsableCores()) + " usable), OMP_NUM_THREADS=" + env("OMP_NUM_THREADS") + ", OMP_WAIT_POLICY=" + env("OMP_WAIT_POLICY");
}

}  // namespace lqcd
