#include "gpu/staggered_dslash.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>

#include "gpu/staggered_dslash_cost.h"
#include "gpu/staggered_dslash_launch.h"

namespace lqcd::gpu {
namespace {

void Refuse(const std::string& what) { throw std::invalid_argument("ApplyStaggeredDslash: " + what); }

GaugeLayout EighteenReals(Precision precision) { return GaugeLayout{precision, Reconstruct::k18, false, 0}; }

// The fat links, after the checks of the pair (before anything is uploaded).
const GaugeField<double>& CheckedFatLinks(const StaggeredLinks<double>& links) {
  RequireUsableLinks(links, "DeviceStaggeredLinks");
  return links.fat;
}

std::unique_ptr<DeviceGaugeField> UploadLongLinks(const StaggeredLinks<double>& links, Precision precision,
                                                  const LongLinkStorage& storage) {
  if (!links.long_links || storage.form != U3Compression::k18) return nullptr;
  return std::make_unique<DeviceGaugeField>(*links.long_links, EighteenReals(precision));
}

}  // namespace

std::vector<double> CanonicalEighteenRealLinks(const GaugeField<double>& u) {
  const Lattice& lattice = u.lattice();
  const int half = lattice.half_volume();
  std::vector<double> canonical(18 * 8 * static_cast<std::size_t>(half));
  for (int p = 0; p < 2; ++p) {
    for (int cb = 0; cb < half; ++cb) {
      const int site = lattice.FullIndex(static_cast<Parity>(p), cb);
      for (int mu = 0; mu < 4; ++mu) {
        double* link = canonical.data() + 18 * ((p * 4 + mu) * static_cast<std::size_t>(half) + cb);
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) {
            link[2 * (3 * i + j)] = u.Link(site, mu)(i, j).real();
            link[2 * (3 * i + j) + 1] = u.Link(site, mu)(i, j).imag();
          }
        }
      }
    }
  }
  return canonical;
}

namespace {

// The loop both compressed long-link forms share: for every link (ordered parity, mu, checkerboard index) of
// X = L / scale, encode(X, link) writes its `reals` doubles. An std::invalid_argument from encode is rethrown
// prefixed with `name` and the link.
template <typename Encode>
std::vector<double> CanonicalUnitaryLinks(const GaugeField<double>& long_links, double scale, int reals,
                                          const char* name, Encode encode) {
  if (!std::isfinite(scale) || scale == 0) {
    throw std::invalid_argument(std::string(name) + ": the scale must be finite and non-zero, got " +
                                std::to_string(scale));
  }
  const Lattice& lattice = long_links.lattice();
  const int half = lattice.half_volume();
  std::vector<double> canonical(reals * 8 * static_cast<std::size_t>(half), 0.0);
  for (int p = 0; p < 2; ++p) {
    for (int cb = 0; cb < half; ++cb) {
      const int site = lattice.FullIndex(static_cast<Parity>(p), cb);
      for (int mu = 0; mu < 4; ++mu) {
        try {
          encode(ColorMatrix<double>(long_links.Link(site, mu) / scale),
                 canonical.data() + reals * ((p * 4 + mu) * static_cast<std::size_t>(half) + cb));
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(std::string(name) + ": the long link at site " + std::to_string(site) +
                                      ", direction " + std::to_string(mu) + " over the scale " +
                                      std::to_string(scale) + ": " + e.what());
        }
      }
    }
  }
  return canonical;
}

}  // namespace

std::vector<double> CanonicalU3Links(const GaugeField<double>& long_links, double scale) {
  return CanonicalUnitaryLinks(long_links, scale, 2 * kU3Words, "CanonicalU3Links",
                               [](const ColorMatrix<double>& x, double* link) {
                                 const Compressed13<double> c = Compress13(x);
                                 for (int k = 0; k < 12; ++k) link[k] = c.rows.values[k];
                                 link[12] = c.theta;  // link[13]: the pad, 0
                               });
}

std::vector<double> CanonicalU9Links(const GaugeField<double>& long_links, double scale) {
  return CanonicalUnitaryLinks(
      long_links, scale, 2 * kU9Words, "CanonicalU9Links", [](const ColorMatrix<double>& x, double* link) {
        const double theta = DeterminantPhase(x);
        const ColorMatrix<double> s = std::polar(1.0, -theta / 3) * x;  // det s = 1
        link[6] = std::arg(s(0, 0));
        link[8] = theta;  // link[9]: the pad, 0
        if (!KeptInSingularForm8(s)) {
          const Complex<double> a2 = s(0, 1), a3 = s(0, 2), b1 = s(1, 0);
          const double values[6] = {a2.real(), a2.imag(), a3.real(), a3.imag(), b1.real(), b1.imag()};
          std::copy(values, values + 6, link);
          link[7] = std::arg(s(2, 0));
          return;
        }
        // The singular form (a2 = a3 = b1 = 0 and arg c1 = 0 already), as DeviceGaugeField keeps 8-real links.
        const double off = (s - SingularForm8(s)).cwiseAbs().maxCoeff();
        if (!(off <= kSu3Tolerance)) {
          throw std::invalid_argument(
              "its SU(3) part e^{-i theta/3} X has N = " + std::to_string(std::hypot(std::abs(s(0, 1)), std::abs(s(0, 2)))) +
              " (< 2^-10) but is not diag(a1, a1^*, 1), the only form 8 reals keep there (off by " +
              std::to_string(off) + " > 2^-18); use 13 or 18 numbers");
        }
      });
}

