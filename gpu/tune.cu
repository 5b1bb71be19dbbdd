// tune.cu: the block-size tuner (see tune.h).
#include "gpu/tune.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"

namespace lqcd::gpu {
namespace {

// A refused configuration: try the next candidate. cudaGetLastError() has already cleared these (they
// are not sticky), so the context stays usable.
bool IsRefusedConfiguration(int status) {
  return status == cudaErrorLaunchOutOfResources || status == cudaErrorInvalidConfiguration;
}

struct EventPair {
  EventPair() {
    LQCD_CUDA_CHECK(cudaEventCreate(&start));
    LQCD_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  cudaEvent_t start, stop;
};

}  // namespace

LaunchTuner& LaunchTuner::Instance() {
  static LaunchTuner tuner;
  return tuner;
}

LaunchTuner::LaunchTuner() {
  if (const char* v = std::getenv("LQCD_TUNE_VERBOSE")) verbose_ = std::string(v) == "1";
  if (const char* path = std::getenv("LQCD_TUNE_CACHE")) cache_path_ = path;
  if (!cache_path_.empty()) {
    std::ifstream in(cache_path_);  // a missing file is an empty cache
    ParsedTuneCache parsed = ParseTuneCache(in);
    results_ = std::move(parsed.entries);
    if (parsed.skipped_lines > 0) {
      std::fprintf(stderr, "lqcd tuner: %s: skipped %d malformed line(s); those keys will be retuned\n",
                   cache_path_.c_str(), parsed.skipped_lines);
    }
  }
}

void LaunchTuner::AppendToCache(const std::string& key, const TuneResult& result) {
  if (cache_path_.empty() || cache_write_failed_) return;
  std::ofstream out(cache_path_, std::ios::app);
  out << FormatTuneCacheLine(key, result);
  out.flush();
  if (!out) {
    cache_write_failed_ = true;
    std::fprintf(stderr, "lqcd tuner: cannot append to %s; tuning results stay in memory only\n",
                 cache_path_.c_str());
  }
}

const std::string& LaunchTuner::DeviceName() {
  if (device_name_.empty()) {
    int device = 0;
    cudaDeviceProp prop;
    LQCD_CUDA_CHECK(cudaGetDevice(&device));
    LQCD_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    device_name_ = prop.name;
  }
  return device_name_;
}

double LaunchTuner::TunedMicroseconds(const std::string& key) {
  const auto found = results_.find(key + " @" + DeviceName());
  return found == results_.end() ? -1 : found->second.microseconds;
}

int LaunchTuner::BlockSize(const std::string& key, int max_block,
                           const std::vector<std::pair<void*, std::size_t>>& preserve,
                           const std::function<void(int block)>& launch, void* stream) {
  if (forced_) return *forced_;
  const std::string full_key = key + " @" + DeviceName();
  // A cached block must fit this launch (a cache written by other code, or edited, might not).
  if (auto found = results_.find(full_key); found != results_.end() && found->second.block <= max_block) {
    return found->second.block;
  }

  // Work queued on other streams neither runs beside the timed launches nor is overtaken by the backups.
  SynchronizeDevice();
  const cudaStream_t timed_stream = static_cast<cudaStream_t>(stream);
  std::vector<DeviceBuffer> backups;
  for (const auto& [pointer, bytes] : preserve) {
    backups.emplace_back(bytes);
    CopyDeviceToDevice(backups.back().data(), pointer, bytes);
  }
  EventPair events;
  TuneResult best;
  for (int block = kTuneBlockGranularity; block <= max_block; block += kTuneBlockGranularity) {
    try {
      launch(block);  // warm-up; throws CudaError if the configuration is refused
    } catch (const CudaError& e) {
      if (IsRefusedConfiguration(e.cuda_status())) continue;
      throw;
    }
    LQCD_CUDA_CHECK(cudaEventRecord(events.start, timed_stream));
    for (int i = 0; i < kTimedLaunches; ++i) launch(block);
    LQCD_CUDA_CHECK(cudaEventRecord(events.stop, timed_stream));
    LQCD_CUDA_CHECK(cudaEventSynchronize(events.stop));
    float ms = 0;
    LQCD_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
    const double microseconds = 1e3 * ms / kTimedLaunches;
    if (best.block == 0 || microseconds < best.microseconds) best = {block, microseconds};
  }
  // Every launch above has finished: each candidate's ended at its stop event, waited for on its stream.
  for (std::size_t i = 0; i < preserve.size(); ++i) {
    CopyDeviceToDevice(preserve[i].first, backups[i].data(), preserve[i].second);
  }
  if (best.block == 0) {
    throw CudaError("LaunchTuner: no block size from 32 to " + std::to_string(max_block) + " could launch " + key,
                    cudaErrorLaunchOutOfResources);
  }
  results_[full_key] = best;
  ++tunings_;
  AppendToCache(full_key, best);
  if (verbose_) std::fprintf(stderr, "tuned %s: block %d, %.2f us\n", full_key.c_str(), best.block, best.microseconds);
  return best.block;
}

}  // namespace lqcd::gpu
