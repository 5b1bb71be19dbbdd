// u3_projection_test.cc: the U(3) projection that the GPU runs (u3_projection.h), built for the host and compared
// with the oracle's ProjectU3 (reference/staggered/hisq_links.h), one matrix at a time and over a field
// (hisq_smearing.h ProjectU3OnHost, with its naming of a link that cannot be projected). No GPU needed: the device
// computes the same bits as this build (hisq_smearing_test checks every link of a lattice on a GPU).
//
// Bounds (reference/staggered/u3_projection_testing.h): each projection is within ProjectionError(kappa) of the exact
// polar factor, entrywise, so the two projections are within twice that of each other; W is unitary within
// kProjectionUnitarity; W^dag V is Hermitian within the oracle test's bound.
#include "gpu/u3_projection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpu/hisq_smearing.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/random.h"
#include "reference/staggered/hisq_links.h"
#include "reference/staggered/u3_projection_testing.h"
#include "reference/su3.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

using u3_testing::Finite;
using u3_testing::GaussianMatrix;
using u3_testing::Kappa;
using u3_testing::MaxDiff;
using u3_testing::ProjectionError;
using u3_testing::WithSingularValues;
constexpr double kProduct = u3_testing::kProjectionProduct;
constexpr double kUnitarity = u3_testing::kProjectionUnitarity;

// The GPU's projection of v on the host (ColorMatrix<double> is 9 complex doubles, column-major: the layout of
// u3_projection.h).
ColorMatrix<double> Projected(const ColorMatrix<double>& v, u3::Status* status = nullptr) {
  ColorMatrix<double> w = ColorMatrix<double>::Zero();
  const u3::Status s = u3::ProjectU3(reinterpret_cast<const double*>(v.data()), reinterpret_cast<double*>(w.data()));
  if (status != nullptr) *status = s;
  EXPECT_EQ(s, u3::Status::kOk);
  return w;
}

TEST(U3Projection, CutoffIsTheOracles) { EXPECT_EQ(u3::kCutoff, kU3ProjectionCutoff); }

TEST(U3Projection, RandomMatricesGiveTheOraclesPolarFactor) {
  RandomStream rng(61, 0);
  for (int trial = 0; trial < 500; ++trial) {
    const ColorMatrix<double> v = GaussianMatrix(rng);
    const ColorMatrix<double> w = Projected(v);
    ASSERT_TRUE(Finite(w));
    EXPECT_LE(UnitarityDeviation(w), kUnitarity);
    EXPECT_LE((w.adjoint() * w - ColorMatrix<double>::Identity()).cwiseAbs().maxCoeff(), kUnitarity);
    const ColorMatrix<double> p = w.adjoint() * v;  // Hermitian positive for the polar factor
    const double v_norm = v.cwiseAbs().maxCoeff() * 3;
    EXPECT_LE((p - p.adjoint()).cwiseAbs().maxCoeff(), 2 * (ProjectionError(Kappa(v)) + kProduct) * v_norm);
    EXPECT_LE(MaxDiff(w, ProjectU3(v)), 2 * ProjectionError(Kappa(v))) << "trial " << trial;
  }
}

TEST(U3Projection, UnitaryInputIsReturnedUnchanged) {
  RandomStream rng(62, 0);
  for (int trial = 0; trial < 50; ++trial) {
    const ColorMatrix<double> v = HaarRandomSU3<double>(rng);
    EXPECT_LE(MaxDiff(Projected(v), v), ProjectionError(1) + kUnitarity);
  }
  // V^dag V = 1 exactly: no rotation, and every step is exact.
  EXPECT_EQ(Projected(ColorMatrix<double>::Identity()), ColorMatrix<double>(ColorMatrix<double>::Identity()));
}