namespace {

// The largest |real| of a field (> 0 for usable links).
double LargestReal(const std::vector<double>& canonical) {
  double largest = 0;
  for (const double r : canonical) largest = std::max(largest, std::abs(r));
  return largest;
}

// One field of links in the scaled half layout, uploaded into `buffer`.
ScaledHalfLinkView UploadHalfLinks(const GaugeField<double>& u, DeviceBuffer& buffer) {
  std::vector<unsigned char> staging;
  ScaledHalfLinkView view = PackHalfLinks(u, staging);
  buffer = DeviceBuffer(staging.size());
  buffer.CopyFromHost(staging.data(), staging.size());
  view.data = buffer.data();
  return view;
}

}  // namespace

ScaledHalfLinkView PackHalfLinks(const GaugeField<double>& u, std::vector<unsigned char>& bytes) {
  const std::vector<double> canonical = CanonicalEighteenRealLinks(u);
  ScaledHalfLinkView view;
  view.stride = u.lattice().half_volume();
  view.level_value = HalfLinkLevelValue(LargestReal(canonical));
  bytes.assign(ScaledHalfLinkBytes(view.stride), 0);
  view.data = bytes.data();
  PackScaledHalfLinksOnHost(view, canonical.data());
  return view;
}

GaugeField<double> HalfPrecisionLinks(const GaugeField<double>& links) {
  const float level_value = HalfLinkLevelValue(LargestReal(CanonicalEighteenRealLinks(links)));
  GaugeField<double> represented = links;
  const auto represent = [&](double r) { return HalfLinkValue(HalfLinkLevel(r, level_value), level_value); };
  for (int site = 0; site < links.lattice().volume(); ++site) {
    for (int mu = 0; mu < 4; ++mu) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          const Complex<double> z = links.Link(site, mu)(i, j);
          represented.Link(site, mu)(i, j) = Complex<double>(represent(z.real()), represent(z.imag()));
        }
      }
    }
  }
  return represented;
}

StaggeredLinks<double> HalfPrecisionLinks(const StaggeredLinks<double>& links) {
  StaggeredLinks<double> represented{HalfPrecisionLinks(links.fat), std::nullopt};
  if (links.long_links) represented.long_links = HalfPrecisionLinks(*links.long_links);
  return represented;
}

DeviceStaggeredLinks::DeviceStaggeredLinks(const StaggeredLinks<double>& links, Precision precision,
                                           const LongLinkStorage& storage)
    : lattice_(CheckedFatLinks(links).lattice()), precision_(precision), storage_(storage) {
  if (precision == Precision::kHalf) {
    if (storage.form != U3Compression::k18 && links.long_links) {
      throw std::invalid_argument(std::string("DeviceStaggeredLinks: ") +
                                  (storage.form == U3Compression::k13 ? "13" : "9") +
                                  "-number long links are not implemented in half precision");
    }
    fat_half_ = UploadHalfLinks(links.fat, fat_half_buffer_);
    if (links.long_links) long_half_ = UploadHalfLinks(*links.long_links, long_half_buffer_);
    return;
  }
  // The compressed long links are formed (and checked) before anything is uploaded.
  const bool compressed = storage.form != U3Compression::k18 && links.long_links;
  const bool nine = storage.form == U3Compression::k9;
  const std::vector<double> canonical =
      !compressed ? std::vector<double>{}
      : nine      ? CanonicalU9Links(*links.long_links, storage.scale)
                  : CanonicalU3Links(*links.long_links, storage.scale);
  fat_ = std::make_unique<DeviceGaugeField>(links.fat, EighteenReals(precision));
  long_links_ = UploadLongLinks(links, precision, storage);
  if (compressed) {
    long_u3_.precision = precision;
    long_u3_.numbers = nine ? 9 : 13;
    long_u3_.stride = lattice().half_volume();
    long_u3_.scale = storage.scale;
    const std::size_t real_bytes = precision == Precision::kDouble ? sizeof(double) : sizeof(float);
    std::vector<unsigned char> staging(2 * U3WordsPerLink(long_u3_.numbers) * 8 *
                                       static_cast<std::size_t>(long_u3_.stride) * real_bytes);
    U3LinkView host = long_u3_;
    host.data = staging.data();
    PackU3LinksOnHost(host, canonical.data());
    long_u3_buffer_ = DeviceBuffer(staging.size());
    long_u3_buffer_.CopyFromHost(staging.data(), staging.size());
    long_u3_.data = long_u3_buffer_.data();
  }
}

