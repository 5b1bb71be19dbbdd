// device_gauge_field.cc: validation, allocation and the host side of gauge transfers (see the header);
// the device side is field_packing.cu.
#include "gpu/device_gauge_field.h"

#include <Eigen/LU>  // determinant(), which reference/su3.h uses
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/field_packing.h"
#include "reference/su3.h"

namespace lqcd::gpu {
namespace {

// Bytes of one link's words (gauge_accessor.cuh): reals per link x bytes per real.
std::size_t LinkBytes(const GaugeLayout& layout) {
  return static_cast<std::size_t>(RealsPerLink(layout.reconstruct)) * BytesPerReal(layout.precision);
}

std::string Where(const Lattice& lattice, int site, int mu) {
  const Coordinates n = lattice.Coords(site);
  std::ostringstream s;
  s << "link U_" << mu << "(" << n[0] << "," << n[1] << "," << n[2] << "," << n[3] << ")";
  return s.str();
}

[[noreturn]] void Reject(const std::string& what) { throw std::invalid_argument("DeviceGaugeField: " + what); }

// 8 reals with N < kMinimum8ParameterN: stored in the singular form, which the link must then be to
// kSu3Tolerance (unit links are, exactly).
bool StoredInSingularForm(const ColorMatrix<double>& u, const GaugeLayout& layout) {
  return layout.reconstruct == Reconstruct::k8 && KeptInSingularForm8(u);
}

// 16-byte (double2, float4, int4) or 8-byte (float2) words of one link in gauge_accessor.cuh's storage (half:
// the full words; its tail words sit behind all of them).
long long WordsPerLink(const GaugeLayout& layout) {
  const int reals = RealsPerLink(layout.reconstruct);
  switch (layout.precision) {
    case Precision::kDouble: return reals / 2;
    case Precision::kSingle: return layout.reconstruct == Reconstruct::k18 ? 9 : reals / 4;
    case Precision::kHalf: return std::max(1, reals / 8);
  }
  return 0;
}

// What is wrong with link (site, mu) for `layout`, or "" (the checks of Validate).
template <typename T>
std::string LinkProblem(const GaugeField<T>& host, const GaugeLayout& layout, int site, int mu) {
  const Lattice& lat = host.lattice();
  const ColorMatrix<double> u = host.Link(site, mu).template cast<Complex<double>>();
  const bool unit_by_gauge = layout.temporal_gauge_fixed && mu == 3 && lat.Coords(site)[3] < lat.extent(3) - 1;
  if (unit_by_gauge) {
    const double deviation = (u - ColorMatrix<double>::Identity()).cwiseAbs().maxCoeff();
    if (!(deviation <= kUnitLinkTolerance)) {
      std::ostringstream s;
      s << "the field is marked temporally gauge fixed, but " << Where(lat, site, mu) << " differs from 1 by "
        << deviation << " (> 2^-40); gauge fix it first (all t-links 1 except on t = Lt - 1)";
      return s.str();
    }
    return "";  // never loaded by the kernels
  }
  if (layout.reconstruct != Reconstruct::k18) {
    const double unitarity = UnitarityDeviation(u), determinant = DeterminantDeviation(u);
    if (!(unitarity <= kSu3Tolerance && determinant <= kSu3Tolerance)) {
      std::ostringstream s;
      s << ToString(layout.reconstruct) << "-parameter reconstruction needs SU(3) links, but "
        << Where(lat, site, mu) << " has max|U U^dag - 1| = " << unitarity << ", |det U - 1| = " << determinant
        << " (> 2^-18); Reunitarize the field or use 18 reals";
      return s.str();
    }
  }
  if (StoredInSingularForm(u, layout)) {
    const double n = std::sqrt(std::norm(u(0, 1)) + std::norm(u(0, 2)));
    const double off = (u - SingularForm8(u)).cwiseAbs().maxCoeff();
    if (!(off <= kSu3Tolerance)) {
      std::ostringstream s;
      s << "8-parameter reconstruction is singular at N = |(U_01, U_02)| = 0, and " << Where(lat, site, mu)
        << " has N = " << n << " (< 2^-10) but is not diag(a1, a1^*, 1), the only form 8 reals keep there "
        << "(off by " << off << " > 2^-18); use 12 or 18 reals";
      return s.str();
    }
  }
  if (layout.precision == Precision::kHalf) {
    const double largest = std::max(u.real().cwiseAbs().maxCoeff(), u.imag().cwiseAbs().maxCoeff());
    if (!(largest <= 1.0 + 0x1p-20)) {
      std::ostringstream s;
      s << "half precision stores links in [-1, 1], but " << Where(lat, site, mu) << " has an element of size "
        << largest;
      return s.str();
    }
  }
  return "";
}

// Every link checked on all threads (3.5 million links at 24^3 x 64, each with an SU(3) test for compressed
// layouts); the error names the first bad link in site order, whatever the thread count.
template <typename T>
void Validate(const GaugeField<T>& host, const GaugeLayout& layout) {
  if (layout.pad < 0) Reject("pad must be >= 0, got " + std::to_string(layout.pad));
  RequireIntIndexable("DeviceGaugeField", 2 * kDims * WordsPerLink(layout),
                      static_cast<long long>(host.lattice().half_volume()) + layout.pad);
  const long links = static_cast<long>(host.lattice().volume()) * kDims;
  long first_bad = links;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (long i = 0; i < links; ++i) {
    if (i < first_bad && !LinkProblem(host, layout, static_cast<int>(i / kDims), static_cast<int>(i % kDims)).empty()) {
      first_bad = i;
    }
  }
  if (first_bad < links) {
    Reject(LinkProblem(host, layout, static_cast<int>(first_bad / kDims), static_cast<int>(first_bad % kDims)));
  }
}

}  // namespace

bool KeptInSingularForm8(const ColorMatrix<double>& u) {
  return !(std::sqrt(std::norm(u(0, 1)) + std::norm(u(0, 2))) >= kMinimum8ParameterN);
}

ColorMatrix<double> SingularForm8(const ColorMatrix<double>& u) {
  const Complex<double> a1 = u(0, 0) / std::abs(u(0, 0));
  ColorMatrix<double> d = ColorMatrix<double>::Zero();
  d(0, 0) = a1;
  d(1, 1) = std::conj(a1);
  d(2, 2) = 1.0;
  return d;
}

DeviceGaugeField::DeviceGaugeField(const GaugeField<double>& host, const GaugeLayout& layout)
    : lattice_(host.lattice()), layout_(layout) {
  Upload(host);
}

DeviceGaugeField::DeviceGaugeField(const GaugeField<float>& host, const GaugeLayout& layout)
    : lattice_(host.lattice()), layout_(layout) {
  Upload(host);
}

template <typename T>
void DeviceGaugeField::Upload(const GaugeField<T>& host) {
  Validate(host, layout_);
  data_ = DeviceBuffer(2 * kDims * static_cast<std::size_t>(stride()) * LinkBytes(layout_));
  const int half = lattice_.half_volume();
  // Not zero-filled first (a std::vector would, on one thread: 6 GB at 48^3 x 96): the loop below writes every
  // element, on all threads.
  const std::unique_ptr<double[]> canonical(new double[18 * 8 * static_cast<std::size_t>(half)]);
  for (int p = 0; p < 2; ++p) {
#pragma omp parallel for schedule(static)
    for (int cb = 0; cb < half; ++cb) {
      const int site = lattice_.FullIndex(static_cast<Parity>(p), cb);
      for (int mu = 0; mu < kDims; ++mu) {
        ColorMatrix<double> u = host.Link(site, mu).template cast<Complex<double>>();
        // The singular form with exact zeros: the device compresses it to a2 = a3 = b1 = 0 (N = 0 exactly).
        const bool unit_by_gauge =
            layout_.temporal_gauge_fixed && mu == 3 && lattice_.Coords(site)[3] < lattice_.extent(3) - 1;
        if (!unit_by_gauge && StoredInSingularForm(u, layout_)) u = SingularForm8(u);
        double* link = canonical.get() + 18 * ((p * 4 + mu) * static_cast<std::size_t>(half) + cb);
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) {
            link[2 * (3 * i + j)] = u(i, j).real();
            link[2 * (3 * i + j) + 1] = u(i, j).imag();
          }
        }
      }
    }
  }
  PackGauge(View(), canonical.get());
}

