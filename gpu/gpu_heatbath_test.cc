// gpu_heatbath_test.cc: the GPU sweeps (gpu_heatbath.h) give the CPU generator's links bit for bit: one
// heatbath sweep and one overrelaxation sweep from a hot start, on lattices with unequal extents, at couplings
// where each SU(2) sampler is used (beta = 0: Creutz with a = 0; 1.0: mostly Creutz; 6.0: mostly
// Kennedy-Pendleton), and a whole GenerateQuenched run (history and final field) with reunitarisation in between.
// Skips without a GPU.
#include "gpu/gpu_heatbath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include "gpu/device.h"
#include "reference/ensemble/heatbath.h"
#include "reference/ensemble/quenched_generator.h"
#include "reference/gauge_field.h"

namespace lqcd::gpu {
namespace {

class GpuHeatbathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

// "" when the fields are equal bit for bit, else where they first differ and by how much.
std::string Difference(const GaugeField<double>& a, const GaugeField<double>& b) {
  const auto& x = a.links();
  const auto& y = b.links();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::memcmp(x[i].data(), y[i].data(), sizeof(ColorMatrix<double>)) != 0) {
      double worst = 0;
      for (std::size_t k = i; k < x.size(); ++k) worst = std::fmax(worst, (x[k] - y[k]).cwiseAbs().maxCoeff());
      return "first difference at site " + std::to_string(i / 4) + ", mu " + std::to_string(i % 4) +
             "; largest difference " + std::to_string(worst);
    }
  }
  return "";
}

TEST_F(GpuHeatbathTest, OneHeatbathAndOneOverrelaxationSweepAreTheCpuSweeps) {
  for (const Lattice& lattice : {Lattice(4, 4, 4, 4), Lattice(6, 4, 2, 8)}) {
    for (double beta : {0.0, 1.0, 6.0}) {
      SCOPED_TRACE(lattice.ToString() + ", beta " + std::to_string(beta));
      GaugeField<double> cpu(lattice);
      HotStart(cpu, 11);
      GpuSweeps engine;
      engine.Load(cpu);
      GaugeField<double> gpu(lattice);
      HeatbathSweep(cpu, beta, 3, 5);
      engine.Heatbath(beta, 3, 5);
      engine.Store(gpu);
      ASSERT_EQ(Difference(cpu, gpu), "") << "heatbath";
      OverrelaxationSweep(cpu);
      engine.Overrelax();
      engine.Store(gpu);
      ASSERT_EQ(Difference(cpu, gpu), "") << "overrelaxation";
      // The sweeps did something (a silent no-op on both sides would also be "equal").
      GaugeField<double> start(lattice);
      HotStart(start, 11);
      EXPECT_NE(Difference(start, gpu), "");
    }
  }
}

TEST_F(GpuHeatbathTest, GenerateQuenchedOnTheGpuIsTheCpuRun) {
  QuenchedOptions o;
  o.extents = {4, 4, 4, 8};
  o.beta = 5.8;
  o.seed = 17;
  o.hot_start = true;
  o.thermalisation_sweeps = 3;
  o.separation_sweeps = 2;
  o.configurations = 2;
  o.overrelaxation_steps = 2;
  o.progress_every = 0;
  for (int reunitarize_every : {1, 2}) {
    o.reunitarize_every = reunitarize_every;
    std::ostream quiet(nullptr);
    GaugeField<double> cpu(Lattice(o.extents)), gpu(Lattice(o.extents));
    const QuenchedSummary a = GenerateQuenched(o, quiet, nullptr, &cpu);
    GpuSweeps engine;
    std::ostringstream log;
    const QuenchedSummary b = GenerateQuenched(o, log, nullptr, &gpu, nullptr, &engine);
    ASSERT_EQ(a.history.size(), b.history.size());
    for (std::size_t i = 0; i < a.history.size(); ++i) EXPECT_EQ(a.history[i].plaquette, b.history[i].plaquette) << i;
    EXPECT_EQ(Difference(cpu, gpu), "");
    EXPECT_NE(log.str().find("sweeps on = GPU"), std::string::npos);
  }
}

TEST_F(GpuHeatbathTest, MisuseIsRefusedBeforeAnyDeviceWork) {
  GpuSweeps engine;
  EXPECT_THROW(engine.Heatbath(6.0, 1, 0), std::logic_error);  // nothing loaded
  GaugeField<double> u(Lattice(4, 4, 4, 4));
  EXPECT_THROW(engine.Store(u), std::logic_error);
  engine.Load(u);
  EXPECT_THROW(engine.Heatbath(-1.0, 1, 0), std::invalid_argument);
  EXPECT_THROW(engine.Heatbath(std::nan(""), 1, 0), std::invalid_argument);
  EXPECT_THROW(engine.Heatbath(6.0, 1, std::uint64_t{1} << 62), std::overflow_error);
  GaugeField<double> other(Lattice(4, 4, 4, 8));
  EXPECT_THROW(engine.Store(other), std::invalid_argument);
  // A refused call left the field as loaded: unit links.
  engine.Store(u);
  EXPECT_EQ(Difference(u, GaugeField<double>(Lattice(4, 4, 4, 4))), "");
}

}  // namespace
}  // namespace lqcd::gpu
