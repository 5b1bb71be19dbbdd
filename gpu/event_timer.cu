// event_timer.cu: CUDA events behind event_timer.h.
#include "gpu/event_timer.h"

#include <cuda_runtime.h>

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

}  // namespace lqcd::gpu
