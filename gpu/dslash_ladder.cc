// dslash_ladder.cc: the rung table, the cost model of rungs 1-3, and the host side of each rung: storage,
// transfers and the dispatch to the ladder's kernels (rungs 1-3) or the production kernel (rungs 4-9).
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

const std::vector<LadderRung> kRungs = {
    {1, "naive-aos",
     "double, DeGrand-Rossi, 1 thread/site; per hop full spinor + full link from arrays of structs, 4 mat-vecs, "
     "4x4 projector",
     "(baseline)", SL::kArrayOfStructs, false, GB::kDeGrandRossi, kD, Reconstruct::k18, false},
    {2, "soa", "structure of arrays (double2 words): a warp's loads are contiguous", "coalesced loads",
     SL::kStructureOfArrays, false, GB::kDeGrandRossi, kD, Reconstruct::k18, false},
    {3, "half-spinor", "project to 2 spins before the colour multiply: 2 mat-vecs per hop, no 4x4 multiply",
     "fewer flops and registers", SL::kStructureOfArrays, true, GB::kDeGrandRossi, kD, Reconstruct::k18, false},
    {4, "ukqcd-basis", "gamma_4 diagonal: temporal hops load 12 of 24 reals (the production kernel)",
     "7% fewer bytes", SL::kStructureOfArrays, true, GB::kUkqcd, kD, Reconstruct::k18, false},
    {5, "reconstruct-12", "links as 12 reals, third row rebuilt in registers", "14% fewer bytes",
     SL::kStructureOfArrays, true, GB::kUkqcd, kD, Reconstruct::k12, false},
    {6, "reconstruct-8", "links as 8 reals (Appendix A.2), rebuilt with sincos and sqrt", "11% fewer bytes, more flops",
     SL::kStructureOfArrays, true, GB::kUkqcd, kD, Reconstruct::k8, false},
    {7, "gauge-fixed", "temporal gauge: t-links loaded only on the last time slice", "6% fewer bytes",
     SL::kStructureOfArrays, true, GB::kUkqcd, kD, Reconstruct::k8, true},
    {8, "single", "float storage and arithmetic", "half the bytes", SL::kStructureOfArrays, true, GB::kUkqcd,
     Precision::kSingle, Reconstruct::k8, true},
    {9, "half", "16-bit fixed point + a float norm per site, float arithmetic", "half the bytes again",
     SL::kStructureOfArrays, true, GB::kUkqcd, Precision::kHalf, Reconstruct::k8, true},
};

[[noreturn]] void Reject(const std::string& what) { throw std::invalid_argument("LadderDslash: " + what); }

Extents ExtentsOf(const Lattice& lattice) {
  return {lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
}

}  // namespace

const std::vector<LadderRung>& DslashLadder() { return kRungs; }

const LadderRung& DslashLadderRung(int number) {
  if (number < 1 || number > static_cast<int>(kRungs.size())) {
    throw std::invalid_argument("DslashLadderRung: rung " + std::to_string(number) + " does not exist (1.." +
                                std::to_string(kRungs.size()) + ")");
  }
  return kRungs[number - 1];
}

KernelCost LadderCost(const LadderRung& rung, const Extents& extents) {
  KernelCost cost = WilsonDslashCost(rung.Variant(), extents);
  if (!rung.production()) {
    // Every hop loads the whole neighbour spinor and the whole link; the output is stored once.
    cost.bytes = HalfVolume(extents) * (8.0 * (24 + 18) + 24) * BytesPerReal(rung.precision);
  }
  return cost;
}

LadderDslash::LadderDslash(int rung, const GaugeField<double>& links, Parity out_parity,
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

void LadderDslash::Upload(const SpinorField<double>& in) {
  if (in.lattice() != lattice_ || in.subset() != SubsetOf(Opposite(out_parity_))) {
    Reject("the input must be a field on the " + std::string(ToString(Opposite(out_parity_))) + " sites of " +
           lattice_.ToString() + ", got a " + ToString(in.subset()) + " field on " + in.lattice().ToString());
  }
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
  } else if (rung_.production()) {
    in_->Upload(in, GammaBasis::kDeGrandRossi);  // converted to the device's UKQCD basis
  } else {
    // Rungs 2-3 compute in the DeGrand-Rossi basis: store the host's numbers unchanged (an upload "from
    // UKQCD" copies without a basis change, DeviceSpinorField's documented behaviour).
    in_->Upload(in, GammaBasis::kUkqcd);
  }
}

void LadderDslash::Apply() {
  if (rung_.production()) {
    ApplyWilsonDslash(out_->View(), *gauge_, in_->View(), Dagger::kNo, boundary_);
    return;
  }
  LadderKernelLaunch l;
  l.rung = rung_.number;
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

SpinorField<double> LadderDslash::Download() const {
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
  return out_->Download(rung_.production() ? GammaBasis::kDeGrandRossi : GammaBasis::kUkqcd);
}

}  // namespace lqcd::gpu
