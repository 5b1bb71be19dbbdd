#include "gpu/staggered_blas.h"

#include <stdexcept>
#include <string>

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

std::array<double, 2> Run(ColourBlasOp op, const DeviceColourVectorField& x, DeviceColourVectorField* y,
                          DeviceColourVectorField* z, double a = 0, double b = 0) {
  ColourBlasLaunch l;
  l.op = op;
  l.x = x.View();
  if (y != nullptr) l.y = y->View();
  if (z != nullptr) l.z = z->View();
  l.a = a;
  l.b = b;
  return LaunchColourBlas(l);
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

double ReDot(const DeviceColourVectorField& x, const DeviceColourVectorField& y) {
  RequireSameShape(x, y, "ReDot");
  return Run(ColourBlasOp::kReDot, x, ReadOnly(y), nullptr)[0];
}

std::complex<double> Dot(const DeviceColourVectorField& x, const DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Dot");
  const std::array<double, 2> d = Run(ColourBlasOp::kDot, x, ReadOnly(y), nullptr);
  return {d[0], d[1]};
}

bool AllFinite(const DeviceColourVectorField& x) { return Run(ColourBlasOp::kNonFinite, x, nullptr, nullptr)[0] == 0; }

void Axpy(double a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Axpy");
  Run(ColourBlasOp::kAxpy, x, &y, nullptr, a);
}

void Caxpy(std::complex<double> a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Caxpy");
  Run(ColourBlasOp::kCaxpy, x, &y, nullptr, a.real(), a.imag());
}

double AxpyNorm(double a, const DeviceColourVectorField& x, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "AxpyNorm");
  return Run(ColourBlasOp::kAxpyNorm, x, &y, nullptr, a)[0];
}

void Xpay(const DeviceColourVectorField& x, double a, DeviceColourVectorField& y) {
  RequireSameShape(x, y, "Xpay");
  Run(ColourBlasOp::kXpay, x, &y, nullptr, a);
}

void CgSolutionDirection(double alpha, double beta, const DeviceColourVectorField& r, DeviceColourVectorField& x,
                         DeviceColourVectorField& p) {
  RequireSameShape(r, x, "CgSolutionDirection");
  RequireSameShape(r, p, "CgSolutionDirection");
  if (&x == &p || &x == &r) {
    throw std::invalid_argument("staggered_blas::CgSolutionDirection: x must differ from p and from r");
  }
  Run(ColourBlasOp::kCgSolutionDirection, r, &x, &p, alpha, beta);
}

}  // namespace lqcd::gpu::staggered_blas