GaugeView DeviceGaugeField::View() const {
  GaugeView v;
  v.precision = layout_.precision;
  v.reconstruct = layout_.reconstruct;
  v.temporal_gauge_fixed = layout_.temporal_gauge_fixed;
  v.extents = {lattice_.extent(0), lattice_.extent(1), lattice_.extent(2), lattice_.extent(3)};
  v.stride = stride();
  // Kernels only read the links; the view's pointer is mutable because packing writes through it.
  v.data = const_cast<void*>(data_.data());
  return v;
}

GaugeField<double> DeviceGaugeField::Download() const {
  const int half = lattice_.half_volume();
  std::vector<double> canonical(18 * 8 * static_cast<std::size_t>(half));
  UnpackGauge(View(), canonical.data());
  GaugeField<double> host(lattice_);
  for (int p = 0; p < 2; ++p) {
#pragma omp parallel for schedule(static)
    for (int cb = 0; cb < half; ++cb) {
      const int site = lattice_.FullIndex(static_cast<Parity>(p), cb);
      for (int mu = 0; mu < kDims; ++mu) {
        const double* link = canonical.data() + 18 * ((p * 4 + mu) * static_cast<std::size_t>(half) + cb);
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) host.Link(site, mu)(i, j) = {link[2 * (3 * i + j)], link[2 * (3 * i + j) + 1]};
        }
      }
    }
  }
  return host;
}

}  // namespace lqcd::gpu
