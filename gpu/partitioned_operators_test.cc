// partitioned_operators_test: what a multi-rank solve adds on top of the partitioned Dslash, tested on one GPU
// in one process (multi_gpu_check.cc runs the same on real ranks under mpirun):
//   - blas global reductions (blas.h): with a reduction communicator, each reduction makes exactly ONE
//     SumDeterministic call carrying all its components and returns that sum; element-wise operations make
//     none; a one-rank communicator leaves every result bit for bit as it was; the scoped setting restores
//     the previous one.
//   - DeviceSchurOperator, GpuWilson and GpuWilsonSchur on a self-partitioned Dslash (every direction's faces
//     exchanged with itself through the pack / exchange / ghost path) equal the single-GPU operators bit for
//     bit (M, M^dag, M^dag M, PrepareSource, Reconstruct), and so does a whole even-odd BiCGstab solve
//     with the one-rank reduction communicator set (each step computes the same bits).
//   - GpuClover and GpuCloverSchur (both forms, both parities) on a self-partitioned Dslash equal the single-GPU
//     ones bit for bit (M, M^dag, the Schur form and its dagger, their block forms (Apply per right-hand side),
//     PrepareSource, Reconstruct), in every precision, and so does a whole even-odd clover BiCGstab solve.
//   - refusals: a partitioned Dslash of another precision or another fermion boundary; a clover term of another
//     lattice, precision or fermion boundary.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu/blas.h"
#include "gpu/comm/communicator.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/oracle_comparison.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/schur_operator.h"
#include "reference/clover.h"
#include "reference/error_testing.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/even_odd.h"

namespace lqcd::gpu {
namespace {

constexpr double kKappa = 0.12;

class PartitionedOperatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

// Two ranks holding identical partials, as seen from rank 0: the sum is partial + partial (exact: a doubling),
// and every call is recorded.
class TwinRanks final : public comm::Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  const comm::ProcessGrid& grid() const override { return grid_; }
  void Exchange(int, comm::Side, const void*, void*, std::size_t) override {
    throw std::logic_error("TwinRanks: the reductions must not exchange faces");
  }
  std::vector<double> SumDeterministic(const std::vector<double>& local) override {
    lengths.push_back(static_cast<int>(local.size()));
    return comm::SumInRankOrder({local, local});
  }
  using Communicator::SumDeterministic;
  void AllGather(const void*, std::size_t, void*) override {
    throw std::logic_error("TwinRanks: the reductions must not gather fields");
  }
  void Barrier() override {}

  std::vector<int> lengths;  // of every SumDeterministic call

 private:
  comm::ProcessGrid grid_{{1, 1, 1, 2}};
};

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }
bool SameBits(std::complex<double> a, std::complex<double> b) { return SameBits(a.real(), b.real()) && SameBits(a.imag(), b.imag()); }

// Sites whose downloaded values differ in any bit (the device basis: no arithmetic on the way).
int DifferingSites(const DeviceSpinorField& a, const DeviceSpinorField& b) {
  const SpinorField<double> da = a.Download(GammaBasis::kUkqcd), db = b.Download(GammaBasis::kUkqcd);
  if (da.sites() != db.sites()) return da.sites() + db.sites();
  int differing = 0;
  for (int i = 0; i < da.sites(); ++i) {
    if (std::memcmp(&da[i], &db[i], sizeof(da[i])) != 0) ++differing;
  }
  return differing;
}

SpinorField<double> GaussianHost(const Lattice& lattice, Subset subset, std::uint64_t seed) {
  SpinorField<double> host(lattice, subset);
  FillGaussian(host, seed);
  return host;
}

DeviceSpinorField Gaussian(const Lattice& lattice, Subset subset, Precision precision, std::uint64_t seed) {
  DeviceSpinorField f(lattice, subset, precision);
  f.Upload(GaussianHost(lattice, subset, seed));
  return f;
}

