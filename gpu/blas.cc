// blas.cc: argument checks, the cost table and dispatch of the fused vector operations (blas.h) to the
// kernels of blas.cu.
#include "gpu/blas.h"

#include <algorithm>
#include <cmath>
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

comm::Communicator* g_reduction_communicator = nullptr;

// The local reduction of `launch` (count doubles into result), then, with a reduction communicator, the
// rank-order sum of every rank's values in one SumDeterministic call (blas.h). Without one, nothing is
// added to the local result: single-rank bits are those of the kernel.
void Reduce(const BlasLaunch& launch, double* result, int count) {
  LaunchBlas(launch, result);
  if (g_reduction_communicator == nullptr) return;
  const std::vector<double> global =
      g_reduction_communicator->SumDeterministic(std::vector<double>(result, result + count));
  std::copy(global.begin(), global.end(), result);
}

void SetScalar(double* slot, std::complex<double> z) {
  slot[0] = z.real();
  slot[1] = z.imag();
}

}  // namespace

void SetReductionCommunicator(comm::Communicator* communicator) { g_reduction_communicator = communicator; }
comm::Communicator* ReductionCommunicator() { return g_reduction_communicator; }

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
  LaunchBlas(l, nullptr);
}

double Norm2(const DeviceSpinorField& x) {
  BlasLaunch l = LaunchOf(Operation::kNorm2, x);
  l.field[0] = RefOf(x);
  double r = 0;
  Reduce(l, &r, 1);
  return r;
}

bool AllFinite(const DeviceSpinorField& x) {
  BlasLaunch l = LaunchOf(Operation::kAllFinite, x);
  l.field[0] = RefOf(x);
  double r = 0;
  Reduce(l, &r, 1);
  return std::isfinite(r);
}

std::complex<double> Dot(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  RequireSamePrecision("Dot", x, y);
  BlasLaunch l = LaunchOf(Operation::kDot, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  double r[2] = {0, 0};
  Reduce(l, r, 2);
  return {r[0], r[1]};
}

double ReDot(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  RequireSamePrecision("ReDot", x, y);
  BlasLaunch l = LaunchOf(Operation::kReDot, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  double r = 0;
  Reduce(l, &r, 1);
  return r;
}

DotAndNorm DotNorm(const DeviceSpinorField& x, const DeviceSpinorField& y) {
  RequireSamePrecision("DotNorm", x, y);
  BlasLaunch l = LaunchOf(Operation::kDotNorm, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  double r[3] = {0, 0, 0};
  Reduce(l, r, 3);
  return {{r[0], r[1]}, r[2]};
}

void Axpy(double a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  RequireSamePrecision("Axpy", x, y);
  BlasLaunch l = LaunchOf(Operation::kAxpy, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  l.a[0] = a;
  LaunchBlas(l, nullptr);
}

double AxpyNorm(double a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  RequireSamePrecision("AxpyNorm", x, y);
  BlasLaunch l = LaunchOf(Operation::kAxpyNorm, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  l.a[0] = a;
  double r = 0;
  Reduce(l, &r, 1);
  return r;
}

void Xpay(const DeviceSpinorField& x, double a, DeviceSpinorField& y) {
  RequireSamePrecision("Xpay", x, y);
  BlasLaunch l = LaunchOf(Operation::kXpay, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  l.a[0] = a;
  LaunchBlas(l, nullptr);
}

void Caxpy(std::complex<double> a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  RequireSamePrecision("Caxpy", x, y);
  BlasLaunch l = LaunchOf(Operation::kCaxpy, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  SetScalar(l.a, a);
  LaunchBlas(l, nullptr);
}

double CaxpyNorm(std::complex<double> a, const DeviceSpinorField& x, DeviceSpinorField& y) {
  RequireSamePrecision("CaxpyNorm", x, y);
  BlasLaunch l = LaunchOf(Operation::kCaxpyNorm, x);
  l.field[0] = RefOf(x);
  l.field[1] = RefOf(y);
  SetScalar(l.a, a);
  double r = 0;
  Reduce(l, &r, 1);
  return r;
}

double CgUpdate(double alpha, const DeviceSpinorField& p, const DeviceSpinorField& q, DeviceSpinorField& x,
                DeviceSpinorField& r) {
  RequireSamePrecision("CgUpdate", p, q);
  RequireSamePrecision("CgUpdate", p, x);
  RequireSamePrecision("CgUpdate", p, r);
  BlasLaunch l = LaunchOf(Operation::kCgUpdate, p);
  l.field[0] = RefOf(p);
  l.field[1] = RefOf(q);
  l.field[2] = RefOf(x);
  l.field[3] = RefOf(r);
  l.a[0] = alpha;
  double result = 0;
  Reduce(l, &result, 1);
  return result;
}

void BicgstabDirection(const DeviceSpinorField& r, std::complex<double> beta, std::complex<double> omega,
                       const DeviceSpinorField& v, DeviceSpinorField& p) {
  RequireSamePrecision("BicgstabDirection", r, v);
  RequireSamePrecision("BicgstabDirection", r, p);
  BlasLaunch l = LaunchOf(Operation::kBicgstabDirection, r);
  l.field[0] = RefOf(r);
  l.field[1] = RefOf(v);
  l.field[2] = RefOf(p);
  SetScalar(l.a, beta);
  SetScalar(l.b, omega);
  LaunchBlas(l, nullptr);
}

NormAndDot BicgstabUpdate(std::complex<double> alpha, const DeviceSpinorField& p, std::complex<double> omega,
                          const DeviceSpinorField& t, DeviceSpinorField& x, DeviceSpinorField& r,
                          const DeviceSpinorField& r0) {
  RequireSamePrecision("BicgstabUpdate", p, t);
  RequireSamePrecision("BicgstabUpdate", p, x);
  RequireSamePrecision("BicgstabUpdate", p, r);
  RequireSamePrecision("BicgstabUpdate", p, r0);
  BlasLaunch l = LaunchOf(Operation::kBicgstabUpdate, p);
  l.field[0] = RefOf(p);
  l.field[1] = RefOf(t);
  l.field[2] = RefOf(x);
  l.field[3] = RefOf(r);
  l.field[4] = RefOf(r0);
  SetScalar(l.a, alpha);
  SetScalar(l.b, omega);
  double result[3] = {0, 0, 0};
  Reduce(l, result, 3);
  return {result[0], {result[1], result[2]}};
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
