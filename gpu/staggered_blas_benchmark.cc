// staggered_blas_benchmark: the bandwidth of the staggered solvers' vector operations (staggered_blas.h) on one
// parity of a lattice, in double, single and half precision, against the copy bandwidth measured in the same run.
//
//   staggered_blas_benchmark [--lattice=64x64x64x16] [--precisions=double,single,half] [--repetitions=50]
//
// Byte model: every field an operation reads is read once and every field it writes is written once, at
// ColourVectorBytes per site (48 double, 24 single, 16 half: 12 bytes of levels and a 4-byte norm): Norm2 reads
// 1 field, ReDot 2, Axpy / AxpyNorm / Xpay read 2 and write 1, CgSolutionDirection reads 3 and writes 2, Convert
// reads the double field and writes one of the row's precision. Time: the median of --repetitions calls between
// CUDA events after a warm-up call. A reduction's time includes its host read, except in the "deferred" rows,
// which queue it as the solvers do and never read it alone (its kernel's time). The "CG iteration" rows are the
// vector work of one iteration of the reliable-update CG per right-hand side (ReDot, AxpyNorm, Axpy, Xpay:
// solvers/reliable_update.h), timed as one sequence: first with every reduction read by the host before the next
// kernel is queued, then as the solvers run it (alpha computed on the device, |r|^2 read once, after the x update
// is queued). Measures and prints; asserts nothing.
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_colour_vector_field.h"
#include "gpu/staggered_blas.h"
#include "reference/cli/command_line.h"
#include "reference/staggered/colour_vector_field.h"

namespace lqcd::gpu {
namespace {

namespace sb = staggered_blas;

struct Row {
  const char* name;
  int fields_read, fields_written;
  std::function<void()> run;
};

void Table(const Lattice& lattice, Precision precision, int repetitions, double copy_gbs) {
  std::vector<DeviceColourVectorField> f;
  ColourVectorField<double> host(lattice, Subset::kEven);
  for (int k = 0; k < 4; ++k) {
    FillGaussian(host, 40 + k);
    f.emplace_back(lattice, Parity::kEven, precision);
    f.back().Upload(host);
  }
  DeviceColourVectorField source(lattice, Parity::kEven, Precision::kDouble);
  source.Upload(host);
  const double site_bytes = ColourVectorBytes(precision, 1);
  const double double_bytes = ColourVectorBytes(Precision::kDouble, 1);
  // Small coefficients keep the fields of order one however often the updates are repeated.
  const std::vector<Row> rows = {
      {"Norm2", 1, 0, [&] { (void)sb::Norm2(f[0]); }},
      {"ReDot", 2, 0, [&] { (void)sb::ReDot(f[0], f[1]); }},
      {"Axpy", 2, 1, [&] { sb::Axpy(1e-3, f[0], f[1]); }},
      {"AxpyNorm", 2, 1, [&] { (void)sb::AxpyNorm(-1e-3, f[0], f[1]); }},
      {"Xpay", 2, 1, [&] { sb::Xpay(f[0], 0.5, f[1]); }},
      {"CgSolutionDirection", 3, 2, [&] { sb::CgSolutionDirection(1e-3, 0.5, f[0], f[1], f[2]); }},
      {"Convert", 1, 1, [&] { sb::Convert(f[3], source); }},
      {"CG iteration", 8, 3,
       [&] {
         (void)sb::ReDot(f[0], f[1]);             // (p, q)
         (void)sb::AxpyNorm(-1e-3, f[1], f[2]);  // r -= alpha q, |r|^2
         sb::Axpy(1e-3, f[0], f[3]);             // x += alpha p
         sb::Xpay(f[2], 0.5, f[0]);              // p = r + beta p
       }},
      // As the solvers run them (deferred scalars): a reduction queued and not read is its kernel's time.
      {"Norm2 deferred", 1, 0, [&] { (void)sb::Norm2Deferred(f[0]); }},
      {"ReDot deferred", 2, 0, [&] { (void)sb::ReDotDeferred(f[0], f[1]); }},
      {"AxpyNorm deferred", 2, 1, [&] { (void)sb::AxpyNormDeferred(-1e-3, f[0], f[1]); }},
      {"CG iteration deferred", 8, 3,
       [&] {
         const DeviceReal pAp = sb::ReDotDeferred(f[0], f[1]);               // (p, q)
         const DeviceReal alpha = (pAp / pAp) * 1e-3;                        // computed on the device
         const DeviceReal rr = sb::AxpyNormDeferred(-alpha, f[1], f[2]);     // r -= alpha q, |r|^2
         sb::Axpy(alpha, f[0], f[3]);                                        // x += alpha p
         (void)rr.Host();                                                    // the host's test
         sb::Xpay(f[2], 0.5, f[0]);                                          // p = r + beta p
       }},
  };
  for (const Row& row : rows) {
    const double us = 1e3 * MedianMilliseconds(repetitions, row.run);
    double bytes = (row.fields_read + row.fields_written) * site_bytes * lattice.half_volume();
    if (std::string(row.name) == "Convert") bytes = (double_bytes + site_bytes) * lattice.half_volume();
    std::printf("%-7s %-22s %10.1f %9.0f %7.1f%%\n", ToString(precision), row.name, us, bytes / us / 1e3,
                100 * bytes / us / 1e3 / copy_gbs);
  }
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  using namespace lqcd;
  using namespace lqcd::gpu;
  return command_line::RunMain("staggered_blas_benchmark", [&] {
    Coordinates extents{64, 64, 64, 16};
    std::string precision_list = "double,single,half";
    int repetitions = 50;
    command_line::FlagSet flags("staggered_blas_benchmark",
                                "Bandwidth of the staggered vector operations (gpu/staggered_blas.h) on one parity, "
                                "against the copy bandwidth of the same run. Measures; asserts nothing.");
    flags.Extents("lattice", &extents, "lattice");
    flags.String("precisions", &precision_list, "LIST", "comma-separated precisions: double, single, half");
    flags.Int("repetitions", &repetitions, 1, 100000, "timed calls per operation (the median is reported)");
    if (!flags.Parse(argc, argv, std::cout)) return 0;
    std::vector<Precision> precisions;
    for (const std::string& p : command_line::SplitList("precisions", precision_list)) {
      precisions.push_back(ParsePrecision(p));
    }
    const Lattice lattice(extents);
    if (const std::string why = NoDeviceReason(); !why.empty()) {
      std::printf("staggered_blas_benchmark: %s\n", why.c_str());
      return 1;
    }
    const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 20);
    std::printf("staggered_blas_benchmark on %s\n", Describe(CurrentDeviceInfo()).c_str());
    std::printf("lattice %s, one parity (%d sites), median of %d; copy bandwidth %.0f GB/s (read + write)\n",
                lattice.ToString().c_str(), lattice.half_volume(), repetitions, copy.kernel_gbs);
    std::printf("%-7s %-22s %10s %9s %8s\n", "prec", "operation", "time us", "GB/s", "of copy");
    for (const Precision p : precisions) Table(lattice, p, repetitions, copy.kernel_gbs);
    return 0;
  });
}
