#include "gpu/staggered_blas.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpu/staggered_blas_launch.h"

namespace lqcd::gpu::staggered_blas {
namespace {

void RequireSameShape(const DeviceColourVectorField& a, const DeviceColourVectorField& b, const char* where) {
  if (a.lattice() != b.lattice() || a.parity() != b.parity() || a.precision() != b.precision()) {
    throw std::invalid_argument(std::string("staggered_blas::") + where + ": fields differ (" + a.lattice().ToString() +
                                " " + ToString(SubsetOf(a.parity())) + " " + ToString(a.precision()) + " vs " +
                                b.lattice().ToString() + " " + ToString(SubsetOf(b.parity())) + " " +
                                ToString(b.precision()) + ")");
  }
}

ColourBlasLaunch LaunchOf(ColourBlasOp op, const DeviceColourVectorField& x, DeviceColourVectorField* y,
                          DeviceColourVectorField* z) {
  ColourBlasLaunch l;
  l.op = op;
  l.x = x.View();
  if (y != nullptr) l.y = y->View();
  if (z != nullptr) l.z = z->View();
  return l;
}

// The scalars a and b into the launch: numbers; or deferred values (device_scalar.h PrepareOperationScalars),
// as the programs the kernel evaluates when its grid covers the field in one pass, else evaluated first into a
// slot by a one-thread kernel (scalar_program.h's ScalarSource says why). The returned slot (that one, else
// null) and a and b must live until the operation is queued.
std::shared_ptr<ScalarSlot> SetScalars(ColourBlasLaunch& l, const DeviceReal& a, const DeviceReal& b) {
  const DeviceComplex complex_b(b);
  OperationScalars scalars = PrepareOperationScalars(DeviceComplex(a), &complex_b);
  if (!scalars.on_device) {
    l.a = scalars.a.real();
    l.b = scalars.b.real();
    return nullptr;
  }
  if (ColourBlasInOnePass(l.x.precision, l.x.sites)) {
    l.device_scalars = true;
    l.scalar_programs = scalars.programs;
    return nullptr;
  }
  std::shared_ptr<ScalarSlot> slot = EvaluatedIntoNewSlot(scalars.programs);
  l.scalar_values = slot->device();
  return slot;
}

// Queues the operation with scalars a and b; a reduction waits and returns its values.
std::array<double, 2> Run(ColourBlasOp op, const DeviceColourVectorField& x, DeviceColourVectorField* y,
                          DeviceColourVectorField* z, const DeviceReal& a = 0.0, const DeviceReal& b = 0.0) {
  ColourBlasLaunch l = LaunchOf(op, x, y, z);
  const std::shared_ptr<ScalarSlot> scalars = SetScalars(l, a, b);
  return LaunchColourBlas(l);
}

// Queues the reduction `op` (with scalar a) into a fresh slot and returns the slot without waiting.
std::shared_ptr<ScalarSlot> Reduce(ColourBlasOp op, const DeviceColourVectorField& x, DeviceColourVectorField* y,
                                   const DeviceReal& a = 0.0) {
  ColourBlasLaunch l = LaunchOf(op, x, y, nullptr);
  const std::shared_ptr<ScalarSlot> scalars = SetScalars(l, a, 0.0);
  std::shared_ptr<ScalarSlot> slot = ScalarSlot::Acquire();
  l.result_device = slot->device();
  l.result_host = slot->host_on_device();
  LaunchColourBlas(l);
  slot->MarkWritten();
  return slot;
}

// The reductions read y only; the launch struct holds it as a mutable view.
DeviceColourVectorField* ReadOnly(const DeviceColourVectorField& y) { return const_cast<DeviceColourVectorField*>(&y); }

}  // namespace

void Zero(DeviceColourVectorField& x) { x.Fill(0); }

void Copy(DeviceColourVectorField& y, const DeviceColourVectorField& x) {
  RequireSameShape(x, y, "Copy");
  if (&x != &y) y.CopyFrom(x);
}

void Convert(DeviceColourVectorField& y, const DeviceColourVectorField& x) {
  if (x.lattice() != y.lattice() || x.parity() != y.parity()) {
    throw std::invalid_argument("staggered_blas::Convert: fields on different lattices or parities");
  }
  if (&x == &y) return;
  LaunchColourConvert(y.View(), x.View());
}

void FillZ2Noise(DeviceColourVectorField& x, std::uint64_t seed) { LaunchColourZ2Noise(x.View(), seed); }

double Norm2(const DeviceColourVectorField& x) { return Run(ColourBlasOp::kNorm2, x, nullptr, nullptr)[0]; }

DeviceReal Norm2Deferred(const DeviceColourVectorField& x) {
  return DeviceReal::InSlot(Reduce(ColourBlasOp::kNorm2, x, nullptr), 0);
}

double ReDot(const DeviceColourVectorField& x, const DeviceColourVectorField& y) {
  RequireSameShape(x, y, "ReDot");
  return Run(ColourBlasOp::kReDot, x, ReadOnly(y), nullptr)[0];
}

DeviceReal ReDotDeferred(const DeviceColourVectorField& x, const DeviceColourVectorField& y) {
  RequireSameShape(x, y, "ReDot");
  return DeviceReal::InSlot(Reduce(ColourBlasOp::kReDot, x, ReadOnly(y)), 0);
}

std::complex<double> Dot(const DeviceColourVectorField& x, const DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Dot");
  const std::array<double, 2> d = Run(ColourBlasOp::kDot, x, ReadOnly(y), nullptr);
  return {d[0], d[1]};
}

bool AllFinite(const DeviceColourVectorField& x) { return Run(ColourBlasOp::kNonFinite, x, nullptr, nullptr)[0] == 0; }

void Axpy(const DeviceReal& a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Axpy");
  Run(ColourBlasOp::kAxpy, x, &y, nullptr, a);
}

void Caxpy(std::complex<double> a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Caxpy");
  Run(ColourBlasOp::kCaxpy, x, &y, nullptr, a.real(), a.imag());  // numbers: a and b of the launch
}

double AxpyNorm(const DeviceReal& a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "AxpyNorm");
  return Run(ColourBlasOp::kAxpyNorm, x, &y, nullptr, a)[0];
}

DeviceReal AxpyNormDeferred(const DeviceReal& a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "AxpyNorm");
  return DeviceReal::InSlot(Reduce(ColourBlasOp::kAxpyNorm, x, &y, a), 0);
}

void Xpay(const DeviceColourVectorField& x, const DeviceReal& a, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Xpay");
  Run(ColourBlasOp::kXpay, x, &y, nullptr, a);
}

void CgSolutionDirection(const DeviceReal& alpha, const DeviceReal& beta, const DeviceColourVectorField& r,
                         DeviceColourVectorField& x, DeviceColourVectorField& p) {
  RequireSameShape(r, x, "CgSolutionDirection");
  RequireSameShape(r, p, "CgSolutionDirection");
  if (&x == &p || &x == &r) {
    throw std::invalid_argument("staggered_blas::CgSolutionDirection: x must differ from p and from r");
  }
  Run(ColourBlasOp::kCgSolutionDirection, r, &x, &p, alpha, beta);
}

}  // namespace lqcd::gpu::staggered_blas