void CopyInto(DeviceSpinorField& to, const DeviceSpinorField& from) { blas::Copy(to, from); }

TEST_F(PartitionedOperatorsTest, EveryReductionSumsOverRanksInOneCall) {
  const Lattice lattice(4, 4, 4, 8);
  for (const Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    SCOPED_TRACE(ToString(precision));
    const DeviceSpinorField a = Gaussian(lattice, Subset::kEven, precision, 1);
    const DeviceSpinorField b = Gaussian(lattice, Subset::kEven, precision, 2);
    const DeviceSpinorField c = Gaussian(lattice, Subset::kEven, precision, 3);
    DeviceSpinorField y1(lattice, Subset::kEven, precision), y2(lattice, Subset::kEven, precision);
    DeviceSpinorField z1(lattice, Subset::kEven, precision), z2(lattice, Subset::kEven, precision);
    TwinRanks twins;
    ASSERT_EQ(blas::ReductionCommunicator(), nullptr);

    // Each entry: the local result (no communicator) and the global one, as doubles, and the components.
    struct Case {
      const char* name;
      std::vector<double> local, global;
      int components;
    };
    std::vector<Case> cases;
    auto run = [&](const char* name, int components, auto&& reduce) {
      CopyInto(y1, c);
      CopyInto(z1, b);
      const std::vector<double> local = reduce();
      twins.lengths.clear();
      std::vector<double> global;
      {
        const blas::ScopedReductionCommunicator scope(&twins);
        CopyInto(y1, c);
        CopyInto(z1, b);
        global = reduce();
      }
      EXPECT_EQ(blas::ReductionCommunicator(), nullptr) << name << ": the scope did not restore null";
      EXPECT_EQ(twins.lengths, std::vector<int>{components}) << name << ": one call with every component";
      cases.push_back({name, local, global, components});
    };
    run("Norm2", 1, [&] { return std::vector<double>{blas::Norm2(a)}; });
    run("ReDot", 1, [&] { return std::vector<double>{blas::ReDot(a, b)}; });
    run("Dot", 2, [&] {
      const std::complex<double> d = blas::Dot(a, b);
      return std::vector<double>{d.real(), d.imag()};
    });
    run("DotNorm", 3, [&] {
      const blas::DotAndNorm d = blas::DotNorm(a, b);
      return std::vector<double>{d.dot.real(), d.dot.imag(), d.norm2};
    });
    run("AllFinite", 1, [&] { return std::vector<double>{blas::AllFinite(a) ? 1.0 : 0.0}; });
    run("AxpyNorm", 1, [&] { return std::vector<double>{blas::AxpyNorm(0.37, a, y1)}; });
    run("CaxpyNorm", 1, [&] { return std::vector<double>{blas::CaxpyNorm({0.61, -0.23}, a, y1)}; });
    run("CgUpdate", 1, [&] { return std::vector<double>{blas::CgUpdate(0.29, a, b, z1, y1)}; });
    run("BicgstabUpdate", 3, [&] {
      const blas::NormAndDot r = blas::BicgstabUpdate({0.61, -0.23}, a, {-0.44, 0.71}, b, z1, y1, c);
      return std::vector<double>{r.norm2, r.dot.real(), r.dot.imag()};
    });
    for (const Case& k : cases) {
      ASSERT_EQ(k.local.size(), static_cast<std::size_t>(k.components)) << k.name;
      for (int i = 0; i < k.components; ++i) {
        // AllFinite returns a bool: the sum of 0-partials is 0 either way. Every other value doubles.
        const double expected = std::string(k.name) == "AllFinite" ? k.local[i] : 2 * k.local[i];
        EXPECT_TRUE(SameBits(k.global[i], expected))
            << k.name << "[" << i << "]: " << k.global[i] << " vs twice " << k.local[i];
      }
    }

    // The updates' fields are the same with and without the communicator (only the returned sums change).
    CopyInto(y1, c);
    CopyInto(z1, b);
    CopyInto(y2, c);
    CopyInto(z2, b);
    blas::CgUpdate(0.29, a, b, z1, y1);
    {
      const blas::ScopedReductionCommunicator scope(&twins);
      blas::CgUpdate(0.29, a, b, z2, y2);
    }
    EXPECT_EQ(DifferingSites(y1, y2), 0);
    EXPECT_EQ(DifferingSites(z1, z2), 0);

    // Element-wise operations never communicate.
    twins.lengths.clear();
    {
      const blas::ScopedReductionCommunicator scope(&twins);
      blas::Axpy(0.5, a, y1);
      blas::Xpay(a, 0.5, y1);
      blas::Caxpy({0.5, 0.25}, a, y1);
      blas::BicgstabDirection(a, {0.29, 0.53}, {-0.44, 0.71}, b, y1);
      blas::Copy(y2, y1);
      blas::Zero(y2);
    }
    EXPECT_TRUE(twins.lengths.empty());
  }
}