void ApplyStaggeredDslash(DeviceColourVectorField& out, const DeviceStaggeredLinks& links,
                          const DeviceColourVectorField& in, const FermionBoundary& boundary, Dagger dagger) {
  ApplyStaggeredDslashBlock({&out}, links, {&in}, boundary, dagger);
}

namespace {

// A fused sum's request (StaggeredDslashLaunch's fields of the same names).
struct FusedSum {
  StaggeredSum sum = StaggeredSum::kNone;
  double* partials = nullptr;
  double norm_weight = 0;
  std::vector<double> numerators;
  std::vector<const double*> denominators;
};

// Both forms: x null for the plain Dslash.
void ApplyBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                const std::vector<const DeviceColourVectorField*>& in, const std::vector<const DeviceColourVectorField*>* x,
                double a, double b, const FermionBoundary& boundary, Dagger dagger, int rhs_per_thread,
                const FusedSum& fused = {}) {
  const int n = static_cast<int>(out.size());
  if (n < 1 || n > kMaxStaggeredRhs || in.size() != out.size()) {
    Refuse(std::to_string(out.size()) + " outputs and " + std::to_string(in.size()) +
           " inputs: need as many of each, 1 to " + std::to_string(kMaxStaggeredRhs));
  }
  if (rhs_per_thread != 0 && rhs_per_thread != 1 && rhs_per_thread != 2 && rhs_per_thread != 4) {
    Refuse("rhs_per_thread must be 0 (chosen), 1, 2 or 4, got " + std::to_string(rhs_per_thread));
  }
  StaggeredDslashLaunch l;
  const Parity out_parity = out[0] != nullptr ? out[0]->parity() : Parity::kEven;
  for (int j = 0; j < n; ++j) {
    if (out[j] == nullptr || in[j] == nullptr) Refuse("right-hand side " + std::to_string(j) + " is null");
    for (const DeviceColourVectorField* f : {static_cast<const DeviceColourVectorField*>(out[j]), in[j]}) {
      if (f->lattice() != links.lattice()) {
        Refuse("right-hand side " + std::to_string(j) + ": field on " + f->lattice().ToString() + ", links on " +
               links.lattice().ToString());
      }
      if (f->precision() != links.precision()) {
        Refuse("right-hand side " + std::to_string(j) + ": " + ToString(f->precision()) + " field, " +
               ToString(links.precision()) + " links");
      }
    }
    if (out[j]->parity() != out_parity || in[j]->parity() != Opposite(out_parity)) {
      Refuse("right-hand side " + std::to_string(j) + ": every output must be on one parity and every input on "
             "the other");
    }
    for (int k = 0; k < n; ++k) {
      if (static_cast<const DeviceColourVectorField*>(out[j]) == in[k]) Refuse("an output is also an input");
      if (k != j && out[k] == out[j]) Refuse("an output appears twice");
    }
    l.out[j] = out[j]->View();
    l.in[j] = in[j]->View();
  }
  if (x != nullptr) {
    if (x->size() != out.size()) Refuse(std::to_string(x->size()) + " x fields for " + std::to_string(n) + " outputs");
    if (!std::isfinite(a) || !std::isfinite(b)) Refuse("xpay coefficients must be finite");
    for (int j = 0; j < n; ++j) {
      const DeviceColourVectorField* xj = (*x)[j];
      if (xj == nullptr) Refuse("x " + std::to_string(j) + " is null");
      if (xj->lattice() != links.lattice() || xj->parity() != out_parity || xj->precision() != links.precision()) {
        Refuse("x " + std::to_string(j) + " must be on the outputs' lattice, parity and precision");
      }
      for (int k = 0; k < n; ++k) {
        if (k != j && xj == out[k]) Refuse("x " + std::to_string(j) + " is another right-hand side's output");
      }
      l.x[j] = xj->View();
    }
    l.xpay = true;
    l.a = a;
    l.b = b;
  }
  l.rhs = n;
  if (links.fat() != nullptr) l.fat = links.fat()->View();
  if (links.long_links() != nullptr) l.long_links = links.long_links()->View();
  l.long_links_u3 = links.long_links_u3();
  l.fat_half = links.fat_half();
  l.long_half = links.long_half();
  for (int mu = 0; mu < 4; ++mu) l.antiperiodic[mu] = boundary.WrapSign(mu) < 0;
  l.dagger = dagger == Dagger::kYes;
  l.rhs_per_thread = rhs_per_thread;
  if (fused.sum != StaggeredSum::kNone) {
    if (fused.partials == nullptr) Refuse("a fused sum's partial sums need device memory, got null");
    if (links.precision() == Precision::kHalf) {
      Refuse("the fused sums are compiled for double and single (half: the plain call and a separate reduction)");
    }
    if (fused.sum == StaggeredSum::kNormWithForwardX && !std::isfinite(fused.norm_weight)) {
      Refuse("the fused norm's weight must be finite");
    }
    if (fused.sum == StaggeredSum::kAxpyNorm) {
      if (fused.numerators.size() != out.size() || fused.denominators.size() != out.size()) {
        Refuse("the fused update needs one numerator and one denominator per right-hand side");
      }
      for (int j = 0; j < n; ++j) {
        if (!std::isfinite(fused.numerators[j])) Refuse("numerator " + std::to_string(j) + " is not finite");
        if (fused.denominators[j] == nullptr) Refuse("denominator " + std::to_string(j) + " is null");
        if ((*x)[j] == out[j]) Refuse("x " + std::to_string(j) + " is the field the fused update replaces");
        l.axpy_numerator[j] = fused.numerators[j];
        l.axpy_denominator[j] = fused.denominators[j];
      }
    }
    l.sum = fused.sum;
    l.partials = fused.partials;
    l.norm_weight = fused.norm_weight;
  }
  LaunchStaggeredDslash(l);
}

}  // namespace

void ApplyStaggeredDslashBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                               const std::vector<const DeviceColourVectorField*>& in, const FermionBoundary& boundary,
                               Dagger dagger, int rhs_per_thread) {
  ApplyBlock(out, links, in, nullptr, 0, 1, boundary, dagger, rhs_per_thread);
}

void ApplyStaggeredDslashXpay(DeviceColourVectorField& out, const DeviceStaggeredLinks& links,
                              const DeviceColourVectorField& in, const DeviceColourVectorField& x, double a, double b,
                              const FermionBoundary& boundary, Dagger dagger) {
  ApplyStaggeredDslashXpayBlock({&out}, links, {&in}, {&x}, a, b, boundary, dagger);
}

void ApplyStaggeredDslashXpayBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                                   const std::vector<const DeviceColourVectorField*>& in,
                                   const std::vector<const DeviceColourVectorField*>& x, double a, double b,
                                   const FermionBoundary& boundary, Dagger dagger, int rhs_per_thread) {
  ApplyBlock(out, links, in, &x, a, b, boundary, dagger, rhs_per_thread);
}

void ApplyStaggeredDslashNormBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                                   const std::vector<const DeviceColourVectorField*>& in, double weight,
                                   const FermionBoundary& boundary, double* partials, int rhs_per_thread) {
  FusedSum fused;
  fused.sum = StaggeredSum::kNormWithForwardX;
  fused.partials = partials;
  fused.norm_weight = weight;
  ApplyBlock(out, links, in, nullptr, 0, 1, boundary, Dagger::kNo, rhs_per_thread, fused);
}

void ApplyStaggeredDslashXpayAxpyNormBlock(const std::vector<DeviceColourVectorField*>& r,
                                           const DeviceStaggeredLinks& links,
                                           const std::vector<const DeviceColourVectorField*>& in,
                                           const std::vector<const DeviceColourVectorField*>& x, double a, double b,
                                           const std::vector<double>& numerators,
                                           const std::vector<const double*>& denominators,
                                           const FermionBoundary& boundary, double* partials, int rhs_per_thread) {
  FusedSum fused;
  fused.sum = StaggeredSum::kAxpyNorm;
  fused.partials = partials;
  fused.numerators = numerators;
  fused.denominators = denominators;
  ApplyBlock(r, links, in, &x, a, b, boundary, Dagger::kNo, rhs_per_thread, fused);
}

int StaggeredCurvatureChunks(const DeviceStaggeredLinks& links) {
  return CurvatureChunks(links.lattice().half_volume());
}

KernelCost StaggeredDslashKernelCost(const DeviceStaggeredLinks& links, int rhs) {
  Extents extents{};
  for (int mu = 0; mu < 4; ++mu) extents[mu] = links.lattice().extent(mu);
  const int long_reals = !links.improved() ? 0
                         : links.long_storage().form == U3Compression::k18
                             ? 18
                             : 2 * U3WordsPerLink(links.long_links_u3().numbers);
  return StaggeredDslashCost(StaggeredDslashVariant{links.precision(), long_reals}, extents, rhs);
}

}  // namespace lqcd::gpu
