// hisq_links.cc: fat7 / Lepage / Naik smearing, the U(3) projection, asqtad and HISQ links (see hisq_links.h).
// The loops over sites run on every core (OpenMP): each output link is computed by one thread from its own
// inputs, in the same order of operations for any thread count, so the links are the same bit for bit.
#include "reference/staggered/hisq_links.h"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lqcd {
namespace {

using Hop = SignedDirection;

// Site reached from `site` by one hop.
int Step(const Lattice& lat, int site, Hop h) { return h.forward ? lat.Forward(site, h.dir) : lat.Backward(site, h.dir); }

// The parallel transporter of the hop site -> site + h: U_d(n) forward, U_d(n - d)^dag backward.
ColorMatrix<double> HopLink(const GaugeField<double>& u, int site, Hop h) {
  return h.forward ? u.Link(site, h.dir) : ColorMatrix<double>(u.Link(u.lattice().Backward(site, h.dir), h.dir).adjoint());
}

// The staple of x around the hop a: T(n, a) x(n + a) T(n + mu, a)^dag for a field x of links n -> n + mu (one per
// site): the path n -> n+a, then x from n+a to n+a+mu, then back n+a+mu -> n+mu. kAdd: out(n) += it, else
// out(n) = it. The caller's buffers are reused from path to path (at 64^3 x 16 a field of them is 600 MB, and
// a fresh one per path cost more in page faults than the products).
template <bool kAdd>
void StapleAround(const GaugeField<double>& u, const std::vector<ColorMatrix<double>>& x, int mu, Hop a,
                  std::vector<ColorMatrix<double>>& out) {
  const Lattice& lat = u.lattice();
#pragma omp parallel for schedule(static)
  for (int site = 0; site < lat.volume(); ++site) {
    const int shifted = Step(lat, site, a);
    const int forward_mu = lat.Forward(site, mu);
    const ColorMatrix<double> staple = HopLink(u, site, a) * x[shifted] * HopLink(u, forward_mu, a).adjoint();
    if constexpr (kAdd) {
      out[site] += staple;
    } else {
      out[site] = staple;
    }
  }
}

void Accumulate(std::vector<ColorMatrix<double>>& sum, const std::vector<ColorMatrix<double>>& term) {
  const std::int64_t n = static_cast<std::int64_t>(sum.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) sum[i] += term[i];
}

void RequireU0(double u0, const char* where) {
  if (!(u0 > 0) || !std::isfinite(u0)) {
    std::ostringstream message;
    message << where << ": tadpole factor u0 = " << u0 << " must be finite and positive";
    throw std::invalid_argument(message.str());
  }
}

void RequireEpsilon(double epsilon, const char* where) {
  if (!std::isfinite(epsilon)) {
    std::ostringstream message;
    message << where << ": Naik epsilon = " << epsilon << " must be finite";
    throw std::invalid_argument(message.str());
  }
}

// Unit vector of the standard basis least parallel to the orthonormal u[0..count-1], orthonormalised
// against them (two passes). Used when V is rank-deficient (count <= 1 here; count = 2 uses the cross product).
ColorVector<double> CompleteBasis(const ColorVector<double>* u, int count) {
  ColorVector<double> best = ColorVector<double>::Zero();
  double best_norm = -1;
  for (int k = 0; k < 3; ++k) {
    ColorVector<double> e = ColorVector<double>::Unit(k);
    for (int pass = 0; pass < 2; ++pass) {
      for (int j = 0; j < count; ++j) e -= u[j].dot(e) * u[j];  // Eigen's dot conjugates the first argument
    }
    if (e.norm() > best_norm) {
      best_norm = e.norm();
      best = e;
    }
  }
  return best / best_norm;
}

}  // namespace

std::vector<SignedDirection> TransverseDirections(int mu, std::initializer_list<int> used) {
  std::vector<SignedDirection> hops;
  for (int d = 0; d < kDims; ++d) {
    bool taken = d == mu;
    for (int e : used) taken = taken || d == e;
    if (taken) continue;
    hops.push_back({d, true});
    hops.push_back({d, false});
  }
  return hops;
}