TEST_F(PartitionedOperatorsTest, NonFiniteValuesReachEveryRank) {
  const Lattice lattice(4, 4, 4, 8);
  DeviceSpinorField x(lattice, Subset::kOdd, Precision::kDouble);
  x.FillBytes(0xff);  // NaN everywhere
  TwinRanks twins;
  const blas::ScopedReductionCommunicator scope(&twins);
  EXPECT_FALSE(blas::AllFinite(x));
}

TEST_F(PartitionedOperatorsTest, OneRankLeavesEveryReductionBitForBit) {
  const Lattice lattice(4, 4, 4, 8);
  const DeviceSpinorField a = Gaussian(lattice, Subset::kFull, Precision::kDouble, 5);
  const DeviceSpinorField b = Gaussian(lattice, Subset::kFull, Precision::kDouble, 6);
  const double n = blas::Norm2(a);
  const std::complex<double> d = blas::Dot(a, b);
  comm::SingleProcessCommunicator self;
  const blas::ScopedReductionCommunicator scope(&self);
  EXPECT_TRUE(SameBits(blas::Norm2(a), n));
  EXPECT_TRUE(SameBits(blas::Dot(a, b), d));
}

// The links and a self-partitioned Dslash on them (every direction exchanged with itself).
struct SelfPartitioned {
  mutable comm::SingleProcessCommunicator self;  // the reduction communicator of a const fixture
  std::shared_ptr<const DeviceGaugeField> gauge;
  std::shared_ptr<const PartitionedWilsonDslash> dslash;
  SelfPartitioned(const GaugeField<double>& u, const GaugeLayout& layout,
                  const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime())
      : gauge(std::make_shared<const DeviceGaugeField>(u, layout)),
        dslash(std::make_shared<const PartitionedWilsonDslash>(*gauge, self, boundary,
                                                               std::array<bool, 4>{true, true, true, true})) {}
};

// Even-odd BiCGstab to 1e-12 of the full system with source b, once on the one-GPU operators (m, schur) and
// once on the self-partitioned ones (the reductions summed through part.self): the same solve bit for bit.
template <typename Full, typename Schur>
void ExpectSameSolve(const Full& m, const Schur& schur, const Full& m_part, const Schur& schur_part,
                     const SelfPartitioned& part, const SpinorField<double>& b_host) {
  solvers::SolverParams params;
  params.tolerance = 1e-12;
  params.max_iterations = 1000;
  GpuSpinorField<double> b = m.NewField(), x1 = m.NewField(), x2 = m.NewField();
  b.Upload(b_host);
  const solvers::SolveResult r1 = solvers::EvenOddBiCGstab(schur, m, x1, b, params);
  solvers::SolveResult r2;
  {
    const blas::ScopedReductionCommunicator scope(&part.self);
    r2 = solvers::EvenOddBiCGstab(schur_part, m_part, x2, b, params);
  }
  ASSERT_TRUE(r1.converged()) << r1.reason;
  EXPECT_EQ(r1.iterations, r2.iterations);
  EXPECT_TRUE(SameBits(r1.true_residual, r2.true_residual));
  EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0);
}

