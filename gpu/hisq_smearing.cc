// hisq_smearing.cc: the host side of the GPU link smearing (hisq_smearing.h): argument checks, device buffers,
// the oracle's staple recursion as a sequence of kernel launches, and the U(3) projection's kernel and its errors.
#include "gpu/hisq_smearing.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/hisq_smearing_launch.h"
#include "gpu/u3_projection.h"

namespace lqcd::gpu {
namespace {

constexpr std::size_t kMatrixBytes = 18 * sizeof(double);

void RequireDevice(const char* where) {
  if (const std::string why = NoDeviceReason(); !why.empty()) throw std::runtime_error(std::string(where) + ": " + why);
}

SmearingLattice LatticeOf(const Lattice& lat) {
  SmearingLattice l;
  for (int mu = 0; mu < kDims; ++mu) l.extents[mu] = lat.extent(mu);
  l.volume = lat.volume();
  return l;
}

std::size_t FieldBytes(const GaugeField<double>& u) { return u.links().size() * kMatrixBytes; }

double* Doubles(DeviceBuffer& b) { return static_cast<double*>(b.data()); }
const double* Doubles(const DeviceBuffer& b) { return static_cast<const double*>(b.data()); }

// A host field into a device gauge field (hisq_smearing_launch.h), through `staging` (host order, same size).
void Upload(const GaugeField<double>& u, DeviceBuffer& staging, DeviceBuffer& gauge) {
  staging.CopyFromHost(u.links().data(), FieldBytes(u));
  LaunchToGaugeLayout(Doubles(gauge), Doubles(staging), LatticeOf(u.lattice()));
}

GaugeField<double> Download(const DeviceBuffer& gauge, DeviceBuffer& staging, const Lattice& lat) {
  LaunchToHostOrder(Doubles(staging), Doubles(gauge), LatticeOf(lat));
  GaugeField<double> f(lat);
  staging.CopyToHost(f.links().data(), FieldBytes(f));
  return f;
}

// fat = FatLink(u, c) on device fields: the loops of the oracle's FatLink, each pass one launch.
void FatLinkOnDevice(const DeviceBuffer& u, DeviceBuffer& fat, const SmearingCoefficients& c, const Lattice& lat) {
  const SmearingLattice l = LatticeOf(lat);
  const std::size_t site_field = static_cast<std::size_t>(lat.volume()) * kMatrixBytes;
  DeviceBuffer thin(site_field), s3(site_field), s5(site_field), s7(site_field), lepage(site_field),
      staple3(site_field), staple5(site_field);
  const double* links = Doubles(u);
  const double coefficients[5] = {c.one_link, c.three_staple, c.five_staple, c.seven_staple, c.lepage};
  for (int mu = 0; mu < kDims; ++mu) {
    for (DeviceBuffer* f : {&s3, &s5, &s7, &lepage}) f->Fill(0);
    LaunchCopyDirection(Doubles(thin), links, mu, l);
    for (SignedDirection a : TransverseDirections(mu, {})) {
      LaunchStaple(Doubles(staple3), Doubles(thin), links, mu, a.dir, a.forward, false, l);
      LaunchAccumulate(Doubles(s3), Doubles(staple3), l);
      if (c.lepage != 0) LaunchStaple(Doubles(lepage), Doubles(staple3), links, mu, a.dir, a.forward, true, l);
      if (c.five_staple == 0 && c.seven_staple == 0) continue;
      for (SignedDirection b : TransverseDirections(mu, {a.dir})) {
        LaunchStaple(Doubles(staple5), Doubles(staple3), links, mu, b.dir, b.forward, false, l);
        LaunchAccumulate(Doubles(s5), Doubles(staple5), l);
        if (c.seven_staple == 0) continue;
        for (SignedDirection h : TransverseDirections(mu, {a.dir, b.dir})) {
          LaunchStaple(Doubles(s7), Doubles(staple5), links, mu, h.dir, h.forward, true, l);
        }
      }
    }
    LaunchCombine(Doubles(fat), mu, coefficients, Doubles(thin), Doubles(s3), Doubles(s5), Doubles(s7),
                  Doubles(lepage), l);
  }
}

// No failure, or (4 site + mu) << 2 | status of the failing link of the lowest host-order index (the kernel's code).
constexpr unsigned long long kNoFailure = ~0ull;

// std::runtime_error naming the failing link, as the oracle names its first failure; nothing for kNoFailure.
void ThrowIfFailed(unsigned long long failure, const char* where) {
  if (failure == kNoFailure) return;
  const unsigned long long link = failure >> 2;
  const auto status = static_cast<u3::Status>(failure & 3);
  throw std::runtime_error(std::string(where) + ": the U(3) projection of the link at site " +
                           std::to_string(link / kDims) + ", direction " + std::to_string(link % kDims) + " failed: " +
                           (status == u3::Status::kNotFinite ? "an entry is not finite"
                                                             : "no convergence in " + std::to_string(u3::kMaxSweeps) +
                                                                   " Jacobi sweeps"));
}

// w = the U(3) projection of v on device gauge fields (w may be v); ThrowIfFailed's error.
void ProjectU3OnDevice(DeviceBuffer& w, const DeviceBuffer& v, const Lattice& lat, const char* where) {
  DeviceBuffer first_failure(sizeof(unsigned long long));
  first_failure.Fill(0xff);  // kNoFailure
  LaunchProjectU3(Doubles(w), Doubles(v), static_cast<unsigned long long*>(first_failure.data()), LatticeOf(lat));
  unsigned long long failure = kNoFailure;
  first_failure.CopyToHost(&failure, sizeof(failure));
  ThrowIfFailed(failure, where);
}

// The device fields of one construction: the thin (or level-1 projected) links and the fat links, then the Naik
// links in the same buffer (gauge layout), and the host-order staging of the transfers.
struct DeviceFields {
  explicit DeviceFields(const Lattice& lat)
      : bytes(static_cast<std::size_t>(lat.volume()) * kDims * kMatrixBytes), links(bytes), fat(bytes), staging(bytes) {}
  std::size_t bytes;
  DeviceBuffer links, fat, staging;
};

// {FatLink(U, c), NaikLink(U, c_naik)} of the links U in d.links, downloaded one after the other (the Naik links
// reuse d.fat once the fat links are on the host).
SmearedLinks FatAndNaikLinks(DeviceFields& d, const SmearingCoefficients& c, double c_naik, const Lattice& lat) {
  FatLinkOnDevice(d.links, d.fat, c, lat);
  GaugeField<double> fat = Download(d.fat, d.staging, lat);
  LaunchNaik(Doubles(d.fat), Doubles(d.links), c_naik, LatticeOf(lat));
  return SmearedLinks{std::move(fat), Download(d.fat, d.staging, lat)};
}

}  // namespace

GaugeField<double> FatLinkOnGpu(const GaugeField<double>& u, const SmearingCoefficients& c) {
  RequireDevice("FatLinkOnGpu");
  DeviceFields d(u.lattice());
  Upload(u, d.staging, d.links);
  FatLinkOnDevice(d.links, d.fat, c, u.lattice());
  return Download(d.fat, d.staging, u.lattice());
}

GaugeField<double> NaikLinkOnGpu(const GaugeField<double>& u, double c_naik) {
  RequireNaikExtents(u.lattice(), "NaikLinkOnGpu");
  RequireDevice("NaikLinkOnGpu");
  DeviceFields d(u.lattice());
  Upload(u, d.staging, d.links);
  LaunchNaik(Doubles(d.fat), Doubles(d.links), c_naik, LatticeOf(u.lattice()));
  return Download(d.fat, d.staging, u.lattice());
}

SmearedLinks AsqtadLinksOnGpu(const GaugeField<double>& u, double u0) {
  const SmearingCoefficients c = AsqtadCoefficients(u0);  // checks u0
  const double c_naik = AsqtadNaikCoefficient(u0);
  RequireNaikExtents(u.lattice(), "AsqtadLinksOnGpu");
  RequireDevice("AsqtadLinksOnGpu");
  DeviceFields d(u.lattice());
  Upload(u, d.staging, d.links);
  return FatAndNaikLinks(d, c, c_naik, u.lattice());
}

SmearedLinks HisqLinksOnGpu(const GaugeField<double>& u, double epsilon_naik) {
  const SmearingCoefficients level2 = HisqCoefficients(epsilon_naik);  // checks epsilon
  const double c_naik = HisqNaikCoefficient(epsilon_naik);
  RequireNaikExtents(u.lattice(), "HisqLinksOnGpu");
  RequireDevice("HisqLinksOnGpu");
  const Lattice& lat = u.lattice();
  DeviceFields d(lat);
  Upload(u, d.staging, d.links);
  FatLinkOnDevice(d.links, d.fat, Fat7Coefficients(), lat);
  ProjectU3OnDevice(d.links, d.fat, lat, "HisqLinksOnGpu");  // W replaces U: the second level reads W only
  return FatAndNaikLinks(d, level2, c_naik, lat);
}

GaugeField<double> ProjectU3OnHost(const GaugeField<double>& v) {
  GaugeField<double> w(v.lattice());
  const std::int64_t n = static_cast<std::int64_t>(v.links().size());
  unsigned long long failure = kNoFailure;
#pragma omp parallel for schedule(static) reduction(min : failure)
  for (std::int64_t i = 0; i < n; ++i) {
    const u3::Status status = u3::ProjectU3(reinterpret_cast<const double*>(v.links()[i].data()),
                                            reinterpret_cast<double*>(w.links()[i].data()));
    if (status != u3::Status::kOk) {
      failure = std::min(failure, static_cast<unsigned long long>(i) << 2 | static_cast<unsigned long long>(status));
    }
  }
  ThrowIfFailed(failure, "ProjectU3OnHost");
  return w;
}

GaugeField<double> ProjectU3OnGpu(const GaugeField<double>& v) {
  RequireDevice("ProjectU3OnGpu");
  DeviceFields d(v.lattice());
  Upload(v, d.staging, d.links);
  ProjectU3OnDevice(d.links, d.links, v.lattice(), "ProjectU3OnGpu");
  return Download(d.links, d.staging, v.lattice());
}

}  // namespace lqcd::gpu
