// blas.cc: argument checks, the cost table and dispatch of the fused vector operations (blas.h) to the
// kernels of blas.cu.
#include "gpu/blas.h"

#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/blas_launch.h"

namespace lqcd::gpu::blas {
namespace {

FieldRef RefOf(const DeviceSpinorField& f) {
  FieldRef r;
  if (f.subset() == Subset::kFull) {
    for (int p = 0; p < 2; ++p) {
      const ConstSpinorView v = f.View(static_cast<Parity>(p));
      r.data[p] = const_cast<void*>(v.data);  // inputs are only read by the kernels
      r.norm[p] = const_cast<float*>(v.norm);
    }
  } else {
    const ConstSpinorView v = f.View();
    r.data[0] = const_cast<void*>(v.data);
    r.norm[0] = const_cast<float*>(v.norm);
  }
  r.stride = f.stride();
  return r;
}

void RequireSameShape(const char* where, const DeviceSpinorField& a, const DeviceSpinorField& b) {
  if (a.lattice() != b.lattice() || a.subset() != b.subset()) {
    throw std::invalid_argument(std::string("blas::") + where + ": fields differ (" + Describe(a) + " vs " +
                                Describe(b) + ")");
  }
}

void RequireSamePrecision(const char* where, const DeviceSpinorField& a, const DeviceSpinorField& b) {
  RequireSameShape(where, a, b);
  if (a.precision() != b.precision()) {
    throw std::invalid_argument(std::string("blas::") + where + ": fields differ in precision (" + Describe(a) +
                                " vs " + Describe(b) + "); only Convert changes precision");
  }
}

BlasLaunch LaunchOf(Operation op, const DeviceSpinorField& first) {
  BlasLaunch l;
  l.op = op;
  l.precision = first.precision();
  l.in_precision = first.precision();
  l.sites = first.lattice().half_volume();
  l.parities = first.parities();
  return l;
}

// A launch of `op` on `fields`, in the order of its arguments (blas_launch.h), all of the first one's lattice,
// subset and precision (std::invalid_argument naming the operation otherwise).
BlasLaunch LaunchOnFields(Operation op, std::initializer_list<const DeviceSpinorField*> fields) {
  const DeviceSpinorField& first = **fields.begin();
  BlasLaunch l = LaunchOf(op, first);
  int k = 0;
  for (const DeviceSpinorField* f : fields) {
    RequireSamePrecision(InfoOf(op).name, first, *f);
    l.field[k++] = RefOf(*f);
  }
  return l;
}

comm::Communicator* g_reduction_communicator = nullptr;
const DeviceRankSum* g_reduction_on_devices = nullptr;

// Queues the local reduction of `launch` (count doubles) into a fresh slot and returns the slot without
// waiting. With a reduction communicator, the rank-order sum of every rank's values then replaces them in both
// copies of the slot: queued behind the kernel on the devices (DeviceRankSum) when there is one, else by the
// host, which waits for the local values (one SumDeterministic call, blas.h). Without a communicator, the slot
// holds the kernel's bits.
std::shared_ptr<ScalarSlot> Reduce(BlasLaunch launch, int count) {
  std::shared_ptr<ScalarSlot> slot = ScalarSlot::Acquire();
  launch.result_device = slot->device();
  launch.result_host = slot->host_on_device();
  LaunchBlas(launch);
  if (g_reduction_on_devices != nullptr) {
    g_reduction_on_devices->Sum(slot->device(), slot->host_on_device(), count);
    slot->MarkWritten();
    return slot;
  }
  slot->MarkWritten();
  if (g_reduction_communicator != nullptr) {
    slot->Wait();
    const std::vector<double> global =
        g_reduction_communicator->SumDeterministic(std::vector<double>(slot->host(), slot->host() + count));
    slot->Set(global.data(), count);
  }
  return slot;
}

// The operation's scalars a (and b) into the launch (PrepareOperationScalars): numbers, or the programs the
// kernel evaluates (a and b must live until the operation is queued).
void SetScalars(BlasLaunch& l, const DeviceComplex& a, const DeviceComplex* b = nullptr) {
  OperationScalars s = PrepareOperationScalars(a, b);
  if (s.on_device) {
    l.device_scalars = true;
    l.scalar_programs = s.programs;
  } else {
    l.a[0] = s.a.real();
    l.a[1] = s.a.imag();
    l.b[0] = s.b.real();
    l.b[1] = s.b.imag();
  }
}

}  // namespace

void SetReductionCommunicator(comm::Communicator* communicator, const DeviceRankSum* on_devices) {
  if (on_devices != nullptr && &on_devices->communicator() != communicator) {
    throw std::invalid_argument(
        "blas::SetReductionCommunicator: the device sums were built on another communicator than the one given");
  }
  g_reduction_communicator = communicator;
  g_reduction_on_devices = on_devices;
}
comm::Communicator* ReductionCommunicator() { return g_reduction_communicator; }
const DeviceRankSum* ReductionOnDevices() { return g_reduction_on_devices; }

std::string Describe(const DeviceSpinorField& x) {
  return x.lattice().ToString() + " " + ToString(x.subset()) + " " + ToString(x.precision());
}

OperationInfo InfoOf(Operation op) {
  switch (op) {
    case Operation::kZero: return {"Zero", 0, 0, 1};
    case Operation::kCopy: return {"Copy", 0, 1, 1};
    case Operation::kConvert: return {"Convert", 0, 1, 1};
    case Operation::kNorm2: return {"Norm2", 2, 1, 0};
    case Operation::kDot: return {"Dot", 4, 2, 0};
    case Operation::kReDot: return {"ReDot", 2, 2, 0};
    case Operation::kDotNorm: return {"DotNorm", 6, 2, 0};
    case Operation::kAllFinite: return {"AllFinite", 2, 1, 0};
    case Operation::kAxpy: return {"Axpy", 2, 2, 1};
    case Operation::kAxpyNorm: return {"AxpyNorm", 4, 2, 1};
    case Operation::kXpay: return {"Xpay", 2, 2, 1};
    case Operation::kCaxpy: return {"Caxpy", 4, 2, 1};
    case Operation::kCaxpyNorm: return {"CaxpyNorm", 6, 2, 1};
    case Operation::kCgUpdate: return {"CgUpdate", 6, 4, 2};
    case Operation::kBicgstabDirection: return {"BicgstabDirection", 8, 3, 1};
    case Operation::kBicgstabUpdate: return {"BicgstabUpdate", 18, 5, 2};
    case Operation::kBicgstabResidual: return {"BicgstabResidual", 10, 3, 1};
    case Operation::kBicgstabSolution: return {"BicgstabSolution", 8, 3, 1};
    case Operation::kCgSolutionDirection: return {"CgSolutionDirection", 4, 3, 2};
    case Operation::kSumPartials: return {"SumPartials", 0, 0, 0};
    case Operation::kSumRealPartials: return {"SumRealPartials", 0, 0, 0};
  }
  throw std::invalid_argument("blas::InfoOf: unknown operation");
}

BlasCost Cost(Operation op, Precision precision, double sites, Precision written) {
  const OperationInfo info = InfoOf(op);
  auto site_bytes = [](Precision p) { return 24.0 * BytesPerReal(p) + (p == Precision::kHalf ? 4 : 0); };
  BlasCost c;
  c.flops = info.flops_per_real * 24 * sites;
  c.bytes = sites * (info.fields_read * site_bytes(precision) + info.fields_written * site_bytes(written));
  return c;
}

void Zero(DeviceSpinorField& x) { x.FillBytes(0); }

void Copy(DeviceSpinorField& y, const DeviceSpinorField& x) {
  RequireSamePrecision("Copy", y, x);
  if (&x == &y) return;
  for (int p = 0; p < 2; ++p) {
    const Parity parity = static_cast<Parity>(p);
    if (x.subset() != Subset::kFull && SubsetOf(parity) != x.subset()) continue;
    CopyParityStorage(y.View(parity), x.View(parity));
  }
}

void Convert(DeviceSpinorField& y, const DeviceSpinorField& x) {
  RequireSameShape("Convert", y, x);
  if (y.precision() == x.precision()) return Copy(y, x);
  BlasLaunch l = LaunchOf(Operation::kConvert, y);
  l.in_precision = x.precision();
  l.field[0] = RefOf(y);
  l.field[1] = RefOf(x);
  LaunchBlas(l);
}

DeviceReal Norm2Deferred(const DeviceSpinorField& x) {
  BlasLaunch l = LaunchOf(Operation::kNorm2, x);
  l.field[0] = RefOf(x);
  return DeviceReal::InSlot(Reduce(l, 1), 0);
}

double Norm2(const DeviceSpinorField& x) { return Norm2Deferred(x).Host(); }

bool AllFinite(const DeviceSpinorField& x) {
  BlasLaunch l = LaunchOf(Operation::kAllFinite, x);
  l.field[0] = RefOf(x);
  return std::isfinite(DeviceReal::InSlot(Reduce(l, 1), 0).Host());
}

std::complex<double> Dot(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kDot, {&x, &y});
  return DeviceComplex::InSlot(Reduce(l, 2), 0).Host();
}