template <typename P>
void CheckOperators(Reconstruct reconstruct) {
  const Lattice lattice(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lattice, 71, false);
  const WilsonParams w = WilsonParams::FromKappa(kKappa);
  const auto gauge = UploadGauge<P>(u, {reconstruct, false, 0});
  const SelfPartitioned part(u, gauge->layout());
  const Precision precision = DevicePrecisionOf<P>::kValue;

  for (const Parity p : {Parity::kEven, Parity::kOdd}) {
    const DeviceSchurOperator plain(*gauge, kKappa, p), partitioned(*part.dslash, kKappa, p);
    EXPECT_EQ(partitioned.partitioned(), part.dslash.get());
    const DeviceSpinorField in = Gaussian(lattice, SubsetOf(p), precision, 80 + static_cast<int>(p));
    DeviceSpinorField expected(lattice, SubsetOf(p), precision), got(lattice, SubsetOf(p), precision);
    for (const int form : {0, 1, 2}) {
      expected.FillBytes(0xff);
      got.FillBytes(0xff);
      if (form == 2) {
        plain.ApplyNormal(expected.View(), in.View());
        partitioned.ApplyNormal(got.View(), in.View());
      } else {
        const Dagger dagger = form == 1 ? Dagger::kYes : Dagger::kNo;
        plain.Apply(expected.View(), in.View(), dagger);
        partitioned.Apply(got.View(), in.View(), dagger);
      }
      EXPECT_EQ(DifferingSites(expected, got), 0) << "DeviceSchurOperator form " << form << " parity " << ToString(p);
    }
  }

  const GpuWilson<P> m(gauge, w), m_part(part.dslash, w);
  const GpuWilsonSchur<P> schur(gauge, w), schur_part(part.dslash, w);
  EXPECT_NE(schur_part.Name(), schur.Name());  // names the grid
  GpuSpinorField<P> b = m.NewField(), x1 = m.NewField(), x2 = m.NewField();
  b.Upload(GaussianHost(lattice, Subset::kFull, 90));
  m.Apply(x1, b);
  m_part.Apply(x2, b);
  EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0) << "M";
  m.ApplyDagger(x1, b);
  m_part.ApplyDagger(x2, b);
  EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0) << "M^dag";
  GpuSpinorField<P> e1 = schur.NewField(), e2 = schur.NewField(), e3 = schur.NewField();
  schur.PrepareSource(e1, b);
  schur_part.PrepareSource(e2, b);
  EXPECT_EQ(DifferingSites(e1.device(), e2.device()), 0) << "PrepareSource";
  schur.Apply(e3, e1);
  schur_part.Apply(e2, e1);
  EXPECT_EQ(DifferingSites(e3.device(), e2.device()), 0) << "M_ee";
  schur.Reconstruct(x1, e1, b);
  schur_part.Reconstruct(x2, e1, b);
  EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0) << "Reconstruct";
}

TEST_F(PartitionedOperatorsTest, SelfPartitionedOperatorsEqualTheSingleGpuOnesBitForBit) {
  CheckOperators<double>(Reconstruct::k18);
  CheckOperators<float>(Reconstruct::k12);
  CheckOperators<solvers::Half>(Reconstruct::k12);
  CheckOperators<solvers::Half>(Reconstruct::k8);
}