void RequireNaikExtents(const Lattice& lat, const char* where) {
  for (int mu = 0; mu < kDims; ++mu) {
    if (lat.extent(mu) < 3) {
      std::ostringstream message;
      message << where << ": lattice " << lat.ToString() << " has extent " << lat.extent(mu) << " < 3 in direction "
              << mu << ": the Naik 3-hop n -> n + 3 mu would wrap onto n + mu (every extent must be at least 4)";
      throw std::invalid_argument(message.str());
    }
  }
}

SmearingCoefficients Fat7Coefficients() {
  SmearingCoefficients c;
  c.one_link = 1.0 / 8;
  c.three_staple = 1.0 / 16;
  c.five_staple = 1.0 / 64;
  c.seven_staple = 1.0 / 384;
  return c;
}

SmearingCoefficients AsqtadCoefficients(double u0) {
  RequireU0(u0, "AsqtadCoefficients");
  const double u2 = u0 * u0, u4 = u2 * u2, u6 = u4 * u2;
  SmearingCoefficients c;
  c.one_link = 5.0 / 8;
  c.three_staple = 1.0 / (16 * u2);
  c.five_staple = 1.0 / (64 * u4);
  c.seven_staple = 1.0 / (384 * u6);
  c.lepage = -1.0 / (16 * u4);
  return c;
}

SmearingCoefficients HisqCoefficients(double epsilon_naik) {
  RequireEpsilon(epsilon_naik, "HisqCoefficients");
  SmearingCoefficients c;
  c.one_link = 1.0 + epsilon_naik / 8;
  c.three_staple = 1.0 / 16;
  c.five_staple = 1.0 / 64;
  c.seven_staple = 1.0 / 384;
  c.lepage = -1.0 / 8;
  return c;
}

double AsqtadNaikCoefficient(double u0) {
  RequireU0(u0, "AsqtadNaikCoefficient");
  return -1.0 / (24 * u0 * u0);
}

double HisqNaikCoefficient(double epsilon_naik) {
  RequireEpsilon(epsilon_naik, "HisqNaikCoefficient");
  return -(1.0 + epsilon_naik) / 24;
}

GaugeField<double> FatLink(const GaugeField<double>& u, const SmearingCoefficients& c) {
  const Lattice& lat = u.lattice();
  const int volume = lat.volume();
  GaugeField<double> fat(lat);
  using Field = std::vector<ColorMatrix<double>>;
  Field thin(volume), s3(volume), s5(volume), s7(volume), lepage(volume), staple3(volume), staple5(volume);
  const auto zero = [](Field& f) {
    const std::int64_t n = static_cast<std::int64_t>(f.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) f[i].setZero();
  };
  for (int mu = 0; mu < kDims; ++mu) {
    for (Field* f : {&s3, &s5, &s7, &lepage}) zero(*f);
#pragma omp parallel for schedule(static)
    for (int site = 0; site < volume; ++site) thin[site] = u.Link(site, mu);
    for (Hop a : TransverseDirections(mu, {})) {
      StapleAround<false>(u, thin, mu, a, staple3);
      Accumulate(s3, staple3);
      if (c.lepage != 0) StapleAround<true>(u, staple3, mu, a, lepage);
      if (c.five_staple == 0 && c.seven_staple == 0) continue;
      for (Hop b : TransverseDirections(mu, {a.dir})) {
        StapleAround<false>(u, staple3, mu, b, staple5);
        Accumulate(s5, staple5);
        if (c.seven_staple == 0) continue;
        for (Hop h : TransverseDirections(mu, {a.dir, b.dir})) StapleAround<true>(u, staple5, mu, h, s7);
      }
    }
#pragma omp parallel for schedule(static)
    for (int site = 0; site < volume; ++site) {
      fat.Link(site, mu) = c.one_link * thin[site] + c.three_staple * s3[site] + c.five_staple * s5[site] +
                           c.seven_staple * s7[site] + c.lepage * lepage[site];
    }
  }
  return fat;
}

