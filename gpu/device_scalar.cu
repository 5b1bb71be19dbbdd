// device_scalar.cu: the slot pool, building programs, evaluating them on the host and into a slot.
#include "gpu/device_scalar.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "gpu/cuda_check.h"

namespace lqcd::gpu {
namespace {

// Slots are allocated kSlotsPerBlock at a time (one cudaMalloc, one cudaHostAlloc) and recycled through a
// free list; the pool lives for the process (freeing at exit would race the runtime's teardown).
constexpr int kSlotsPerBlock = 256;

class SlotPool {
 public:
  std::shared_ptr<ScalarSlot> Acquire() {
    if (free_.empty()) Grow();
    ScalarSlot* slot = free_.back();
    free_.pop_back();
    return std::shared_ptr<ScalarSlot>(slot, [this](ScalarSlot* s) { free_.push_back(s); });
  }

 private:
  void Grow() {
    double* device = nullptr;
    double* host = nullptr;
    double* host_on_device = nullptr;
    const std::size_t bytes = sizeof(double) * kScalarSlotDoubles * kSlotsPerBlock;
    LQCD_CUDA_CHECK(cudaMalloc(&device, bytes));
    LQCD_CUDA_CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocMapped));
    LQCD_CUDA_CHECK(cudaHostGetDevicePointer(&host_on_device, host, 0));
    for (int i = 0; i < kSlotsPerBlock; ++i) {
      cudaEvent_t event = nullptr;
      LQCD_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      const int offset = i * kScalarSlotDoubles;
      // Owned by the pool for the life of the process (see above).
      free_.push_back(new ScalarSlot(device + offset, host + offset, host_on_device + offset, event));
    }
  }
  std::vector<ScalarSlot*> free_;
};

SlotPool& Pool() {
  static SlotPool* pool = new SlotPool;
  return *pool;
}

__global__ void EvaluatePairKernel(ScalarProgram a, ScalarProgram b, double* device, double* host) {
  const ScalarValue va = a.size > 0 ? Evaluate(a) : ScalarValue{};
  const ScalarValue vb = b.size > 0 ? Evaluate(b) : ScalarValue{};
  const double values[4] = {va.re, va.im, vb.re, vb.im};
  for (int k = 0; k < 4; ++k) {
    device[k] = values[k];
    host[k] = values[k];
  }
}

int ArityOf(ScalarOp op) {
  switch (op) {
    case ScalarOp::kConstant:
    case ScalarOp::kLoadReal:
    case ScalarOp::kLoadComplex: return 0;
    case ScalarOp::kNegate:
    case ScalarOp::kConjugate: return 1;
    default: return 2;
  }
}

// Appends e's steps to `out`, renumbering its slots.
void Append(const scalar_detail::Expression& e, scalar_detail::Expression& out) {
  const int base = static_cast<int>(out.slots.size());
  out.slots.insert(out.slots.end(), e.slots.begin(), e.slots.end());
  for (scalar_detail::Expression::Step s : e.steps) {
    if (s.slot >= 0) s.slot += base;
    out.steps.push_back(s);
  }
}

// e evaluated into a fresh slot on the device (queued), as a one-load expression.
scalar_detail::ExpressionPtr Materialise(const scalar_detail::ExpressionPtr& e) {
  return scalar_detail::Load(EvaluatedIntoNewSlot({scalar_detail::DeviceProgram(*e), ScalarProgram{}}), 0, true);
}

template <typename AddressOf>
ScalarProgram ProgramOf(const scalar_detail::Expression& e, AddressOf address_of) {
  if (e.steps.size() > static_cast<std::size_t>(kMaxScalarInstructions)) {
    throw std::logic_error("DeviceValue: a program longer than kMaxScalarInstructions");
  }
  ScalarProgram p;
  p.size = static_cast<int>(e.steps.size());
  for (int i = 0; i < p.size; ++i) {
    const scalar_detail::Expression::Step& s = e.steps[i];
    ScalarInstruction& in = p.code[i];
    in.op = s.op;
    in.re = s.re;
    in.im = s.im;
    if (s.slot >= 0) in.address = address_of(*e.slots[s.slot]) + s.component;
  }
  return p;
}

}  // namespace

std::shared_ptr<ScalarSlot> ScalarSlot::Acquire() { return Pool().Acquire(); }

