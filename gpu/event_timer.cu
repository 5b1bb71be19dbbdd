// event_timer.cu: CUDA events behind event_timer.h.
#include "gpu/event_timer.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "gpu/cuda_check.h"

namespace lqcd::gpu {

struct EventTimer::Events {
  cudaEvent_t start = nullptr, stop = nullptr;
};

EventTimer::EventTimer() : events_(std::make_unique<Events>()) {
  LQCD_CUDA_CHECK(cudaEventCreate(&events_->start));
  LQCD_CUDA_CHECK(cudaEventCreate(&events_->stop));
}

EventTimer::~EventTimer() {
  cudaEventDestroy(events_->start);
  cudaEventDestroy(events_->stop);
}

void EventTimer::Start() { LQCD_CUDA_CHECK(cudaEventRecord(events_->start)); }

double EventTimer::Stop() {
  LQCD_CUDA_CHECK(cudaEventRecord(events_->stop));
  LQCD_CUDA_CHECK(cudaEventSynchronize(events_->stop));
  float ms = 0;
  LQCD_CUDA_CHECK(cudaEventElapsedTime(&ms, events_->start, events_->stop));
  return ms;
}

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

}  // namespace lqcd::gpu
