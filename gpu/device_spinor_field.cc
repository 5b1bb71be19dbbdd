// device_spinor_field.cc: allocation, views, and the host side of the transfers (basis change and
// checkerboard ordering); the device side is field_packing.cu.
#include "gpu/device_spinor_field.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/field_packing.h"

namespace lqcd::gpu {
namespace {

std::size_t WordBytes(Precision p) { return p == Precision::kDouble ? 16 : p == Precision::kSingle ? 16 : 8; }
std::size_t WordsPerSite(Precision p) { return p == Precision::kDouble ? 12 : 6; }

Extents ExtentsOf(const Lattice& lattice) {
  return {lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
}

}  // namespace

namespace {
// 1 / sqrt 2 in double: the basis change's factor on the host and in the transfer kernels alike.
const double kBasisChangeFactor = 1.0 / std::sqrt(2.0);
}  // namespace

template <typename T>
SiteSpinor<T> ChangeSpinorBasis(const SiteSpinor<T>& psi) {
  const T r = static_cast<T>(kBasisChangeFactor);
  SiteSpinor<T> out;
  for (int s = 0; s < 2; ++s) {
    for (int c = 0; c < 3; ++c) {
      out(s, c) = (psi(s, c) + psi(s + 2, c)) * r;
      out(s + 2, c) = (psi(s, c) - psi(s + 2, c)) * r;
    }
  }
  return out;
}

template SiteSpinor<double> ChangeSpinorBasis(const SiteSpinor<double>&);
template SiteSpinor<float> ChangeSpinorBasis(const SiteSpinor<float>&);

DeviceSpinorField::DeviceSpinorField(const Lattice& lattice, Subset subset, Precision precision, int pad)
    : lattice_(lattice), subset_(subset), precision_(precision), pad_(pad) {
  if (pad < 0) throw std::invalid_argument("DeviceSpinorField: pad must be >= 0, got " + std::to_string(pad));
  const std::size_t stride = static_cast<std::size_t>(lattice.half_volume()) + pad;
  RequireIntIndexable("DeviceSpinorField", static_cast<long long>(WordsPerSite(precision)),
                      static_cast<long long>(stride));
  data_ = DeviceBuffer(parities() * WordsPerSite(precision) * stride * WordBytes(precision));
  if (precision == Precision::kHalf) norm_ = DeviceBuffer(parities() * stride * sizeof(float));
}

int DeviceSpinorField::ParityBlock(Parity parity) const {
  if (subset_ == Subset::kFull) return static_cast<int>(parity);
  if (SubsetOf(parity) != subset_) {
    throw std::invalid_argument(std::string("DeviceSpinorField::View: the field holds the ") + ToString(subset_) +
                                " sites, not the " + ToString(parity) + " ones");
  }
  return 0;
}

SpinorView DeviceSpinorField::View(Parity parity) {
  const int block = ParityBlock(parity);
  SpinorView v;
  v.precision = precision_;
  v.parity = static_cast<int>(parity);
  v.extents = ExtentsOf(lattice_);
  v.sites = lattice_.half_volume();
  v.stride = stride();
  v.data = static_cast<char*>(data_.data()) + block * WordsPerSite(precision_) * stride() * WordBytes(precision_);
  v.norm = precision_ == Precision::kHalf ? static_cast<float*>(norm_.data()) + block * stride() : nullptr;
  return v;
}

ConstSpinorView DeviceSpinorField::View(Parity parity) const {
  // The mutable view of the same memory, handed out read-only.
  return const_cast<DeviceSpinorField*>(this)->View(parity);
}

SpinorView DeviceSpinorField::View() {
  if (subset_ == Subset::kFull) {
    throw std::invalid_argument("DeviceSpinorField::View(): a full-lattice field needs a parity");
  }
  return View(subset_ == Subset::kEven ? Parity::kEven : Parity::kOdd);
}

ConstSpinorView DeviceSpinorField::View() const { return const_cast<DeviceSpinorField*>(this)->View(); }

namespace {

// std::invalid_argument naming the transfer unless the host field has the device field's lattice and subset.
template <typename T>
void RequireHostShape(const char* transfer, const SpinorField<T>& host, const Lattice& lattice, Subset subset) {
  if (host.lattice() != lattice || host.subset() != subset) {
    throw std::invalid_argument(std::string("DeviceSpinorField::") + transfer + ": host field is " +
                                host.lattice().ToString() + " " + ToString(host.subset()) + ", device field " +
                                lattice.ToString() + " " + ToString(subset));
  }
}

// One parity in the staging order: 24 doubles per site.
std::size_t StagingBytes(const Lattice& lattice) {
  return sizeof(double) * 24 * static_cast<std::size_t>(lattice.half_volume());
}

// The host storage of a double field as the transfer kernels read it (field_packing.h, PackSpinorsFromSites).
static_assert(!SiteSpinor<double>::IsRowMajor && sizeof(SiteSpinor<double>) == 24 * sizeof(double),
              "a host site is a column-major 4 x 3 complex matrix of 24 contiguous doubles");

// The bytes of a double host field's storage: what RegisterHostField page-locks and MappedSites looks for.
std::size_t HostFieldBytes(const SpinorField<double>& host) {
  return sizeof(SiteSpinor<double>) * static_cast<std::size_t>(host.sites());
}

// The device address of a double host field's storage when it is page-locked and mapped (HostRegistration),
// else nullptr.
void* MappedSites(const SpinorField<double>& host) { return MappedHostPointer(host.data().data(), HostFieldBytes(host)); }

template <typename T>
void UploadField(DeviceSpinorField& field, const SpinorField<T>& host, GammaBasis basis) {
  RequireHostShape("Upload", host, field.lattice(), field.subset());
  const Lattice& lat = field.lattice();
  if constexpr (std::is_same_v<T, double>) {
    if (const void* mapped = MappedSites(host)) {  // the kernels read the host field itself: no host pass
      const bool full = field.subset() == Subset::kFull;
      const SpinorView even = full ? field.View(Parity::kEven) : field.View();
      const SpinorView odd = full ? field.View(Parity::kOdd) : field.View();
      PackSpinorsFromSites(even, odd, static_cast<const double*>(mapped), basis == GammaBasis::kDeGrandRossi,
                           kBasisChangeFactor);
      return;
    }
  }
  const PinnedStagingLease staging(StagingBytes(lat));
  double* canonical = static_cast<double*>(staging.data());
  for (int p = 0; p < 2; ++p) {
    const Parity parity = static_cast<Parity>(p);
    if (field.subset() != Subset::kFull && SubsetOf(parity) != field.subset()) continue;
#pragma omp parallel for schedule(static)
    for (int cb = 0; cb < lat.half_volume(); ++cb) {
      const int i = field.subset() == Subset::kFull ? lat.FullIndex(parity, cb) : cb;
      SiteSpinor<double> psi = host[i].template cast<Complex<double>>();
      if (basis == GammaBasis::kDeGrandRossi) psi = ChangeSpinorBasis(psi);
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          canonical[24 * cb + 2 * (3 * s + c)] = psi(s, c).real();
          canonical[24 * cb + 2 * (3 * s + c) + 1] = psi(s, c).imag();
        }
      }
    }
    PackSpinors(field.View(parity), canonical);
  }
}

}  // namespace

