#include "gpu/device_colour_vector_field.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace lqcd::gpu {
namespace {

template <typename Real>
void Pack(const ColourVectorField<double>& host, int stride, Real* staging) {
  for (int i = 0; i < host.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const std::size_t word = static_cast<std::size_t>(c) * stride + i;
      staging[2 * word] = static_cast<Real>(host[i](c).real());
      staging[2 * word + 1] = static_cast<Real>(host[i](c).imag());
    }
  }
}

// Half: per site the largest |real| as the norm (stored as a float), each real the nearest level of
// real * 32767 / largest (in double; |level| <= 32767 since |real| <= largest); the norm after the words.
void PackHalf(const ColourVectorField<double>& host, int stride, unsigned char* bytes) {
  short* levels = reinterpret_cast<short*>(bytes);  // short2 words: two shorts each
  float* norms = reinterpret_cast<float*>(bytes + 12 * static_cast<std::size_t>(stride));
  for (int i = 0; i < host.sites(); ++i) {
    double largest = 0;
    for (int c = 0; c < 3; ++c) largest = std::max({largest, std::abs(host[i](c).real()), std::abs(host[i](c).imag())});
    const double to_levels = largest > 0 ? kHalfScale / largest : 0;
    for (int c = 0; c < 3; ++c) {
      const std::size_t word = static_cast<std::size_t>(c) * stride + i;
      levels[2 * word] = static_cast<short>(std::nearbyint(host[i](c).real() * to_levels));
      levels[2 * word + 1] = static_cast<short>(std::nearbyint(host[i](c).imag() * to_levels));
    }
    norms[i] = static_cast<float>(largest);
  }
}

// Half: what the kernel's load computes, level * (norm * (1 / 32767)) in float.
void UnpackHalf(const unsigned char* bytes, int stride, ColourVectorField<double>& host) {
  const short* levels = reinterpret_cast<const short*>(bytes);
  const float* norms = reinterpret_cast<const float*>(bytes + 12 * static_cast<std::size_t>(stride));
  for (int i = 0; i < host.sites(); ++i) {
    const float scale = norms[i] * (1.0f / kHalfScale);
    for (int c = 0; c < 3; ++c) {
      const std::size_t word = static_cast<std::size_t>(c) * stride + i;
      host[i](c) = Complex<double>(static_cast<float>(levels[2 * word]) * scale,
                                   static_cast<float>(levels[2 * word + 1]) * scale);
    }
  }
}

template <typename Real>
void Unpack(const Real* staging, int stride, ColourVectorField<double>& host) {
  for (int i = 0; i < host.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const std::size_t word = static_cast<std::size_t>(c) * stride + i;
      host[i](c) = Complex<double>(staging[2 * word], staging[2 * word + 1]);
    }
  }
}

}  // namespace

std::vector<unsigned char> PackColourVectors(const ColourVectorField<double>& host, Precision precision, int stride) {
  std::vector<unsigned char> bytes(ColourVectorBytes(precision, stride), 0);
  if (precision == Precision::kDouble) {
    Pack(host, stride, reinterpret_cast<double*>(bytes.data()));
  } else if (precision == Precision::kSingle) {
    Pack(host, stride, reinterpret_cast<float*>(bytes.data()));
  } else {
    PackHalf(host, stride, bytes.data());
  }
  return bytes;
}

ColourVectorField<double> UnpackColourVectors(const void* data, Precision precision, int stride, const Lattice& lattice,
                                              Parity parity) {
  ColourVectorField<double> host(lattice, SubsetOf(parity));
  if (precision == Precision::kDouble) {
    Unpack(static_cast<const double*>(data), stride, host);
  } else if (precision == Precision::kSingle) {
    Unpack(static_cast<const float*>(data), stride, host);
  } else {
    UnpackHalf(static_cast<const unsigned char*>(data), stride, host);
  }
  return host;
}

DeviceColourVectorField::DeviceColourVectorField(const Lattice& lattice, Parity parity, Precision precision, int pad)
    : lattice_(lattice), parity_(parity), precision_(precision), pad_(pad) {
  if (pad < 0) throw std::invalid_argument("DeviceColourVectorField: pad must be >= 0, got " + std::to_string(pad));
  data_ = DeviceBuffer(ColourVectorBytes(precision, stride()));
  data_.Fill(0);  // +0.0 in both precisions
}

void DeviceColourVectorField::Upload(const ColourVectorField<double>& host) {
  if (host.lattice() != lattice_ || host.subset() != SubsetOf(parity_)) {
    throw std::invalid_argument("DeviceColourVectorField::Upload: the field is " + host.lattice().ToString() + " " +
                                ToString(host.subset()) + ", the device field " + lattice_.ToString() + " " +
                                ToString(SubsetOf(parity_)));
  }
  // Single and half keep floats (half: the site's norm), so a value beyond the float range is refused.
  const double largest = precision_ == Precision::kDouble ? std::numeric_limits<double>::max()
                                                          : std::numeric_limits<float>::max();
  for (int i = 0; i < host.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const Complex<double> z = host[i](c);
      if (!(std::abs(z.real()) <= largest && std::abs(z.imag()) <= largest)) {
        throw std::invalid_argument("DeviceColourVectorField::Upload: site " + std::to_string(host.SiteIndex(i)) +
                                    " colour " + std::to_string(c) + " holds " + std::to_string(z.real()) + " + i " +
                                    std::to_string(z.imag()) + ", not finite in " + ToString(precision_) +
                                    " precision");
      }
    }
  }
  const std::vector<unsigned char> staging = PackColourVectors(host, precision_, stride());
  data_.CopyFromHost(staging.data(), staging.size());
}

ColourVectorField<double> DeviceColourVectorField::Download() const {
  std::vector<unsigned char> staging(data_.bytes());
  data_.CopyToHost(staging.data(), staging.size());
  return UnpackColourVectors(staging.data(), precision_, stride(), lattice_, parity_);
}

void DeviceColourVectorField::CopyFrom(const DeviceColourVectorField& other) {
  if (other.lattice_ != lattice_ || other.parity_ != parity_ || other.precision_ != precision_ ||
      other.pad_ != pad_) {
    throw std::invalid_argument("DeviceColourVectorField::CopyFrom: the fields differ in lattice, parity, precision "
                                "or pad");
  }
  if (&other != this) CopyDeviceToDevice(data_.data(), other.data_.data(), data_.bytes());
}

ColourVectorView DeviceColourVectorField::View() {
  ColourVectorView v;
  v.precision = precision_;
  v.parity = static_cast<int>(parity_);
  for (int mu = 0; mu < 4; ++mu) v.extents[mu] = lattice_.extent(mu);
  v.sites = lattice_.half_volume();
  v.stride = stride();
  v.data = data_.data();
  return v;
}

ConstColourVectorView DeviceColourVectorField::View() const {
  return const_cast<DeviceColourVectorField*>(this)->View();  // the same description, read-only
}

}  // namespace lqcd::gpu