TEST_F(PartitionedOperatorsTest, SelfPartitionedSolveEqualsTheSingleGpuSolveBitForBit) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lattice, 73, false);
  const WilsonParams w = WilsonParams::FromKappa(kKappa);
  const auto gauge = UploadGauge<double>(u, {});
  const SelfPartitioned part(u, gauge->layout());
  const GpuWilson<double> m(gauge, w), m_part(part.dslash, w);
  GpuWilsonSchur<double> schur(gauge, w);
  const GpuWilsonSchur<double> schur_part(part.dslash, w);
  // The one-GPU operator would fuse BiCGstab's dot products into its Dslash, which sums them in another order
  // than the partitioned operator's reductions: compare like with like.
  schur.set_fused_dot_products(false);
  ExpectSameSolve(m, schur, m_part, schur_part, part, GaussianHost(lattice, Subset::kFull, 91));
}

template <typename P>
void CheckCloverOperators(Reconstruct reconstruct) {
  SCOPED_TRACE(std::string(ToString(DevicePrecisionOf<P>::kValue)) + "/" + ToString(reconstruct));
  const Lattice lattice(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lattice, 77, false);
  const GpuCloverTerm term = UploadClover<P>(CloverField<double>(u, CloverParams::FromKappa(kKappa, 1.0)));
  const auto gauge = UploadGauge<P>(u, {reconstruct, false, 0});
  const SelfPartitioned part(u, gauge->layout());

  const GpuClover<P> m(gauge, term), m_part(part.dslash, term);
  EXPECT_NE(m_part.Name(), m.Name());  // names the grid
  GpuSpinorField<P> b = m.NewField(), x1 = m.NewField(), x2 = m.NewField();
  b.Upload(GaussianHost(lattice, Subset::kFull, 92));
  m.Apply(x1, b);
  m_part.Apply(x2, b);
  EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0) << "M";
  m.ApplyDagger(x1, b);
  m_part.ApplyDagger(x2, b);
  EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0) << "M^dag";

  for (const CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    for (const Parity p : {Parity::kEven, Parity::kOdd}) {
      const std::string name = std::string(ToString(form)) + " " + ToString(p);
      const GpuCloverSchur<P> schur(gauge, term, form, p), schur_part(part.dslash, term, form, p);
      EXPECT_EQ(schur_part.FullResidualPerSchurResidual(), schur.FullResidualPerSchurResidual()) << name;
      GpuSpinorField<P> e1 = schur.NewField(), e2 = schur.NewField(), e3 = schur.NewField();
      schur.PrepareSource(e1, b);
      schur_part.PrepareSource(e2, b);
      EXPECT_EQ(DifferingSites(e1.device(), e2.device()), 0) << "PrepareSource " << name;
      schur.Apply(e3, e1);
      schur_part.Apply(e2, e1);
      EXPECT_EQ(DifferingSites(e3.device(), e2.device()), 0) << "Apply " << name;
      schur.ApplyDagger(e3, e1);
      schur_part.ApplyDagger(e2, e1);
      EXPECT_EQ(DifferingSites(e3.device(), e2.device()), 0) << "ApplyDagger " << name;
      // The block forms on a partitioned Dslash apply the operator per right-hand side: the one-GPU Apply's bits.
      GpuSpinorField<P> f1 = schur.NewField(), f2 = schur.NewField();
      for (const Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        if (dagger == Dagger::kNo) {
          schur_part.ApplyBlock({&f1, &f2}, {&e1, &e3});
        } else {
          schur_part.ApplyDaggerBlock({&f1, &f2}, {&e1, &e3});
        }
        for (const auto& [got, in] : {std::pair{&f1, &e1}, std::pair{&f2, &e3}}) {
          if (dagger == Dagger::kNo) {
            schur.Apply(e2, *in);
          } else {
            schur.ApplyDagger(e2, *in);
          }
          EXPECT_EQ(DifferingSites(got->device(), e2.device()), 0)
              << (dagger == Dagger::kNo ? "ApplyBlock " : "ApplyDaggerBlock ") << name;
        }
      }
      x1.device().FillBytes(0xff);
      x2.device().FillBytes(0xff);
      schur.Reconstruct(x1, e1, b);
      schur_part.Reconstruct(x2, e1, b);
      EXPECT_EQ(DifferingSites(x1.device(), x2.device()), 0) << "Reconstruct " << name;
    }
  }
}