void ScalarSlot::MarkWritten() {
  LQCD_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event_), nullptr));
  pending_ = true;
}

void ScalarSlot::Wait() const {
  if (!pending_) return;
  LQCD_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)));
}

void ScalarSlot::Set(const double* values, int count) {
  if (count < 0 || count > kScalarSlotDoubles) throw std::invalid_argument("ScalarSlot::Set: bad count");
  Wait();
  std::copy(values, values + count, host_);
  LQCD_CUDA_CHECK(cudaMemcpy(device_, values, sizeof(double) * count, cudaMemcpyHostToDevice));
  pending_ = false;
}

namespace scalar_detail {

ExpressionPtr Constant(double re, double im) {
  auto e = std::make_shared<Expression>();
  Expression::Step s;
  s.op = ScalarOp::kConstant;
  s.re = re;
  s.im = im;
  e->steps.push_back(s);
  return e;
}

ExpressionPtr Load(std::shared_ptr<ScalarSlot> slot, int component, bool complex) {
  if (component < 0 || component + (complex ? 2 : 1) > kScalarSlotDoubles) {
    throw std::invalid_argument("DeviceValue: slot component out of range");
  }
  auto e = std::make_shared<Expression>();
  e->slots.push_back(std::move(slot));
  Expression::Step s;
  s.op = complex ? ScalarOp::kLoadComplex : ScalarOp::kLoadReal;
  s.slot = 0;
  s.component = component;
  e->steps.push_back(s);
  return e;
}

ExpressionPtr Unary(ScalarOp op, const ExpressionPtr& a) {
  if (ArityOf(op) != 1) throw std::logic_error("DeviceValue: not a unary operation");
  ExpressionPtr in = a;
  if (in->steps.size() + 1 > static_cast<std::size_t>(kMaxScalarInstructions)) in = Materialise(in);
  auto e = std::make_shared<Expression>();
  Append(*in, *e);
  Expression::Step s;
  s.op = op;
  e->steps.push_back(s);
  return e;
}

ExpressionPtr Binary(ScalarOp op, const ExpressionPtr& a, const ExpressionPtr& b) {
  if (ArityOf(op) != 2) throw std::logic_error("DeviceValue: not a binary operation");
  ExpressionPtr x = a, y = b;
  auto fits = [&] { return x->steps.size() + y->steps.size() + 1 <= static_cast<std::size_t>(kMaxScalarInstructions); };
  for (int pass = 0; pass < 2 && !fits(); ++pass) {  // the longer operand first; both are one load after two
    ExpressionPtr& longer = x->steps.size() >= y->steps.size() ? x : y;
    longer = Materialise(longer);
  }
  auto e = std::make_shared<Expression>();
  Append(*x, *e);
  Append(*y, *e);
  Expression::Step s;
  s.op = op;
  e->steps.push_back(s);
  return e;
}

ScalarValue EvaluateOnHost(const Expression& e) {
  for (const auto& slot : e.slots) slot->Wait();
  return Evaluate(ProgramOf(e, [](const ScalarSlot& s) { return s.host(); }));
}

ScalarProgram DeviceProgram(const Expression& e) {
  return ProgramOf(e, [](const ScalarSlot& s) { return s.device(); });
}

bool IsConstant(const Expression& e, ScalarValue* value) {
  if (e.steps.size() != 1 || e.steps[0].op != ScalarOp::kConstant) return false;
  *value = {e.steps[0].re, e.steps[0].im};
  return true;
}

}  // namespace scalar_detail

std::shared_ptr<ScalarSlot> EvaluatedIntoNewSlot(const ScalarPair& programs) {
  std::shared_ptr<ScalarSlot> slot = ScalarSlot::Acquire();
  EvaluatePairKernel<<<1, 1>>>(programs.a, programs.b, slot->device(), slot->host_on_device());
  LQCD_CUDA_CHECK(cudaGetLastError());
  slot->MarkWritten();
  return slot;
}

OperationScalars PrepareOperationScalars(const DeviceComplex& a, const DeviceComplex* b) {
  OperationScalars s;
  if (a.IsConstant(&s.a) && (b == nullptr || b->IsConstant(&s.b))) return s;
  s.on_device = true;
  s.programs.a = a.Program();
  if (b != nullptr) s.programs.b = b->Program();
  return s;
}

}  // namespace lqcd::gpu