TEST(U3Projection, NearlyDegenerateAndNearlySingularInputs) {
  RandomStream rng(63, 0);
  for (int trial = 0; trial < 20; ++trial) {
    const ColorMatrix<double> a = HaarRandomSU3<double>(rng), b = HaarRandomSU3<double>(rng);
    const ColorMatrix<double> ab = a * b;
    // Nearly degenerate singular values (kappa = 2): W = A B.
    const double input_error = 2 * kProduct * 2;  // building V: 2 products of norm-2 operands
    EXPECT_LE(MaxDiff(Projected(WithSingularValues(a, 1, 1 + 1e-9, 2, b)), ab),
              ProjectionError(2) + 3 * 2 * input_error + kProduct);
    // Nearly singular, sigma_min^2 = 1e-8 above the cutoff: still A B.
    const ColorMatrix<double> w_small = Projected(WithSingularValues(a, 1, 0.5, 1e-4, b));
    EXPECT_LE(UnitarityDeviation(w_small), kUnitarity);
    EXPECT_LE(MaxDiff(w_small, ab), ProjectionError(1e4) + 3 * 2 * 2 * kProduct / 1e-4 + kProduct);
    // Below the cutoff, rank 2, rank 1 and zero: W finite and unitary, and A B on the range directions.
    for (double tiny : {1e-10, 0.0}) {
      const ColorMatrix<double> w = Projected(WithSingularValues(a, 1, 0.5, tiny, b));
      ASSERT_TRUE(Finite(w));
      EXPECT_LE(UnitarityDeviation(w), kUnitarity);
      for (int k = 0; k < 2; ++k) {
        EXPECT_LE((w * b.adjoint().col(k) - a.col(k)).cwiseAbs().maxCoeff(),
                  ProjectionError(2) + 3 * 2 * 2 * kProduct / 0.5 + kProduct);
      }
    }
    const ColorMatrix<double> w_rank1 = Projected(WithSingularValues(a, 1, 0, 0, b));
    ASSERT_TRUE(Finite(w_rank1));
    EXPECT_LE(UnitarityDeviation(w_rank1), kUnitarity);
    EXPECT_LE((w_rank1 * b.adjoint().col(0) - a.col(0)).cwiseAbs().maxCoeff(), ProjectionError(1) + 4 * kProduct);
  }
  // V = 0: the completed basis is the standard one, W = 1.
  EXPECT_EQ(Projected(ColorMatrix<double>::Zero()), ColorMatrix<double>(ColorMatrix<double>::Identity()));
}

// The input it is built for: the first HISQ level's fat7 links, here of a hot (Haar-random) configuration, the
// roughest case. Every link within twice the oracle's bound of the oracle's projection.
TEST(U3Projection, Fat7LinksOfAHotConfigurationGiveTheOraclesLinks) {
  const Lattice lat{4, 4, 4, 4};
  GaugeField<double> u(lat);
  RandomStream rng(64, 0);
  for (auto& link : u.links()) link = HaarRandomSU3<double>(rng);
  const GaugeField<double> v = FatLink(u, Fat7Coefficients());
  const GaugeField<double> want = ProjectU3(v);
  const GaugeField<double> got = ProjectU3OnHost(v);  // every link, on every core
  double worst = 0;  // the largest difference as a fraction of its link's bound
  for (std::size_t i = 0; i < v.links().size(); ++i) {
    EXPECT_EQ(got.links()[i], Projected(v.links()[i])) << "link " << i;
    const double bound = 2 * ProjectionError(Kappa(v.links()[i]));
    const double diff = MaxDiff(got.links()[i], want.links()[i]);
    EXPECT_LE(diff, bound) << "link " << i;
    worst = std::max(worst, diff / bound);
  }
  RecordProperty("largest_difference_over_bound", std::to_string(worst));
}

TEST(U3Projection, OnAFieldTheFirstLinkThatCannotBeProjectedIsNamed) {
  const Lattice lat{4, 4, 4, 4};
  GaugeField<double> v(lat);
  RandomStream rng(65, 0);
  for (auto& link : v.links()) link = GaussianMatrix(rng);
  v.Link(37, 2)(0, 1) = Complex<double>(std::numeric_limits<double>::quiet_NaN(), 0);
  v.Link(42, 0)(2, 2) = Complex<double>(std::numeric_limits<double>::infinity(), 0);  // a later link
  try {
    ProjectU3OnHost(v);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("site 37, direction 2 failed: an entry is not finite"), std::string::npos)
        << e.what();
  }
}

TEST(U3Projection, NonFiniteEntriesAreReportedAndLeaveTheOutputAlone) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    ColorMatrix<double> v = ColorMatrix<double>::Identity();
    v(1, 2) = Complex<double>(0, bad);
    ColorMatrix<double> w = ColorMatrix<double>::Constant(Complex<double>(7, 7));
    EXPECT_EQ(u3::ProjectU3(reinterpret_cast<const double*>(v.data()), reinterpret_cast<double*>(w.data())),
              u3::Status::kNotFinite);
    EXPECT_EQ(w, ColorMatrix<double>::Constant(Complex<double>(7, 7)));
  }
}

}  // namespace
}  // namespace lqcd::gpu
