// gpu_heatbath.h: the quenched update (reference/ensemble/heatbath.h) on the GPU, as a SweepEngine
// (reference/ensemble/quenched_generator.h) that GenerateQuenched drives: the same Cabibbo-Marinari heatbath
// over the three SU(2) subgroups and the same overrelaxation, checkerboarded by (mu, parity), with the same
// Philox stream per (sweep, mu, site, subgroup), so that the field is the CPU's BIT FOR BIT.
//
// Host-only header (no CUDA types). Implemented in gpu_heatbath.cu.
//
// Why bit identity holds (each point is pinned by a test: the CPU ones in reference/ensemble, heatbath_math_test
// (the kernels' source, heatbath_math.cuh, compiled for the host and compared with the CPU functions bit for bit,
// in CI without a GPU), and gpu_heatbath_test on a GPU):
//   - Every operation is an IEEE-754 double operation in the order the CPU performs it: additions, products,
//     divisions and square roots are correctly rounded on both; the kernels are compiled with --fmad=false (no
//     fused multiply-adds, which x86-64's baseline instruction set, the CPU build's, does not have either); the
//     elementary functions are portable_math.h's series, transcribed (frexp, ldexp, floor exact on both). The
//     transcription is __host__ __device__ code (heatbath_math.cuh), so its host build is tested on any machine.
//   - std::complex<double> arithmetic as libstdc++ does it without -ffast-math: (a + ib)(c + id) =
//     (ac - bd) + i(ad + bc), |z|^2 = x x + y y, real * complex componentwise.
//   - Eigen's 3x3 products sum their three terms in an order that depends on the left factor's storage: for a
//     plain (column-major) left factor ((t0 + t1) + t2), for an adjoint (row-major) left factor
//     (t0 + (t1 + t2)) (reference/ensemble/eigen_product_order_test.cc pins both); the staples use exactly
//     heatbath.cc's expressions, transcribed with those orders.
//   - Reunitarisation and measurements stay on the host (the driver's), on the downloaded field.
//
// GpuSweeps holds the field on the device in the host layout (GaugeField<double>: [site][mu], each link a
// column-major 3x3 of complex doubles): Load uploads, Store downloads. Heatbath and Overrelax launch one
// kernel per (mu, parity), one thread per site of that parity, and wait for the device (so that the driver's
// per-sweep timings are the kernels' times).
//
// Cost model of one link update (heatbath.h): kLinkUpdateFlops = 3315 nominal flops, without the random
// numbers and transcendental functions; bytes: the 18 staple links and the link read, the link written,
// kLinkUpdateBytes = 20 x 144. The kernels read the links as stored (array of structures), so neighbouring
// threads' loads are 144 bytes apart; the L2 cache serves the reuse of each link by the 18 staples it is in.
#pragma once

#include <cstdint>
#include <string>

#include "gpu/device_buffer.h"
#include "reference/ensemble/quenched_generator.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"

namespace lqcd::gpu {

class GpuSweeps : public SweepEngine {
 public:
  GpuSweeps() = default;

  void Load(const GaugeField<double>& u) override;
  // heatbath.h's HeatbathSweep: std::invalid_argument for a negative or non-finite beta, std::overflow_error
  // for a sweep number past the stream-id space (both before any device work); CudaError from the device.
  void Heatbath(double beta, std::uint64_t seed, std::uint64_t sweep) override;
  void Overrelax() override;  // heatbath.h's OverrelaxationSweep
  void Store(GaugeField<double>& u) override;
  std::string Describe() const override;  // "GPU: <device>"

 private:
  void RequireLoaded(const char* where) const;
  Lattice lattice_{2, 2, 2, 2};
  bool loaded_ = false;
  DeviceBuffer links_;
};

}  // namespace lqcd::gpu
