// blas.h: the fused vector operations of the solvers' backend interface (solvers/README.md) on device
// spinor fields, in double, single and half precision: the paper's section 5.1 kernels ("the AXPY
// operation to update the residual and the calculation of its norm can be combined into a single kernel").
//
// Host-only header (no CUDA types); kernels in blas.cu, checks and dispatch in blas.cc.
//
// Semantics: exactly those of solvers/README.md, on DeviceSpinorField (full lattice or one parity):
//   (x, y) = sum_i conj(x_i) y_i; scalars arrive in double and are rounded to the compute type first.
//   Compute type: double for double fields, float for single AND half fields. Each kernel loads a site
//   (half: level q times (norm * (1 / 32767)), the product rounded to float, as the Dslash kernels
//   decode), combines in the compute type, and stores rounded to the storage (half: the per-site norm
//   quantisation of spinor_accessor.cuh, the same format the Dslash writes). Returned norms and dots are
//   of the values AS STORED (for half: the decoded stored values), accumulated with explicit fused
//   multiply-adds in one fixed order, so e.g. AxpyNorm(a, x, y) returns bit for bit what Norm2(y) returns
//   afterwards, and ReDot what Re Dot returns. Inside an operation nvcc contracts a * b + c into fused
//   multiply-adds, so an element-wise result may differ from the CPU backend's (which does not) by the
//   rounding of a product (bounded in blas_test.cc).
//
// Reductions are accumulated in double and are DETERMINISTIC: the launch geometry depends only on the
// number of sites (kBlasBlock threads per block, min(ceil(n / kBlasBlock), kBlasMaxBlocks) blocks, a
// grid-stride loop over the sites in index order), each thread sums its sites in that order, each block
// sums its threads in a fixed tree (warp shuffles, then the warps' sums) and writes one partial per block;
// the last block to finish (an integer atomic counter: which block that is varies with timing, what it
// sums and in which order does not) sums the partials, block 0 first, in the same fixed tree and writes
// the result into a ScalarSlot (device_scalar.h: device memory for later kernels, pinned host memory for
// the host). No floating-point atomics, no tuner: the same inputs give the same bits on every run, whatever
// else ran before, on any device. The launch tuner is therefore not used here: the block size decides the
// summation order. (The element-wise kernels share the geometry; solver_benchmark reports the bandwidth
// they reach with it.)
//
// Global reductions over ranks (domain decomposition, gpu/partitioned_dslash.h): fields then hold one rank's
// sites, and a solver needs the norms and dots of the GLOBAL vector. SetReductionCommunicator(c) makes every
// reduction here (Norm2, Dot, ReDot, DotNorm, AllFinite, AxpyNorm, CaxpyNorm, CgUpdate, BicgstabUpdate)
// return the sum over ranks of the local results: the local reduction above (deterministic), then ONE
// c->SumDeterministic call with all of the reduction's components in one vector (one message per reduction),
// which adds the ranks' partials in rank order (gpu/comm/communicator.h). The global result is therefore
// deterministic too: it depends only on the fields and the process grid, the same bits on every rank and on
// every run; it differs from the single-GPU result on the global lattice only in the summation order (the
// global sum is a sum of per-rank trees, not one tree). The host way waits for each local result before the message;
// SetReductionCommunicator(c, on_devices) adds the same partials in the same order on the devices instead
// (DeviceRankSum, device_rank_sum.h: NCCL all-gather, then a rank-order sum kernel), so the host does not wait
// and the solvers' scalars stay on the device as on one GPU: the same bits either way. AllFinite stays exact: a local partial is 0 or NaN
// (0 * Inf = NaN) and NaN survives the sum, so every rank gets the same answer and takes the same branch.
// Every rank must then make the same sequence of reductions (a collective; the solvers do, since every rank
// sees the same global scalars). Null (the default) means one rank: the local result is returned untouched,
// bit for bit what it was before this hook existed. The setting is process-wide, not thread-safe, and the
// communicator must outlive it; ScopedReductionCommunicator sets it for a scope and restores the previous one.
// Element-wise operations never communicate.
//
// Aliasing: element-wise; every thread loads all inputs of a site before it stores any output, so an
// output may be the same field as any input (y may alias x in Axpy, etc.). Fields of one call must have
// the same lattice and subset (std::invalid_argument otherwise, naming the operation and both shapes) and,
// except in Convert, the same precision; their pads may differ.
//
// Cost (Cost()): flops per real component as solvers/vector_flops.h (a complex multiply-add 8 per complex
// number); bytes = every field read once and every field written once, 24 reals per site plus a 4-byte
// norm per site in half (a Zero and a Copy are memset/memcpy of that many bytes).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "gpu/blas_operation.h"
#include "gpu/comm/communicator.h"
#include "gpu/device_rank_sum.h"
#include "gpu/device_scalar.h"
#include "gpu/device_spinor_field.h"
#include "gpu/precision.h"