HostRegistration RegisterHostField(SpinorField<double>& host) {
  return HostRegistration(host.data().data(), HostFieldBytes(host));
}

void DeviceSpinorField::Upload(const SpinorField<double>& host, GammaBasis basis) { UploadField(*this, host, basis); }
void DeviceSpinorField::Upload(const SpinorField<float>& host, GammaBasis basis) { UploadField(*this, host, basis); }

SpinorField<double> DeviceSpinorField::Download(GammaBasis basis) const {
  SpinorField<double> host(lattice_, subset_);
  Download(host, basis);
  return host;
}

void DeviceSpinorField::Download(SpinorField<double>& host, GammaBasis basis) const {
  RequireHostShape("Download", host, lattice_, subset_);
  if (void* mapped = MappedSites(host)) {  // the kernels write the host field itself: no host pass
    const bool full = subset_ == Subset::kFull;
    UnpackSpinorsToSites(full ? View(Parity::kEven) : View(), full ? View(Parity::kOdd) : View(),
                         static_cast<double*>(mapped), basis == GammaBasis::kDeGrandRossi, kBasisChangeFactor);
    return;
  }
  const PinnedStagingLease staging(StagingBytes(lattice_));
  double* canonical = static_cast<double*>(staging.data());
  for (int p = 0; p < 2; ++p) {
    const Parity parity = static_cast<Parity>(p);
    if (subset_ != Subset::kFull && SubsetOf(parity) != subset_) continue;
    UnpackSpinors(View(parity), canonical);
#pragma omp parallel for schedule(static)
    for (int cb = 0; cb < lattice_.half_volume(); ++cb) {
      SiteSpinor<double> psi;
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          psi(s, c) = {canonical[24 * cb + 2 * (3 * s + c)], canonical[24 * cb + 2 * (3 * s + c) + 1]};
        }
      }
      if (basis == GammaBasis::kDeGrandRossi) psi = ChangeSpinorBasis(psi);
      host[subset_ == Subset::kFull ? lattice_.FullIndex(parity, cb) : cb] = psi;
    }
  }
}

void DeviceSpinorField::FillBytes(unsigned char byte) {
  data_.Fill(byte);
  norm_.Fill(byte);
}

}  // namespace lqcd::gpu
