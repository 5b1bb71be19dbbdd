// device_scalar.h: scalars that stay on the device until the host needs them.
//
// A Krylov iteration computes its scalars (alpha = rho / (r0, v), omega = (t, s) / (t, t), beta, ...) from
// reductions and feeds them to the next vector kernel. Reading every reduction on the host before queueing the
// next kernel leaves the device idle for a host round trip each time (launch, synchronisation, read: 10-15 us,
// docs/gpu_results.md). Here a reduction writes its result into a ScalarSlot (device memory for later kernels,
// mapped pinned host memory for the host, and an event), and returns a DeviceReal / DeviceComplex that names
// it. Arithmetic on those values builds a ScalarProgram (scalar_program.h) instead of computing. A vector
// operation given such a value passes the program to its kernel, which evaluates it once per thread block
// before its site loop, or, for a grid of several waves, has a one-thread kernel evaluate it into a slot first
// (gpu/blas.cu's Run; constants go to the kernels as arguments, as plain numbers did before). The
// host gets a number only when it asks (Host()), which waits for the reductions the value reads, not for the
// whole stream; so a solver can queue the next kernel first and read while the device works (solvers/README.md,
// "Deferred scalars").
//
// The host and the device evaluate the same program with the same roundings: Host() is bit for bit the value
// the kernels used. A constant (a double or std::complex<double> converts implicitly) is a one-instruction
// program, so the vector operations take plain numbers as before.
//
// Lifetime: a value keeps the slots it reads alive (shared ownership); a slot returns to a process-wide pool
// when the last value reading it goes. Kernels run on the default stream in queue order, so a slot reused by a
// later reduction is written only after every kernel queued before has read it. Single-threaded use (the
// solvers' backend is not thread-safe either). Host-only header (no CUDA types).
#pragma once

#include <complex>
#include <memory>
#include <type_traits>
#include <vector>

#include "gpu/scalar_program.h"

namespace lqcd::gpu {

// kScalarSlotDoubles doubles on the device and in pinned host memory, and the event after which both hold
// what a kernel wrote.
class ScalarSlot {
 public:
  // A slot from the pool (allocated in blocks on first use; never freed back to the driver).
  static std::shared_ptr<ScalarSlot> Acquire();

  double* device() const { return device_; }                  // the copy kernels read
  double* host() const { return host_; }                      // the pinned host copy
  double* host_on_device() const { return host_on_device_; }  // the device's address of the host copy

  // After queueing the kernel that writes both copies: records the event (default stream).
  void MarkWritten();
  // Waits for that event (a device fault surfaces here as std::runtime_error).
  void Wait() const;
  // Writes `values` into both copies now (the host computed them, e.g. a sum over ranks); synchronous.
  void Set(const double* values, int count);

  ScalarSlot(double* device, double* host, double* host_on_device, void* event)
      : device_(device), host_(host), host_on_device_(host_on_device), event_(event) {}

 private:
  double* device_;
  double* host_;
  double* host_on_device_;
  void* event_;  // cudaEvent_t
  bool pending_ = false;
};

namespace scalar_detail {

// A program whose loads name slots by index into `slots` (the addresses differ between host and device).
struct Expression {
  struct Step {
    ScalarOp op = ScalarOp::kConstant;
    int slot = -1;  // loads
    int component = 0;
    double re = 0, im = 0;
  };
  std::vector<Step> steps;
  std::vector<std::shared_ptr<ScalarSlot>> slots;
};
using ExpressionPtr = std::shared_ptr<const Expression>;

ExpressionPtr Constant(double re, double im);
ExpressionPtr Load(std::shared_ptr<ScalarSlot> slot, int component, bool complex);
ExpressionPtr Unary(ScalarOp op, const ExpressionPtr& a);
// a op b; an operand is first evaluated into a slot on the device when the program would get too long.
ExpressionPtr Binary(ScalarOp op, const ExpressionPtr& a, const ExpressionPtr& b);
ScalarValue EvaluateOnHost(const Expression& e);   // waits for the slots it reads
ScalarProgram DeviceProgram(const Expression& e);  // the program with device addresses
// True, with the value, when `e` is one constant.
bool IsConstant(const Expression& e, ScalarValue* value);

}  // namespace scalar_detail

// A real (T = double) or complex (T = std::complex<double>) scalar that may live on the device.
template <typename T>
class DeviceValue {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>, "double or complex");
  using Expr = scalar_detail::ExpressionPtr;