GaugeField<double> NaikLink(const GaugeField<double>& u, double c_naik) {
  const Lattice& lat = u.lattice();
  RequireNaikExtents(lat, "NaikLink");
  GaugeField<double> naik(lat);
#pragma omp parallel for schedule(static)
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const int n1 = lat.Forward(site, mu), n2 = lat.Forward(n1, mu);
      naik.Link(site, mu) = c_naik * (u.Link(site, mu) * u.Link(n1, mu) * u.Link(n2, mu));
    }
  }
  return naik;
}

ColorMatrix<double> ProjectU3(const ColorMatrix<double>& v) {
  const ColorMatrix<double> q = v.adjoint() * v;
  Eigen::SelfAdjointEigenSolver<ColorMatrix<double>> eigen(q);  // eigenvalues ascending
  if (eigen.info() != Eigen::Success) throw std::runtime_error("ProjectU3: eigen-decomposition of V^dag V failed");
  ColorVector<double> right[3], left[3];
  double lambda[3];
  for (int i = 0; i < 3; ++i) {  // descending order
    right[i] = eigen.eigenvectors().col(2 - i);
    lambda[i] = eigen.eigenvalues()(2 - i);
  }
  const double cutoff = kU3ProjectionCutoff * lambda[0];
  for (int i = 0; i < 3; ++i) {
    if (lambda[i] > cutoff && lambda[i] > 0) {
      ColorVector<double> w = v * right[i];
      for (int pass = 0; pass < 2; ++pass) {
        for (int j = 0; j < i; ++j) w -= left[j].dot(w) * left[j];
      }
      const double norm = w.norm();
      if (norm > 0 && std::isfinite(norm)) {
        left[i] = w / norm;
        continue;
      }
    }
    if (i == 2) {  // the unit vector orthogonal to left[0], left[1], exactly in exact arithmetic
      const ColorVector<double>& a = left[0];
      const ColorVector<double>& b = left[1];
      left[2] = ColorVector<double>(std::conj(a(1) * b(2) - a(2) * b(1)), std::conj(a(2) * b(0) - a(0) * b(2)),
                                    std::conj(a(0) * b(1) - a(1) * b(0)));  // conj(a x b), spelled out
    } else {
      left[i] = CompleteBasis(left, i);
    }
  }
  ColorMatrix<double> w = ColorMatrix<double>::Zero();
  for (int i = 0; i < 3; ++i) w += left[i] * right[i].adjoint();
  return w;
}

GaugeField<double> ProjectU3(const GaugeField<double>& v) {
  GaugeField<double> w(v.lattice());
  const std::int64_t n = static_cast<std::int64_t>(v.links().size());
  // An exception may not leave an OpenMP region: each thread records its first failure, and the failure of the
  // lowest link index is rethrown after the loop (the same error for any thread count).
  std::int64_t first_failure = n;
  std::string failure;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    try {
      w.links()[i] = ProjectU3(v.links()[i]);
    } catch (const std::exception& e) {
#pragma omp critical(hisq_project_u3_failure)
      if (i < first_failure) {
        first_failure = i;
        failure = e.what();
      }
    }
  }
  if (first_failure < n) throw std::runtime_error(failure);
  return w;
}

GaugeField<double> HisqLevel1(const GaugeField<double>& u) { return ProjectU3(FatLink(u, Fat7Coefficients())); }

SmearedLinks NaiveLinks(const GaugeField<double>& u) {
  GaugeField<double> naik(u.lattice());
  for (auto& link : naik.links()) link.setZero();
  return SmearedLinks{u, naik};
}

SmearedLinks AsqtadLinks(const GaugeField<double>& u, double u0) {
  RequireU0(u0, "AsqtadLinks");
  RequireNaikExtents(u.lattice(), "AsqtadLinks");
  return SmearedLinks{FatLink(u, AsqtadCoefficients(u0)), NaikLink(u, AsqtadNaikCoefficient(u0))};
}

SmearedLinks HisqLinks(const GaugeField<double>& u, double epsilon_naik) {
  RequireEpsilon(epsilon_naik, "HisqLinks");
  RequireNaikExtents(u.lattice(), "HisqLinks");
  const GaugeField<double> w = HisqLevel1(u);
  return SmearedLinks{FatLink(w, HisqCoefficients(epsilon_naik)), NaikLink(w, HisqNaikCoefficient(epsilon_naik))};
}

}  // namespace lqcd
