// scalar_program.h: the scalars of a Krylov iteration as small programs that the device evaluates itself,
// so that a kernel can use alpha = rho / (r0, v) while the host has not yet read (r0, v).
//
// A ScalarProgram is a postfix (stack) program over complex doubles: constants, loads of reduction results
// from device memory, and negate, conjugate, add, subtract, multiply, divide. A reduction result is a
// "slot" of kScalarSlotDoubles doubles (device_scalar.h); a load reads one real (imaginary part 0) or two
// consecutive doubles as a complex number. The device evaluates a program in a one-thread kernel queued
// ahead of the vector kernel that needs the value (device_scalar.cu); the host evaluates the same program
// after the reductions it reads are complete.
//
// Evaluation is IEEE double with every operation rounded on its own (no fused multiply-add on the device:
// __dmul_rn, __dadd_rn, __ddiv_rn; the host compiler targets x86-64 without FMA), in the program's order, so
// the host value and the value every kernel uses are the same bits. Complex division by (c, 0) divides both
// parts by c; by a general (c, d) it multiplies by the conjugate and divides by c^2 + d^2 (the values here are
// norms and dot products of fields, far from overflow).
//
// Plain C++ (no CUDA types); the evaluation is __host__ __device__ under nvcc.
#pragma once

#ifdef __CUDACC__
#define LQCD_HOST_DEVICE __host__ __device__
#else
#define LQCD_HOST_DEVICE
#endif

namespace lqcd::gpu {

inline constexpr int kScalarSlotDoubles = 4;      // a reduction writes at most 4 doubles
inline constexpr int kMaxScalarInstructions = 16;  // longer expressions are first evaluated into a slot

enum class ScalarOp : int {
  kConstant,     // push (re, im)
  kLoadReal,     // push (address[0], 0)
  kLoadComplex,  // push (address[0], address[1])
  kNegate,
  kConjugate,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
};

struct ScalarInstruction {
  ScalarOp op = ScalarOp::kConstant;
  const double* address = nullptr;  // loads: where the value is (device memory in kernels, host memory on the host)
  double re = 0, im = 0;            // kConstant
};

struct ScalarValue {
  double re = 0, im = 0;
};

// A program with `size` instructions; the value is what remains on the stack. size 0 means "no scalar".
struct ScalarProgram {
  int size = 0;
  ScalarInstruction code[kMaxScalarInstructions];
};

namespace scalar_detail {
#if defined(__CUDA_ARCH__)
__device__ inline double Mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline double Add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline double Sub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline double Div(double a, double b) { return __ddiv_rn(a, b); }
#else
inline double Mul(double a, double b) { return a * b; }
inline double Add(double a, double b) { return a + b; }
inline double Sub(double a, double b) { return a - b; }
inline double Div(double a, double b) { return a / b; }
#endif
}  // namespace scalar_detail

// The value of `program`; loads read through `address` (the host evaluates programs whose addresses are the
// host copies of the slots, kernels programs with the device copies). Programs are well formed by
// construction (device_scalar.cc builds every one: each operation pops what an earlier part pushed).
LQCD_HOST_DEVICE inline ScalarValue Evaluate(const ScalarProgram& program) {
  using namespace scalar_detail;
  ScalarValue stack[kMaxScalarInstructions];
  int top = 0;
  for (int i = 0; i < program.size; ++i) {
    const ScalarInstruction& in = program.code[i];
    switch (in.op) {
      case ScalarOp::kConstant: stack[top++] = {in.re, in.im}; break;
      case ScalarOp::kLoadReal: stack[top++] = {in.address[0], 0.0}; break;
      case ScalarOp::kLoadComplex: stack[top++] = {in.address[0], in.address[1]}; break;
      case ScalarOp::kNegate: stack[top - 1] = {-stack[top - 1].re, -stack[top - 1].im}; break;
      case ScalarOp::kConjugate: stack[top - 1].im = -stack[top - 1].im; break;
      default: {
        const ScalarValue b = stack[--top];
        const ScalarValue a = stack[top - 1];
        ScalarValue c;
        switch (in.op) {
          case ScalarOp::kAdd: c = {Add(a.re, b.re), Add(a.im, b.im)}; break;
          case ScalarOp::kSubtract: c = {Sub(a.re, b.re), Sub(a.im, b.im)}; break;
          case ScalarOp::kMultiply:
            c = {Sub(Mul(a.re, b.re), Mul(a.im, b.im)), Add(Mul(a.re, b.im), Mul(a.im, b.re))};
            break;
          default:  // kDivide
            if (b.im == 0) {
              c = {Div(a.re, b.re), Div(a.im, b.re)};
            } else {
              const double d = Add(Mul(b.re, b.re), Mul(b.im, b.im));
              c = {Div(Add(Mul(a.re, b.re), Mul(a.im, b.im)), d), Div(Sub(Mul(a.im, b.re), Mul(a.re, b.im)), d)};
            }
            break;
        }
        stack[top - 1] = c;
      }
    }
  }
  return stack[0];
}

}  // namespace lqcd::gpu