DeviceReal ReDotDeferred(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kReDot, {&x, &y});
  return DeviceReal::InSlot(Reduce(l, 1), 0);
}

double ReDot(const DeviceSpinorField& x, const DeviceSpinorField& y) { return ReDotDeferred(x, y).Host(); }

DeferredDotAndNorm DotNormDeferred(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kDotNorm, {&x, &y});
  const std::shared_ptr<ScalarSlot> slot = Reduce(l, 3);
  return {DeviceComplex::InSlot(slot, 0), DeviceReal::InSlot(slot, 2)};
}

DotAndNorm DotNorm(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  const DeferredDotAndNorm d = DotNormDeferred(x, y);
  return {d.dot.Host(), d.norm2.Host()};
}

void Axpy(const DeviceReal& a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kAxpy, {&x, &y});
  SetScalars(l, a);
  LaunchBlas(l);
}

DeviceReal AxpyNormDeferred(const DeviceReal& a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kAxpyNorm, {&x, &y});
  SetScalars(l, a);
  return DeviceReal::InSlot(Reduce(l, 1), 0);
}

double AxpyNorm(const DeviceReal& a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  return AxpyNormDeferred(a, x, y).Host();
}

void Xpay(const DeviceSpinorField& x, const DeviceReal& a, DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kXpay, {&x, &y});
  SetScalars(l, a);
  LaunchBlas(l);
}

