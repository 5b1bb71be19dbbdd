// event_timer.h: timing device work with CUDA events (the GPU's own clock, no host jitter), for benchmarks
// and the tuner's users. Host-only header (no CUDA types).
//
//   EventTimer timer;
//   timer.Start();            // records an event on the default stream
//   ... enqueue kernels ...
//   double ms = timer.Stop(); // records the second event, waits for it, returns the elapsed milliseconds
#pragma once

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

}  // namespace lqcd::gpu
