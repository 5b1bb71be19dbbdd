// heatbath_math_test.cc: the GPU sweeps' transcription of the CPU update (heatbath_math.cuh), compiled for the
// host from the kernels' own source, equals the CPU functions (reference/ensemble/) BIT FOR BIT: the Philox
// uniforms, the portable logarithm, log1p, expm1 and sin/cos over their whole ranges, the SU(2) sampler on both
// sides of the Creutz / Kennedy-Pendleton switch, Eigen's 3x3 products, the staple sum on a Haar-random field,
// and whole heatbath and overrelaxation link updates. Runs everywhere (no GPU); gpu_heatbath_test checks the
// device build of the same source on a GPU.
#include "gpu/heatbath_math_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "reference/ensemble/heatbath.h"
#include "reference/ensemble/portable_math.h"
#include "reference/ensemble/su2_subgroup.h"
#include "reference/gauge_field.h"
#include "reference/random.h"
#include "reference/su3_random.h"

namespace lqcd::gpu::testing {
namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

bool SameBits(const ColorMatrix<double>& a, const double* b) {
  return std::memcmp(a.data(), b, sizeof(ColorMatrix<double>)) == 0;
}

const double* Raw(const ColorMatrix<double>& m) { return reinterpret_cast<const double*>(m.data()); }

TEST(HeatbathTranscription, PhiloxUniforms) {
  for (std::uint64_t id : {std::uint64_t{0}, std::uint64_t{12345}, (std::uint64_t{1} << 62) + 7}) {
    RandomStream reference(99, id);
    for (int k = 0; k < 40; ++k) {
      ASSERT_TRUE(SameBits(reference.Uniform(), TranscribedUniform(99, id, k))) << "stream " << id << ", draw " << k;
    }
  }
}

TEST(HeatbathTranscription, PortableFunctions) {
  RandomStream s(3, 1);
  for (int k = 0; k < 20000; ++k) {
    const double u = s.Uniform();
    const double x = std::ldexp(0.5 + u, static_cast<int>(s.Uniform() * 80) - 40);  // (0, 2^40), wide exponents
    ASSERT_TRUE(SameBits(PortableLog(x), TranscribedLog(x))) << x;
    const double z = 3 * u - 0.999;  // (-1, 2)
    ASSERT_TRUE(SameBits(PortableLog1p(z), TranscribedLog1p(z))) << z;
    const double t = 120 * u - 100;  // [-100, 20]: every branch of expm1
    ASSERT_TRUE(SameBits(PortableExpm1(t), TranscribedExpm1(t))) << t;
    double sin_ref, cos_ref, sin_tr, cos_tr;
    PortableSinCos2Pi(u, &sin_ref, &cos_ref);
    TranscribedSinCos2Pi(u, &sin_tr, &cos_tr);
    ASSERT_TRUE(SameBits(sin_ref, sin_tr) && SameBits(cos_ref, cos_tr)) << u;
  }
}

TEST(HeatbathTranscription, Su2SamplerOnBothSidesOfTheSwitch) {
  for (double a : {0.0, 0.3, 1.0, 1.999, 2.0, 3.5, 12.0, 60.0}) {
    for (std::uint64_t id = 0; id < 200; ++id) {
      RandomStream stream(17, id);
      const Su2 q = SampleHeatbathSu2(a, stream);
      double out[4];
      TranscribedSampleSu2(a, 17, id, out);
      ASSERT_TRUE(SameBits(q.alpha.real(), out[0]) && SameBits(q.alpha.imag(), out[1]) &&
                  SameBits(q.beta.real(), out[2]) && SameBits(q.beta.imag(), out[3]))
          << "a = " << a << ", stream " << id;
    }
  }
}

TEST(HeatbathTranscription, ProductsStaplesAndLinkUpdates) {
  const Lattice lattice(4, 6, 2, 4);
  GaugeField<double> u(lattice);
  HotStart(u, 5);
  const int extents[4] = {4, 6, 2, 4};
  const double* links = Raw(u.Link(0, 0));
  double out[18];
  for (int site = 0; site < lattice.volume(); site += 7) {
    for (int mu = 0; mu < 4; ++mu) {
      const ColorMatrix<double>& a = u.Link(site, mu);
      const ColorMatrix<double>& b = u.Link((site + 1) % lattice.volume(), (mu + 1) % 4);
      TranscribedProduct(Raw(a), Raw(b), false, out);
      ASSERT_TRUE(SameBits(ColorMatrix<double>(a * b), out));
      const ColorMatrix<double> a_dag = a.adjoint();
      TranscribedProduct(Raw(a_dag), Raw(b), true, out);
      ASSERT_TRUE(SameBits(ColorMatrix<double>(a.adjoint() * b), out));

      const ColorMatrix<double> staple = StapleSum(u, site, mu);
      TranscribedStapleSum(links, extents, site, mu, out);
      ASSERT_TRUE(SameBits(staple, out)) << "staple of site " << site << ", mu " << mu;

      for (double beta : {0.0, 1.0, 6.0}) {
        ColorMatrix<double> cpu = a;
        const std::uint64_t first = 1000 * site + 10 * mu;
        const std::uint64_t ids[kNumSubgroups] = {first, first + 1, first + 2};
        HeatbathLink(cpu, staple, beta, 21, ids);
        double link[18];
        std::memcpy(link, Raw(a), sizeof link);
        TranscribedHeatbathUpdate(link, Raw(staple), beta, 21, first);
        ASSERT_TRUE(SameBits(cpu, link)) << "heatbath, beta " << beta << ", site " << site << ", mu " << mu;
      }
      ColorMatrix<double> cpu = a;
      OverrelaxLink(cpu, staple);
      double link[18];
      std::memcpy(link, Raw(a), sizeof link);
      TranscribedOverrelaxUpdate(link, Raw(staple));
      ASSERT_TRUE(SameBits(cpu, link)) << "overrelaxation, site " << site << ", mu " << mu;
    }
  }
}

}  // namespace
}  // namespace lqcd::gpu::testing