void Caxpy(const DeviceComplex& a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kCaxpy, {&x, &y});
  SetScalars(l, a);
  LaunchBlas(l);
}

DeviceReal CaxpyNormDeferred(const DeviceComplex& a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  BlasLaunch l = LaunchOnFields(Operation::kCaxpyNorm, {&x, &y});
  SetScalars(l, a);
  return DeviceReal::InSlot(Reduce(l, 1), 0);
}

double CaxpyNorm(const DeviceComplex& a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  return CaxpyNormDeferred(a, x, y).Host();
}

double CgUpdate(const DeviceReal& alpha, const DeviceSpinorField& p, const DeviceSpinorField& q, DeviceSpinorField& x,
                DeviceSpinorField& r) {
  BlasLaunch l = LaunchOnFields(Operation::kCgUpdate, {&p, &q, &x, &r});
  SetScalars(l, alpha);
  return DeviceReal::InSlot(Reduce(l, 1), 0).Host();
}

void BicgstabDirection(const DeviceSpinorField& r, const DeviceComplex& beta, const DeviceComplex& omega,
                       const DeviceSpinorField& v, DeviceSpinorField& p) {
  BlasLaunch l = LaunchOnFields(Operation::kBicgstabDirection, {&r, &v, &p});
  SetScalars(l, beta, &omega);
  LaunchBlas(l);
}

NormAndDot BicgstabUpdate(const DeviceComplex& alpha, const DeviceSpinorField& p, const DeviceComplex& omega,
                          const DeviceSpinorField& t, DeviceSpinorField& x, DeviceSpinorField& r,
                          const DeviceSpinorField& r0) {
  BlasLaunch l = LaunchOnFields(Operation::kBicgstabUpdate, {&p, &t, &x, &r, &r0});
  SetScalars(l, alpha, &omega);
  const std::shared_ptr<ScalarSlot> slot = Reduce(l, 3);
  return {DeviceReal::InSlot(slot, 0).Host(), DeviceComplex::InSlot(slot, 1).Host()};
}

DeferredNormAndDot BicgstabResidual(const DeviceComplex& omega, DeviceSpinorField& t, const DeviceSpinorField& s,
                                    const DeviceSpinorField& r0) {
  BlasLaunch l = LaunchOnFields(Operation::kBicgstabResidual, {&t, &s, &r0});
  SetScalars(l, DeviceComplex(0.0), &omega);
  const std::shared_ptr<ScalarSlot> slot = Reduce(l, 3);
  return {DeviceReal::InSlot(slot, 0), DeviceComplex::InSlot(slot, 1)};
}

