// event_timer.h: timing device work with CUDA events (the GPU's own clock, no host jitter), for benchmarks
// and the tuner's users. Host-only header (no CUDA types).
//
//   EventTimer timer;
//   timer.Start();            // records an event on the default stream
//   ... enqueue kernels ...
//   double ms = timer.Stop(); // records the second event, waits for it, returns the elapsed milliseconds
//
//   MedianMilliseconds(n, run): one warm-up call (which also tunes the block size on first sight), then n calls,
//       each between two CUDA events on the default stream; returns the median in milliseconds.
//       std::invalid_argument for n < 1.
#pragma once

#include <functional>
#include <memory>

namespace lqcd::gpu {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void Start();
  double Stop();  // milliseconds since Start(); throws CudaError if the timed work faulted

 private:
  struct Events;
  std::unique_ptr<Events> events_;
};

double MedianMilliseconds(int repetitions, const std::function<void()>& run);

}  // namespace lqcd::gpu