namespace lqcd::gpu::blas {

struct OperationInfo {
  const char* name;
  double flops_per_real;  // as solvers/vector_flops.h
  int fields_read;
  int fields_written;
};
OperationInfo InfoOf(Operation op);

struct BlasCost {
  double flops = 0;
  double bytes = 0;
};
// One call on `sites` sites; fields in `precision` (Convert: read in `precision`, written in `written`).
BlasCost Cost(Operation op, Precision precision, double sites, Precision written);
inline BlasCost Cost(Operation op, Precision precision, double sites) { return Cost(op, precision, sites, precision); }

struct DotAndNorm {
  std::complex<double> dot;  // (x, y)
  double norm2;              // |x|^2
};
struct NormAndDot {
  double norm2;              // |r|^2 of the new r
  std::complex<double> dot;  // (r0, r) of the new r
};
struct DeferredDotAndNorm {
  DeviceComplex dot;
  DeviceReal norm2;
};
struct DeferredNormAndDot {
  DeviceReal norm2;
  DeviceComplex dot;
};

// Scalars: every operation takes its scalars as DeviceReal / DeviceComplex (device_scalar.h), so a plain
// number and a value computed from reductions the host has not read are both accepted. A constant goes to the
// kernel as an argument; any other value goes as its program, which the kernel evaluates once per thread block
// when its grid is one wave (no extra launch), else a one-thread kernel queued ahead (about 2-3 us of device
// time); no host wait either way. Reductions come in two forms: the plain one waits and returns numbers; the
// ...Deferred one queues the kernel and returns device values at once (read them with Host(), which waits
// for that reduction only). Both give the same bits. With a reduction communicator every reduction waits
// (the sum over ranks is made on the host), deferred or not.

void Zero(DeviceSpinorField& x);                                    // x = 0 (memset: +0.0, half q = 0, norm 0)
void Copy(DeviceSpinorField& y, const DeviceSpinorField& x);        // y = x bit for bit (raw words and norms)
void Convert(DeviceSpinorField& y, const DeviceSpinorField& x);     // y = x rounded to y's precision
double Norm2(const DeviceSpinorField& x);                            // |x|^2
DeviceReal Norm2Deferred(const DeviceSpinorField& x);
std::complex<double> Dot(const DeviceSpinorField& x, const DeviceSpinorField& y);  // (x, y)
double ReDot(const DeviceSpinorField& x, const DeviceSpinorField& y);              // Re (x, y)
DeviceReal ReDotDeferred(const DeviceSpinorField& x, const DeviceSpinorField& y);
DotAndNorm DotNorm(const DeviceSpinorField& x, const DeviceSpinorField& y);        // (x, y) and |x|^2
DeferredDotAndNorm DotNormDeferred(const DeviceSpinorField& x, const DeviceSpinorField& y);
bool AllFinite(const DeviceSpinorField& x);  // no NaN or Inf among the loaded values (sum of 0 * x_i is 0)
void Axpy(const DeviceReal& a, const DeviceSpinorField& x, DeviceSpinorField& y);                 // y += a x
double AxpyNorm(const DeviceReal& a, const DeviceSpinorField& x, DeviceSpinorField& y);           // y += a x; |y|^2
DeviceReal AxpyNormDeferred(const DeviceReal& a, const DeviceSpinorField& x, DeviceSpinorField& y);
void Xpay(const DeviceSpinorField& x, const DeviceReal& a, DeviceSpinorField& y);                 // y = x + a y
void Caxpy(const DeviceComplex& a, const DeviceSpinorField& x, DeviceSpinorField& y);             // y += a x
double CaxpyNorm(const DeviceComplex& a, const DeviceSpinorField& x, DeviceSpinorField& y);
DeviceReal CaxpyNormDeferred(const DeviceComplex& a, const DeviceSpinorField& x, DeviceSpinorField& y);
// x += alpha p; r -= alpha q; returns |r|^2.
double CgUpdate(const DeviceReal& alpha, const DeviceSpinorField& p, const DeviceSpinorField& q, DeviceSpinorField& x,
                DeviceSpinorField& r);
// x += alpha p; p = r + beta p (the old p in both): CG's solution update and next direction in one pass.
void CgSolutionDirection(const DeviceReal& alpha, const DeviceReal& beta, const DeviceSpinorField& r,
                         DeviceSpinorField& x, DeviceSpinorField& p);
// p = r + beta (p - omega v).
void BicgstabDirection(const DeviceSpinorField& r, const DeviceComplex& beta, const DeviceComplex& omega,
                       const DeviceSpinorField& v, DeviceSpinorField& p);
// r holds s on entry: x += alpha p + omega s; r = s - omega t; returns |r|^2 and (r0, r).
NormAndDot BicgstabUpdate(const DeviceComplex& alpha, const DeviceSpinorField& p, const DeviceComplex& omega,
                          const DeviceSpinorField& t, DeviceSpinorField& x, DeviceSpinorField& r,
                          const DeviceSpinorField& r0);
// BicgstabUpdate in two kernels, same arithmetic: t = s - omega t, returning |t|^2 and (r0, t) (deferred);
// then x += alpha p + omega s.
DeferredNormAndDot BicgstabResidual(const DeviceComplex& omega, DeviceSpinorField& t, const DeviceSpinorField& s,
                                    const DeviceSpinorField& r0);
void BicgstabSolution(const DeviceComplex& alpha, const DeviceSpinorField& p, const DeviceComplex& omega,
                      const DeviceSpinorField& s, DeviceSpinorField& x);

// A slot whose device copy holds a's value once the stream reaches it (a one-thread kernel queued now, also for
// a constant): for kernels outside this file that read a deferred scalar through a pointer. Keep the slot until
// those kernels are queued.
std::shared_ptr<ScalarSlot> EvaluateIntoSlot(const DeviceReal& a);

// The sum of `groups` partial sums of 3 doubles (Re, Im of a dot product, a norm), e.g. those of a Dslash with the
// fused dot products (wilson_dslash.h, ApplyWilsonDslashXpayDotNorm), as a deferred dot and norm: the same
// fixed-order reduction (and, with a reduction communicator, the same sum over ranks) as every reduction here.
DeferredDotAndNorm SumDotNormPartials(const double* partials, int groups);
// The sum of `count` partial sums of one double (e.g. the staggered Dslash's fused curvature, staggered_dslash.h), as
// a deferred real, by the same fixed-order reduction.
DeviceReal SumRealPartials(const double* partials, int count);
// `ranges` such sums at once: value j sums partials[j * count, (j + 1) * count), the same bits as
// SumRealPartials(partials + j * count, count); one launch per four ranges (a slot's doubles) instead of one each.
std::vector<DeviceReal> SumRealPartialsOfRanges(const double* partials, int count, int ranges);
// The same, with the device address of each sum (in the slot its value reads, so valid while that value lives), for
// a kernel queued later that reads a sum through a pointer (the staggered Dslash's fused CG update).
struct RealSumsOnDevice {
  std::vector<DeviceReal> values;
  std::vector<const double*> device_addresses;
};
RealSumsOnDevice SumRealPartialsOfRangesOnDevice(const double* partials, int count, int ranges);

// Global reductions (see the file comment). null = one rank (the default). With `on_devices` (built on the
// same communicator; std::invalid_argument otherwise) the ranks' partials are added on the devices instead of
// through the host (device_rank_sum.h): the same bits, no host round trip.
void SetReductionCommunicator(comm::Communicator* communicator, const DeviceRankSum* on_devices = nullptr);
comm::Communicator* ReductionCommunicator();
const DeviceRankSum* ReductionOnDevices();  // null: the host adds the partials (or one rank)

// Sets the reduction communicator for its lifetime and restores the previous one (null included) after.
class ScopedReductionCommunicator {
 public:
  explicit ScopedReductionCommunicator(comm::Communicator* communicator, const DeviceRankSum* on_devices = nullptr)
      : previous_(ReductionCommunicator()), previous_on_devices_(ReductionOnDevices()) {
    SetReductionCommunicator(communicator, on_devices);
  }
  ~ScopedReductionCommunicator() { SetReductionCommunicator(previous_, previous_on_devices_); }
  ScopedReductionCommunicator(const ScopedReductionCommunicator&) = delete;
  ScopedReductionCommunicator& operator=(const ScopedReductionCommunicator&) = delete;

 private:
  comm::Communicator* previous_;
  const DeviceRankSum* previous_on_devices_;
};

// Raw copy of one parity's storage between views of the same precision (words and norms, any pads):
// the restriction of a full field to a parity and its inverse. Asynchronous (default stream).
void CopyParity(const SpinorView& to, const ConstSpinorView& from);

// "4x4x4x8 even double" (for messages).
std::string Describe(const DeviceSpinorField& x);

}  // namespace lqcd::gpu::blas
