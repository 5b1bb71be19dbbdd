// machine_info.h: a one-line description of the CPU a program runs on, for the "what it ran on" line
// every binary prints: "<model name from /proc/cpuinfo>, <N> hardware threads, OMP_NUM_THREADS=<...>,
// OMP_WAIT_POLICY=<...>" ("unknown CPU" where /proc/cpuinfo has no model name; "unset" for unset
// variables).
#pragma once

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

inline std::string DescribeMachine() {
  auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "unset");
  };
  return CpuModelName() + ", " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware threads, OMP_NUM_THREADS=" + env("OMP_NUM_THREADS") + ", OMP_WAIT_POLICY=" + env("OMP_WAIT_POLICY");
}

}  // namespace lqcd
