// gauge_io_testing.cc: see gauge_io_testing.h.
#include "reference/io/gauge_io_testing.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "reference/random.h"
#include "reference/su3.h"

namespace lqcd {
namespace {

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The data directory, or "" with the reason in *why.
std::string DataDir(std::string* why) {
  const std::string override_dir = Getenv("LQCD_SHARED_GAUGE_DATA");
  if (!override_dir.empty()) {
    if (Exists(override_dir + "/README.md")) return override_dir;
    *why = "LQCD_SHARED_GAUGE_DATA=" + override_dir + " has no README.md";
    return "";
  }
  const std::string runfiles = Getenv("TEST_SRCDIR");
  if (runfiles.empty()) {
    *why = "not run by bazel test (no TEST_SRCDIR) and LQCD_SHARED_GAUGE_DATA is not set";
    return "";
  }
  for (const std::string& repo : {runfiles + "/shared_gauge_data", runfiles + "/lqcd/external/shared_gauge_data"}) {
    std::ifstream status(repo + "/STATUS");
    if (!status) continue;
    std::stringstream text;
    text << status.rdbuf();
    if (Exists(repo + "/data/README.md")) return repo + "/data";
    *why = "@shared_gauge_data says " + text.str();
    return "";
  }
  *why = "no @shared_gauge_data in the runfiles (missing data dependency?)";
  return "";
}

}  // namespace

std::string SampleGaugeFile(const std::string& name) {
  std::string why;
  const std::string dir = DataDir(&why);
  if (dir.empty() || !Exists(dir + "/" + name)) return "";
  return dir + "/" + name;
}

std::string SharedGaugeDataAbsentReason() {
  std::string why;
  const std::string dir = DataDir(&why);
  return dir.empty() ? why : "the file is missing from " + dir;
}

GaugeField<double> RandomSu3Field(const Lattice& lattice, std::uint64_t seed) {
  GaugeField<double> u(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(seed, static_cast<std::uint64_t>(kDims) * site + mu);
      ColorMatrix<double> m;
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) m(i, j) = Complex<double>(rng.Gaussian(), rng.Gaussian());
      }
      u.Link(site, mu) = Reunitarize(m);
    }
  }
  return u;
}

double RoundToFloat(double x) {
  // A volatile float must be stored as a float: GCC cannot fold the round trip away (see the header).
  volatile float rounded = static_cast<float>(x);
  return rounded;
}

ColorMatrix<double> RoundedToFloat(const ColorMatrix<double>& link) {
  ColorMatrix<double> out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      out(i, j) = Complex<double>(RoundToFloat(link(i, j).real()), RoundToFloat(link(i, j).imag()));
  }
  return out;
}

std::string TempPath(const std::string& name) {
  const std::string dir = Getenv("TEST_TMPDIR");
  return (dir.empty() ? std::string("/tmp") : dir) + "/" + name;
}

}  // namespace lqcd
