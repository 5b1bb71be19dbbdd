// dslash_ladder.cc: the rung table, the cost model, and the host side of each rung: storage, transfers and the
// dispatch to the ladder's kernels (rungs 1-3, 4a, 9a) or the production kernel (rungs 4b-8, 9b).
#include "gpu/dslash_ladder.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/dslash_ladder_launch.h"

namespace lqcd::gpu {
namespace {

using GB = GammaBasis;
using SL = SpinorLayout;
constexpr Precision kD = Precision::kDouble;

// Columns: label, name, change, gain, layout, spin_projection, basis, temporal_half_spinors, precision,
// reconstruct, temporal_gauge_fixed, half_on_levels.
const std::vector<LadderRung> kRungs = {
    {"1", "naive-aos",
     "double, DeGrand-Rossi, 1 thread/site; per hop full spinor + full link from arrays of structs, 4 mat-vecs, "
     "4x4 projector",
     "(baseline)", SL::kArrayOfStructs, false, GB::kDeGrandRossi, false, kD, Reconstruct::k18, false, false},
    {"2", "soa", "structure of arrays (double2 words): a warp's loads are contiguous", "coalesced loads",
     SL::kStructureOfArrays, false, GB::kDeGrandRossi, false, kD, Reconstruct::k18, false, false},
    {"3", "half-spinor", "project to 2 spins before the colour multiply: 2 mat-vecs per hop, no 4x4 multiply",
     "fewer flops and registers", SL::kStructureOfArrays, true, GB::kDeGrandRossi, false, kD, Reconstruct::k18,
     false, false},
    {"4a", "ukqcd-basis",
     "UKQCD basis (gamma_4 diagonal); temporal hops still load the whole neighbour, keep the spin pair the "
     "projector keeps",
     "no temporal projection adds, half the temporal accumulations", SL::kStructureOfArrays, true, GB::kUkqcd,
     false, kD, Reconstruct::k18, false, false},
    {"4b", "temporal-half-spinors", "temporal hops load only the 12 reals the projector keeps (the production kernel)",
     "7% fewer bytes", SL::kStructureOfArrays, true, GB::kUkqcd, true, kD, Reconstruct::k18, false, false},
    {"5", "reconstruct-12", "links as 12 reals, third row rebuilt in registers", "14% fewer bytes",
     SL::kStructureOfArrays, true, GB::kUkqcd, true, kD, Reconstruct::k12, false, false},
    {"6", "reconstruct-8", "links as 8 reals (Appendix A.2), rebuilt with sincos and sqrt", "11% fewer bytes, more flops",
     SL::kStructureOfArrays, true, GB::kUkqcd, true, kD, Reconstruct::k8, false, false},
    {"7", "gauge-fixed", "temporal gauge: t-links loaded only on the last time slice", "6% fewer bytes",
     SL::kStructureOfArrays, true, GB::kUkqcd, true, kD, Reconstruct::k8, true, false},
    {"8", "single", "float storage and arithmetic", "half the bytes", SL::kStructureOfArrays, true, GB::kUkqcd, true,
     Precision::kSingle, Reconstruct::k8, true, false},
    {"9a", "half", "16-bit fixed point + a float norm per site, computed in float on the loaded values like single",
     "half the bytes again", SL::kStructureOfArrays, true, GB::kUkqcd, true, Precision::kHalf, Reconstruct::k8, true,
     false},
    {"9b", "half-levels",
     "computed on the stored levels: integer projection, scales in one fma per hop, multiply-high division, fma "
     "chains",
     "fewer instructions per site", SL::kStructureOfArrays, true, GB::kUkqcd, true, Precision::kHalf,
     Reconstruct::k8, true, true},
};

[[noreturn]] void Reject(const std::string& what) { throw std::invalid_argument("LadderDslash: " + what); }

Extents ExtentsOf(const Lattice& lattice) {
  return {lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
}

// The ladder's own kernel for a rung that is not production(). Each property that the production kernel
// exploits and the rung lacks picks the kernel that introduced it, earliest first.
LadderKernel KernelOf(const LadderRung& rung) {
  if (rung.layout == SL::kArrayOfStructs) return LadderKernel::kNaiveAos;
  if (!rung.spin_projection) return LadderKernel::kNaiveSoa;
  if (rung.basis == GB::kDeGrandRossi) return LadderKernel::kHalfSpinorDeGrandRossi;
  if (!rung.temporal_half_spinors) return LadderKernel::kUkqcdWholeTemporalLoads;
  return LadderKernel::kHalfOnValues;  // all that is left: half precision not computing on its levels
}

}  // namespace

const std::vector<LadderRung>& DslashLadder() { return kRungs; }

const LadderRung& DslashLadderRung(const std::string& label) {
  std::string labels;
  for (const LadderRung& rung : kRungs) {
    if (label == rung.label) return rung;
    labels += (labels.empty() ? "" : ", ") + std::string(rung.label);
  }
  throw std::invalid_argument("DslashLadderRung: no rung \"" + label + "\" (the rungs are " + labels + ")");
}

KernelCost LadderCost(const LadderRung& rung, const Extents& extents) {
  KernelCost cost = WilsonDslashCost(rung.Variant(), extents);
  if (!rung.temporal_half_spinors) {
    // The two temporal hops load the whole neighbour spinor, 12 reals more each than the model counts.
    cost.bytes += HalfVolume(extents) * 2 * 12 * BytesPerReal(rung.precision);
  }
  return cost;
}

LadderDslash::LadderDslash(const std::string& rung, const GaugeField<double>& links, Parity out_parity,
                           const FermionBoundary& boundary)
    : rung_(DslashLadderRung(rung)), lattice_(links.lattice()), out_parity_(out_parity), boundary_(boundary) {
  const Subset in_subset = SubsetOf(Opposite(out_parity)), out_subset = SubsetOf(out_parity);
  if (rung_.layout == SpinorLayout::kArrayOfStructs) {
    const int half = lattice_.half_volume();
    std::vector<double> aos(18 * 4 * static_cast<std::size_t>(lattice_.volume()));
    for (int p = 0; p < 2; ++p) {
      for (int cb = 0; cb < half; ++cb) {
        const int site = lattice_.FullIndex(static_cast<Parity>(p), cb);
        for (int mu = 0; mu < kDims; ++mu) {
          double* link = aos.data() + 18 * (4 * (static_cast<std::size_t>(p) * half + cb) + mu);
          for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
              link[2 * (3 * i + j)] = links.Link(site, mu)(i, j).real();
              link[2 * (3 * i + j) + 1] = links.Link(site, mu)(i, j).imag();
            }
          }
        }
      }
    }
    aos_links_ = DeviceBuffer(aos.size() * sizeof(double));
    aos_links_.CopyFromHost(aos.data(), aos.size() * sizeof(double));
    aos_in_ = DeviceBuffer(24 * sizeof(double) * static_cast<std::size_t>(half));
    aos_out_ = DeviceBuffer(24 * sizeof(double) * static_cast<std::size_t>(half));
    return;
  }
  gauge_ = std::make_unique<DeviceGaugeField>(
      links, GaugeLayout{rung_.precision, rung_.reconstruct, rung_.temporal_gauge_fixed, 0});
  in_ = std::make_unique<DeviceSpinorField>(lattice_, in_subset, rung_.precision);
  out_ = std::make_unique<DeviceSpinorField>(lattice_, out_subset, rung_.precision);
}