 public:
  DeviceValue() : DeviceValue(T{}) {}
  DeviceValue(T constant) : e_(scalar_detail::Constant(std::real(constant), std::imag(constant))) {}  // NOLINT
  // A real value is a complex one with zero imaginary part.
  template <typename U = T, std::enable_if_t<std::is_same_v<U, std::complex<double>>, int> = 0>
  DeviceValue(double real) : e_(scalar_detail::Constant(real, 0)) {}  // NOLINT
  template <typename U = T, std::enable_if_t<std::is_same_v<U, std::complex<double>>, int> = 0>
  DeviceValue(double re, double im) : e_(scalar_detail::Constant(re, im)) {}  // NOLINT: {re, im}
  template <typename U = T, std::enable_if_t<std::is_same_v<U, std::complex<double>>, int> = 0>
  DeviceValue(const DeviceValue<double>& real) : e_(real.expression()) {}  // NOLINT

  // Component `component` of `slot` (complex: it and the next).
  static DeviceValue InSlot(std::shared_ptr<ScalarSlot> slot, int component) {
    return DeviceValue(scalar_detail::Load(std::move(slot), component, std::is_same_v<T, std::complex<double>>));
  }

  // The value on the host: waits for the reductions it reads. The same bits the kernels use.
  T Host() const {
    const ScalarValue v = scalar_detail::EvaluateOnHost(*e_);
    if constexpr (std::is_same_v<T, double>) {
      return v.re;
    } else {
      return {v.re, v.im};
    }
  }
  ScalarProgram Program() const { return scalar_detail::DeviceProgram(*e_); }
  // True, with the number, when this value is a constant (nothing to evaluate on the device).
  bool IsConstant(T* value) const {
    ScalarValue v;
    if (!scalar_detail::IsConstant(*e_, &v)) return false;
    if constexpr (std::is_same_v<T, double>) {
      *value = v.re;
    } else {
      *value = {v.re, v.im};
    }
    return true;
  }
  const Expr& expression() const { return e_; }

  friend DeviceValue operator-(const DeviceValue& a) { return DeviceValue(scalar_detail::Unary(ScalarOp::kNegate, a.e_)); }
  friend DeviceValue operator+(const DeviceValue& a, const DeviceValue& b) { return Bin(ScalarOp::kAdd, a, b); }
  friend DeviceValue operator-(const DeviceValue& a, const DeviceValue& b) { return Bin(ScalarOp::kSubtract, a, b); }
  friend DeviceValue operator*(const DeviceValue& a, const DeviceValue& b) { return Bin(ScalarOp::kMultiply, a, b); }
  friend DeviceValue operator/(const DeviceValue& a, const DeviceValue& b) { return Bin(ScalarOp::kDivide, a, b); }
  friend DeviceValue conj(const DeviceValue& a) {
    if constexpr (std::is_same_v<T, double>) {
      return a;
    } else {
      return DeviceValue(scalar_detail::Unary(ScalarOp::kConjugate, a.e_));
    }
  }

 private:
  explicit DeviceValue(Expr e) : e_(std::move(e)) {}
  static DeviceValue Bin(ScalarOp op, const DeviceValue& a, const DeviceValue& b) {
    return DeviceValue(scalar_detail::Binary(op, a.e_, b.e_));
  }
  Expr e_;
};

using DeviceReal = DeviceValue<double>;
using DeviceComplex = DeviceValue<std::complex<double>>;

// A fresh slot that a one-thread kernel queued now fills with the values of both programs (both copies: doubles
// 0, 1 = a, doubles 2, 3 = b; a program of size 0 gives 0), for kernels queued later and for the host. Keep it
// until those kernels are queued.
std::shared_ptr<ScalarSlot> EvaluatedIntoNewSlot(const ScalarPair& programs);

// The scalars a (and b) of one vector operation, as its kernel takes them: when both are constants, their numbers
// (kernel arguments); otherwise the programs of both (a constant as a one-instruction program), which the
// operation's launcher hands to its kernel (evaluated there once per thread block, or first by a one-thread
// kernel for a grid that takes several passes: gpu/blas.cu's Run, gpu/staggered_blas.cc's SetScalars). Nothing
// is queued here: the slots the programs read belong to a and b, which must live until the kernel is queued;
// their later reuse is stream-ordered.
// gpu/blas.cc and gpu/staggered_blas.cc launch their operations through this.
struct OperationScalars {
  std::complex<double> a, b;  // the numbers, when !on_device
  bool on_device = false;     // else the kernel evaluates `programs`
  ScalarPair programs;
};
OperationScalars PrepareOperationScalars(const DeviceComplex& a, const DeviceComplex* b = nullptr);

}  // namespace lqcd::gpu