TEST_F(PartitionedOperatorsTest, SelfPartitionedCloverOperatorsEqualTheSingleGpuOnesBitForBit) {
  CheckCloverOperators<double>(Reconstruct::k18);
  CheckCloverOperators<double>(Reconstruct::k12);
  CheckCloverOperators<float>(Reconstruct::k12);
  CheckCloverOperators<solvers::Half>(Reconstruct::k12);
  CheckCloverOperators<solvers::Half>(Reconstruct::k8);
}

TEST_F(PartitionedOperatorsTest, SelfPartitionedCloverSolveEqualsTheSingleGpuSolveBitForBit) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lattice, 79, false);
  const GpuCloverTerm term = UploadClover<double>(CloverField<double>(u, CloverParams::FromKappa(kKappa, 1.0)));
  const auto gauge = UploadGauge<double>(u, {});
  const SelfPartitioned part(u, gauge->layout());
  for (const CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    SCOPED_TRACE(ToString(form));
    const GpuClover<double> m(gauge, term), m_part(part.dslash, term);
    GpuCloverSchur<double> schur(gauge, term, form);
    const GpuCloverSchur<double> schur_part(part.dslash, term, form);
    schur.set_fused_dot_products(false);  // as for Wilson above: compare like with like
    ExpectSameSolve(m, schur, m_part, schur_part, part, GaussianHost(lattice, Subset::kFull, 93));
  }
}

TEST_F(PartitionedOperatorsTest, MismatchedCloverTermIsRefused) {
  const Lattice lattice(4, 4, 4, 8), other(4, 4, 4, 4);
  const GaugeField<double> u = testing::RandomLinks(lattice, 81, false);
  const CloverParams params = CloverParams::FromKappa(kKappa, 1.0);
  const SelfPartitioned part(u, GaugeLayout{});
  const CloverSchurForm form = CloverSchurForm::kComplement;
  const GpuCloverTerm single = UploadClover<float>(CloverField<double>(u, params));
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuCloverSchur<double>(part.dslash, single, form)); }),
                  "the clover term in single");
  const GpuCloverTerm elsewhere =
      UploadClover<double>(CloverField<double>(testing::RandomLinks(other, 82, false), params));
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuClover<double>(part.dslash, elsewhere)); }),
                  "the clover term lives on 4x4x4x4 but the links on 4x4x4x8");
  CloverParams periodic = params;
  periodic.boundary = FermionBoundary::Periodic();
  const GpuCloverTerm periodic_term = UploadClover<double>(CloverField<double>(u, periodic));
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuCloverSchur<double>(part.dslash, periodic_term, form)); }),
                  "but the clover term's parameters ask for PPPP");
  EXPECT_CONTAINS(
      ErrorOf([&] { static_cast<void>(GpuClover<double>(std::shared_ptr<const PartitionedWilsonDslash>(), single)); }),
      "no partitioned Dslash");
}

TEST_F(PartitionedOperatorsTest, MismatchedPartitionedDslashIsRefused) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lattice, 75, false);
  const SelfPartitioned single(u, GaugeLayout{Precision::kSingle, Reconstruct::k18, false, 0});
  const WilsonParams w = WilsonParams::FromKappa(kKappa);
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuWilsonSchur<double>(single.dslash, w)); }), "the links are in single precision");
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuWilson<double>(single.dslash, w)); }), "the links are in single precision");
  const SelfPartitioned periodic(u, GaugeLayout{}, FermionBoundary::Periodic());
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuWilsonSchur<double>(periodic.dslash, w)); }), "fermion boundary PPPP");
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(GpuWilsonSchur<double>(std::shared_ptr<const PartitionedWilsonDslash>(), w)); }), "no partitioned Dslash");
}

}  // namespace
}  // namespace lqcd::gpu
