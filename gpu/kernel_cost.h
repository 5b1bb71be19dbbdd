// kernel_cost.h: what one kernel call does, in the units the roofline needs.
#pragma once

namespace lqcd::gpu {

struct KernelCost {
  double flops = 0;
  double bytes = 0;          // the kernel's loads and stores (each kernel's header states its model)
  double minimum_bytes = 0;  // each link, input and output field element moved once
};

}  // namespace lqcd::gpu
