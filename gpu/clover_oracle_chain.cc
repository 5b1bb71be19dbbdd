// clover_oracle_chain.cc: the oracle's clover launches and chains with their bounds (clover_oracle_chain.h).
#include "gpu/clover_oracle_chain.h"

#include <utility>

#include "reference/spinor_algebra.h"

namespace lqcd::gpu::testing {

void ApplyC(SpinorField<double>& out, const CloverField<double>& clover, const SpinorField<double>& in, bool inverse) {
  if (inverse) {
    ApplyCloverInverseBlocks(out, clover, in);
  } else {
    ApplyCloverBlocks(out, clover, in);
  }
}

SpinorField<double> Combine(double a, const SpinorField<double>& x, double b, const SpinorField<double>& y) {
  SpinorField<double> out(x.lattice(), x.subset());
  for (int i = 0; i < x.sites(); ++i) out[i] = a * x[i] + b * y[i];
  return out;
}

std::string EpilogueCase::Name() const {
  DslashVariant v;
  v.precision = precision;
  v.reconstruct = reconstruct;
  v.temporal_gauge_fixed = gauge_fixed;
  v.dagger = dagger;
  v.clover_epilogue = epilogue;
  return v.Name() + (inverse ? " T^-1 " : " T ") + ToString(out_parity);
}

OracleLaunch RunOracle(const GaugeField<double>& u, const CloverField<double>& clover, Parity out_parity, Dagger dagger,
                       DslashEpilogue epilogue, bool inverse, double a, double b, std::uint64_t seed) {
  OracleLaunch o(u.lattice(), out_parity);
  o.a = a;
  o.b = b;
  FillGaussian(o.in, seed);
  FillGaussian(o.x, seed + 1);
  ApplyHoppingParity(o.d, u, o.in, GammaBasis::kDeGrandRossi, clover.params().boundary, dagger);
  switch (epilogue) {
    case DslashEpilogue::kCloverXpay:
      ApplyC(o.c, clover, o.x, inverse);
      o.out = Combine(a, o.c, b, o.d);
      break;
    case DslashEpilogue::kXpayClover:
      ApplyC(o.c, clover, o.d, inverse);
      o.out = Combine(a, o.x, b, o.c);
      break;
    default:  // kClover
      ApplyC(o.c, clover, o.d, inverse);
      o.out = o.c;
      break;
  }
  o.in_magnitude = Magnitudes(o.in);
  o.x_magnitude = Magnitudes(o.x);
  o.d_magnitude = Magnitudes(o.d);
  o.c_magnitude = Magnitudes(o.c);
  o.out_magnitude = Magnitudes(o.out);
  return o;
}

SiteErrors LaunchBound(const Lattice& lat, const EpilogueCase& c, const OracleLaunch& o,
                       const std::vector<double>& link_error, const std::vector<CloverSiteBlocks>& blocks) {
  EpilogueBoundInputs b;
  b.precision = c.precision;
  b.out_parity = c.out_parity;
  b.epilogue = c.epilogue;
  b.in_magnitude = o.in_magnitude;
  b.in_error = UploadErrors(o.in, c.precision);
  b.link_error = link_error;
  b.clover = &blocks;
  b.d_magnitude = o.d_magnitude;
  b.x_magnitude = o.x_magnitude;
  b.x_error = UploadErrors(o.x, c.precision);
  b.clover_magnitude = o.c_magnitude;
  b.out_magnitude = o.out_magnitude;
  b.a = o.a;
  b.b = o.b;
  return DslashEpilogueErrors(lat, b);
}

ChainStep DslashStep(const OperatorSetup& s, Parity out_parity, Dagger dagger, DslashEpilogue epilogue,
                     const SpinorField<double>& in, const std::vector<double>& in_error, const SpinorField<double>* x,
                     const std::vector<double>* x_error, double a, double b, bool inverse) {
  const Lattice& lat = in.lattice();
  const FermionBoundary& boundary = s.clover.params().boundary;
  SpinorField<double> d(lat, SubsetOf(out_parity)), c(lat, SubsetOf(out_parity)), out(lat, SubsetOf(out_parity));
  ApplyHoppingParity(d, s.u, in, GammaBasis::kDeGrandRossi, boundary, dagger);
  switch (epilogue) {
    case DslashEpilogue::kXpay: {  // the oracle's Xpay(x, b, d): x + b d (a = 1)
      out = d;
      Xpay(*x, Complex<double>(b), out);
      break;
    }
    case DslashEpilogue::kClover: ApplyC(out, s.clover, d, inverse); break;
    case DslashEpilogue::kCloverXpay: {  // the oracle's T x then Axpy(b, d, .): a = 1
      ApplyC(c, s.clover, *x, inverse);
      out = c;
      Axpy(Complex<double>(b), d, out);
      break;
    }
    case DslashEpilogue::kXpayClover: {  // T^{-1} d, then Xpay(x, b, .): a = 1
      ApplyC(c, s.clover, d, inverse);
      out = c;
      Xpay(*x, Complex<double>(b), out);
      break;
    }
    default: break;
  }
  EpilogueBoundInputs e;
  e.precision = s.precision;
  e.out_parity = out_parity;
  e.epilogue = epilogue;
  e.in_magnitude = Magnitudes(in);
  e.in_error = in_error;
  e.link_error = s.link_error;
  e.clover = inverse ? &s.t_inverse : &s.t;
  e.d_magnitude = Magnitudes(d);
  if (x != nullptr) {
    e.x_magnitude = Magnitudes(*x);
    e.x_error = *x_error;
  }
  e.clover_magnitude = Magnitudes(c);
  e.out_magnitude = Magnitudes(out);
  e.a = a;
  e.b = b;
  return {DslashEpilogueErrors(lat, e), std::move(out)};
}

// ApplyCloverTerm (T^{-1}) on in's parity.
ChainStep InverseStep(const OperatorSetup& s, const SpinorField<double>& in, const std::vector<double>& in_error) {
  SpinorField<double> out(in.lattice(), in.subset());
  ApplyCloverInverseBlocks(out, s.clover, in);
  return {CloverTermErrors(in.lattice(), s.precision, in.parity(), s.t_inverse, Magnitudes(in), in_error,
                           Magnitudes(out)),
          std::move(out)};
}

// The Schur application's chain (gpu_clover.cc's launches; the oracle's order in reference/clover.cc).
ChainStep SchurChainOf(const OperatorSetup& s, CloverSchurForm form, Dagger dagger, const SpinorField<double>& in) {
  const Parity p = in.parity(), other = Opposite(p);
  const std::vector<double> in_error = UploadErrors(in, s.precision);
  if (form == CloverSchurForm::kUnitDiagonal && dagger == Dagger::kYes) {
    const ChainStep first = InverseStep(s, in, in_error);  // T_pp^{-1} in
    const ChainStep second = DslashStep(s, other, dagger, DslashEpilogue::kClover, first.out, first.errors.Propagated(),
                                        nullptr, nullptr, 0, 0, true);
    return DslashStep(s, p, dagger, DslashEpilogue::kXpay, second.out, second.errors.Propagated(), &in, &in_error, 1.0,
                      -0.25, false);
  }
  const ChainStep first =
      DslashStep(s, other, dagger, DslashEpilogue::kClover, in, in_error, nullptr, nullptr, 0, 0, true);
  if (form == CloverSchurForm::kComplement) {
    return DslashStep(s, p, dagger, DslashEpilogue::kCloverXpay, first.out, first.errors.Propagated(), &in, &in_error,
                      1.0, -0.25, false);
  }
  return DslashStep(s, p, dagger, DslashEpilogue::kXpayClover, first.out, first.errors.Propagated(), &in, &in_error,
                    1.0, -0.25, true);
}

}  // namespace lqcd::gpu::testing