void CgSolutionDirection(const DeviceReal& alpha, const DeviceReal& beta, const DeviceSpinorField& r,
                         DeviceSpinorField& x, DeviceSpinorField& p) {
  BlasLaunch l = LaunchOnFields(Operation::kCgSolutionDirection, {&r, &x, &p});
  const DeviceComplex b(beta);
  SetScalars(l, alpha, &b);
  LaunchBlas(l);
}

void BicgstabSolution(const DeviceComplex& alpha, const DeviceSpinorField& p, const DeviceComplex& omega,
                      const DeviceSpinorField& s, DeviceSpinorField& x) {
  BlasLaunch l = LaunchOnFields(Operation::kBicgstabSolution, {&p, &s, &x});
  SetScalars(l, alpha, &omega);
  LaunchBlas(l);
}

const double* EvaluatedBeforehand(const ScalarPair& programs, std::shared_ptr<void>& slot) {
  std::shared_ptr<ScalarSlot> evaluated = EvaluatedIntoNewSlot(programs);
  const double* values = evaluated->device();
  slot = std::move(evaluated);
  return values;
}

std::shared_ptr<ScalarSlot> EvaluateIntoSlot(const DeviceReal& a) { return EvaluatedIntoNewSlot({a.Program(), {}}); }

namespace {

// The fixed-order sum of `count` partial sums (kSumPartials: 3 doubles each; kSumRealPartials: 1, or `ranges` <= 4
// runs of `count` one after another, one sum each) into a new slot.
std::shared_ptr<ScalarSlot> SumPartialsInto(Operation op, const double* partials, int count, const char* where,
                                            int ranges = 1) {
  if (partials == nullptr || count < 1) throw std::invalid_argument(std::string("blas::") + where + ": no partial sums");
  BlasLaunch l;
  l.op = op;
  l.precision = Precision::kDouble;
  l.sites = count;
  l.parities = 1;
  l.partials = partials;
  l.ranges = ranges;
  return Reduce(l, op == Operation::kSumPartials ? 3 : ranges);
}

}  // namespace

DeferredDotAndNorm SumDotNormPartials(const double* partials, int groups) {
  const std::shared_ptr<ScalarSlot> slot = SumPartialsInto(Operation::kSumPartials, partials, groups, "SumDotNormPartials");
  return {DeviceComplex::InSlot(slot, 0), DeviceReal::InSlot(slot, 2)};
}

DeviceReal SumRealPartials(const double* partials, int count) {
  return DeviceReal::InSlot(SumPartialsInto(Operation::kSumRealPartials, partials, count, "SumRealPartials"), 0);
}

std::vector<DeviceReal> SumRealPartialsOfRanges(const double* partials, int count, int ranges) {
  return SumRealPartialsOfRangesOnDevice(partials, count, ranges).values;
}

RealSumsOnDevice SumRealPartialsOfRangesOnDevice(const double* partials, int count, int ranges) {
  if (partials == nullptr || count < 1 || ranges < 1) {
    throw std::invalid_argument("blas::SumRealPartialsOfRanges: no partial sums (" + std::to_string(ranges) +
                                " ranges of " + std::to_string(count) + ")");
  }
  RealSumsOnDevice sums;
  for (int first = 0; first < ranges; first += kScalarSlotDoubles) {
    const int here = std::min(kScalarSlotDoubles, ranges - first);
    const std::shared_ptr<ScalarSlot> slot =
        SumPartialsInto(Operation::kSumRealPartials, partials + static_cast<std::size_t>(first) * count, count,
                        "SumRealPartialsOfRanges", here);
    for (int j = 0; j < here; ++j) {
      sums.values.push_back(DeviceReal::InSlot(slot, j));
      sums.device_addresses.push_back(slot->device() + j);
    }
  }
  return sums;
}

void CopyParity(const SpinorView& to, const ConstSpinorView& from) {
  if (to.precision != from.precision || to.extents != from.extents || to.sites != from.sites) {
    throw std::invalid_argument(std::string("blas::CopyParity: views differ (") + ToString(to.precision) + " vs " +
                                ToString(from.precision) + ", or another lattice)");
  }
  if (to.data == from.data) return;
  CopyParityStorage(to, from);
}

}  // namespace lqcd::gpu::blas
