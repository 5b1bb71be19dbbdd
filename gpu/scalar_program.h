// scalar_program.h: the scalars of a Krylov iteration as small programs that the device evaluates itself,
// so that a kernel can use alpha = rho / (r0, v) while the host has not yet read (r0, v).
//
// A ScalarProgram is a postfix (stack) program over complex doubles: constants, loads of reduction results
// from device memory, and negate, conjugate, add, subtract, multiply, divide. A reduction result is a
// "slot" of kScalarSlotDoubles doubles (device_scalar.h); a load reads one real (imaginary part 0) or two
// consecutive doubles as a complex number. A vector kernel that takes a deferred scalar evaluates its
// program itself, once per thread block, when its grid covers the field in one pass (EvaluatePairIntoShared,
// ScalarSource below); otherwise, and for a value that a Dslash kernel takes or a program too long for
// kMaxScalarInstructions, a one-thread kernel first evaluates it into a slot (device_scalar.cu); the host
// evaluates the same program after the reductions it reads are complete.
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

// The scalars a and b of one vector operation (b.size 0: no second scalar), as a kernel argument.
struct ScalarPair {
  ScalarProgram a, b;
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

// The value of instruction `in` if it is a load, read through its address (else 0).
LQCD_HOST_DEVICE inline ScalarValue LoadOf(const ScalarInstruction& in) {
  if (in.op == ScalarOp::kLoadReal) return {in.address[0], 0.0};
  if (in.op == ScalarOp::kLoadComplex) return {in.address[0], in.address[1]};
  return {};
}

// The value of `program`, with the value of its i-th instruction, when that is a load, taken from loaded(i).
// Programs are well formed by construction (device_scalar.cc builds every one: each operation pops what an
// earlier part pushed).
template <typename Loaded>
LQCD_HOST_DEVICE inline ScalarValue EvaluateWith(const ScalarProgram& program, const Loaded& loaded) {
  using namespace scalar_detail;
  ScalarValue stack[kMaxScalarInstructions];
  int top = 0;
  for (int i = 0; i < program.size; ++i) {
    const ScalarInstruction& in = program.code[i];
    switch (in.op) {
      case ScalarOp::kConstant: stack[top++] = {in.re, in.im}; break;
      case ScalarOp::kLoadReal:
      case ScalarOp::kLoadComplex: stack[top++] = loaded(i); break;
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

// Loads read when the interpreter reaches them.
struct LoadsInPlace {
  const ScalarProgram& program;
  LQCD_HOST_DEVICE ScalarValue operator()(int i) const { return LoadOf(program.code[i]); }
};

// The value of `program`; loads read through `address` (the host evaluates programs whose addresses are the
// host copies of the slots, kernels programs with the device copies).
LQCD_HOST_DEVICE inline ScalarValue Evaluate(const ScalarProgram& program) {
  return EvaluateWith(program, LoadsInPlace{program});
}

#if defined(__CUDACC__)
// Where a vector kernel (gpu/blas.cu, gpu/staggered_blas.cu) finds its scalars: as numbers among its arguments
// (constants), or as deferred values: their values in device memory, which a one-thread kernel queued before it
// evaluated (device_scalar.h), or their programs, which thread 0 of each block evaluates into shared memory
// before the site loop (EvaluatePairIntoShared). The launchers take the programs only when the grid covers the
// field in one pass of resident blocks: then the kernel is short, its launches bound the solve, and one
// evaluation's latency inside it costs less than the extra launch; a longer kernel would wait for the
// evaluation in each pass (measured in docs/gpu_results.md).
enum class ScalarSource { kArguments, kValuesInMemory, kPrograms };
template <ScalarSource kSource>
struct ScalarSourceArg {};  // kArguments: nothing
template <>
struct ScalarSourceArg<ScalarSource::kValuesInMemory> {
  const double* values;  // a.re, a.im, b.re, b.im
};
template <>
struct ScalarSourceArg<ScalarSource::kPrograms> {
  ScalarPair pair;
};

// Loads read beforehand (PrefetchLoads).
struct LoadsPrefetched {
  const ScalarValue* values;
  __device__ ScalarValue operator()(int i) const { return values[i]; }
};

// Every load of `program` issued at once (the loop is unrolled, each load predicated on the instruction being
// one), so that their latencies overlap instead of adding up in the interpreter.
__device__ __forceinline__ void PrefetchLoads(const ScalarProgram& program, ScalarValue* values) {
#pragma unroll
  for (int i = 0; i < kMaxScalarInstructions; ++i) {
    values[i] = i < program.size ? LoadOf(program.code[i]) : ScalarValue{};
  }
}

// For thread 0 of a block: a and b of `pair` into values[0..3] (a.re, a.im, b.re, b.im), with the same bits
// as Evaluate (only the loads move). Not inlined, so that its stack and registers stay out of the calling
// kernel's site loop.
__device__ __noinline__ inline void EvaluatePairIntoShared(const ScalarPair& pair, double* values) {
  ScalarValue loaded_a[kMaxScalarInstructions], loaded_b[kMaxScalarInstructions];
  PrefetchLoads(pair.a, loaded_a);
  PrefetchLoads(pair.b, loaded_b);
  const ScalarValue a = EvaluateWith(pair.a, LoadsPrefetched{loaded_a});
  const ScalarValue b = pair.b.size > 0 ? EvaluateWith(pair.b, LoadsPrefetched{loaded_b}) : ScalarValue{};
  values[0] = a.re;
  values[1] = a.im;
  values[2] = b.re;
  values[3] = b.im;
}
#endif

}  // namespace lqcd::gpu
