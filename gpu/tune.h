// tune.h: launch configurations chosen by measurement. The first time a kernel variant runs on a given
// volume, every candidate block size is timed and the fastest is remembered (in memory, and on disk
// when LQCD_TUNE_CACHE names a file); later calls launch with it at no cost.
//
// Host-only header (no CUDA types). Launchers call
//     const int block = LaunchTuner::Instance().BlockSize(key, max_block, preserve, launch);
// where launch(block) enqueues the kernel once with that block size (and checks the launch).
//
// Correctness never depends on the choice: each kernel computes every output site in one thread,
// independent of the block shape (the Dslash tests check bit-identical results across block sizes).
// While tuning, a launch runs several times on the real arguments. Kernels whose output aliases an input
// (xpay with out = x) list that memory in `preserve`: it is saved before and restored after timing.
//
// Timing: for each candidate (multiples of 32 up to max_block) one warm-up launch, then kTimedLaunches
// launches between two CUDA events; the smallest mean time wins (ties: the smaller block). Candidates
// the device refuses (too many registers for the block, cudaErrorLaunchOutOfResources; or an invalid
// configuration) are skipped; any other CUDA error is thrown as CudaError. If none works, CudaError.
//
// Cache file format: tune_cache.h (one line per entry, "key<TAB>block<TAB>microseconds"; keys contain the
// device name, so one file can serve several GPUs). Lines that do not parse are skipped with one warning on
// stderr; a cached block above the launch's max_block is ignored and the key retuned. An unwritable cache
// file is reported once on stderr and tuning goes on in memory. LQCD_TUNE_VERBOSE=1 prints each new
// tuning to stderr.
//
// Tests and experiments can pin the block size (ForceBlockSize), which bypasses tuning entirely.
// Not thread safe: call from one host thread.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpu/tune_cache.h"

namespace lqcd::gpu {

class LaunchTuner {
 public:
  static constexpr int kTimedLaunches = 5;

  static LaunchTuner& Instance();

  // `key` names kernel, variant and problem size; the device name is appended here. `stream` (a cudaStream_t,
  // null: the default stream) is where `launch` enqueues; tuning first waits for the whole device, then
  // times there.
  int BlockSize(const std::string& key, int max_block, const std::vector<std::pair<void*, std::size_t>>& preserve,
                const std::function<void(int block)>& launch, void* stream = nullptr);

  // The mean time of one launch with the block BlockSize chose for `key` (tuned or from the cache), or -1 when
  // `key` has no result (not yet launched, or launched with a forced block size). Launchers that also choose
  // the work per thread tune one key per choice and compare these times.
  double TunedMicroseconds(const std::string& key);
  // Pins every launch to `block` (no tuning, nothing remembered) until ClearForcedBlockSize().
  void ForceBlockSize(int block) { forced_ = block; }
  void ClearForcedBlockSize() { forced_.reset(); }

  const std::map<std::string, TuneResult>& results() const { return results_; }
  int tunings_performed() const { return tunings_; }  // how many keys were timed (not read from cache)

 private:
  LaunchTuner();
  void AppendToCache(const std::string& key, const TuneResult& result);
  const std::string& DeviceName();  // appended to every key
  std::map<std::string, TuneResult> results_;
  std::optional<int> forced_;
  std::string cache_path_;
  std::string device_name_;
  bool verbose_ = false;
  bool cache_write_failed_ = false;
  int tunings_ = 0;
};

}  // namespace lqcd::gpu