KernelCost LadderDslash::Cost() const { return LadderCost(rung_, ExtentsOf(lattice_)); }

GammaBasis LadderDslash::TransferBasis(GammaBasis host_basis) const {
  if (rung_.basis == GammaBasis::kUkqcd) return host_basis;  // the device holds UKQCD: convert from the host's
  if (host_basis != GammaBasis::kDeGrandRossi) {
    Reject("rung " + std::string(rung_.label) + " computes in the DeGrand-Rossi basis; pass its fields in that basis");
  }
  // The device holds the host's DeGrand-Rossi numbers unchanged: name the basis DeviceSpinorField converts
  // nothing from (its documented behaviour for UKQCD host fields).
  return GammaBasis::kUkqcd;
}

void LadderDslash::Upload(const SpinorField<double>& in, GammaBasis basis) {
  if (in.lattice() != lattice_ || in.subset() != SubsetOf(Opposite(out_parity_))) {
    Reject("the input must be a field on the " + std::string(ToString(Opposite(out_parity_))) + " sites of " +
           lattice_.ToString() + ", got a " + ToString(in.subset()) + " field on " + in.lattice().ToString());
  }
  const GammaBasis transfer = TransferBasis(basis);
  if (rung_.layout == SpinorLayout::kArrayOfStructs) {
    std::vector<double> aos(24 * static_cast<std::size_t>(in.sites()));
    for (int cb = 0; cb < in.sites(); ++cb) {
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          aos[24 * static_cast<std::size_t>(cb) + 2 * (3 * s + c)] = in[cb](s, c).real();
          aos[24 * static_cast<std::size_t>(cb) + 2 * (3 * s + c) + 1] = in[cb](s, c).imag();
        }
      }
    }
    aos_in_.CopyFromHost(aos.data(), aos.size() * sizeof(double));
    return;
  }
  in_->Upload(in, transfer);
}

void LadderDslash::Apply() {
  if (rung_.production()) {
    ApplyWilsonDslash(out_->View(), *gauge_, in_->View(), Dagger::kNo, boundary_);
    return;
  }
  LadderKernelLaunch l;
  l.kernel = KernelOf(rung_);
  l.extents = ExtentsOf(lattice_);
  l.out_parity = static_cast<int>(out_parity_);
  for (int mu = 0; mu < kDims; ++mu) l.antiperiodic[mu] = boundary_.WrapSign(mu) < 0;
  if (rung_.layout == SpinorLayout::kArrayOfStructs) {
    l.aos_links = static_cast<const double*>(aos_links_.data());
    l.aos_in = static_cast<const double*>(aos_in_.data());
    l.aos_out = static_cast<double*>(aos_out_.data());
  } else {
    l.out = out_->View();
    l.in = in_->View();
    l.gauge = gauge_->View();
  }
  LaunchLadderKernel(l);
}

void LadderDslash::FillOutputBytes(unsigned char byte) {
  if (rung_.layout == SpinorLayout::kArrayOfStructs) {
    aos_out_.Fill(byte);
  } else {
    out_->FillBytes(byte);
  }
}

SpinorField<double> LadderDslash::Download(GammaBasis basis) const {
  const GammaBasis transfer = TransferBasis(basis);
  if (rung_.layout == SpinorLayout::kArrayOfStructs) {
    SpinorField<double> out(lattice_, SubsetOf(out_parity_));
    std::vector<double> aos(24 * static_cast<std::size_t>(out.sites()));
    aos_out_.CopyToHost(aos.data(), aos.size() * sizeof(double));
    for (int cb = 0; cb < out.sites(); ++cb) {
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          out[cb](s, c) = {aos[24 * static_cast<std::size_t>(cb) + 2 * (3 * s + c)],
                           aos[24 * static_cast<std::size_t>(cb) + 2 * (3 * s + c) + 1]};
        }
      }
    }
    return out;
  }
  return out_->Download(transfer);
}

}  // namespace lqcd::gpu
