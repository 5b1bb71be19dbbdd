// gauge_io_testing.h: helpers for the configuration-file tests (testonly).
//
//   - SampleGaugeFile(name): the path of a sample file of ../shared/data/gauge as the test sees it
//     (through @shared_gauge_data, tools/shared_data.bzl), or "" when the samples are absent; then
//     SharedGaugeDataAbsentReason() says why. LQCD_SAMPLE_OR_SKIP skips the test in that case.
//     Outside Bazel, the environment variable LQCD_SHARED_GAUGE_DATA may name the directory.
//   - RandomSu3Field(lattice, seed): links drawn from Philox Gaussians (stream 4*site+mu) and
//     reunitarized; a generic, far-from-unit SU(3) field.
//   - RoundToFloat(x), RoundedToFloat(link): rounded to float32 through a volatile float.
//     Not complex<double>(float(re), float(im)) nor cast<complex<float>>().cast<complex<double>>(): GCC
//     12.2 at -O2 folds that double -> float -> double round trip away once the two parts are vectorised
//     (tree-forwprop; -O1 or -fno-tree-forwprop keep it), so those expressions return the unrounded value.
//   - TempPath(name): a path in the test's private temporary directory.
//   - GaugeFileErrorOf(f): runs f and returns the GaugeFileError message ("" if f returned); any other
//     exception escapes, so a test fails on it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/io/gauge_file_common.h"

namespace lqcd {

std::string SampleGaugeFile(const std::string& name);
std::string SharedGaugeDataAbsentReason();

GaugeField<double> RandomSu3Field(const Lattice& lattice, std::uint64_t seed);

double RoundToFloat(double x);
ColorMatrix<double> RoundedToFloat(const ColorMatrix<double>& link);

std::string TempPath(const std::string& name);

template <typename F>
std::string GaugeFileErrorOf(F&& f) {
  try {
    f();
  } catch (const GaugeFileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace lqcd

#define LQCD_SAMPLE_OR_SKIP(variable, name)                                                                  \
  const std::string variable = ::lqcd::SampleGaugeFile(name);                                                \
  if (variable.empty()) {                                                                                    \
    GTEST_SKIP() << "sample file " << (name) << " not available: " << ::lqcd::SharedGaugeDataAbsentReason(); \
  }
