// binning.h: mean and statistical error of a Monte Carlo time series with autocorrelations.
//
// The series x_1..x_N (e.g. the plaquette after each sweep) is cut into n_b consecutive bins of b
// measurements (a trailing partial bin is dropped); the bin averages are much less correlated than the raw
// measurements once b is several autocorrelation times, and
//     error = sqrt( sum_k (B_k - mean_B)^2 / (n_b (n_b - 1)) )
// is the standard error of the mean. BinnedMean(series) uses kDefaultBins = 32 bins, so the error estimate
// has a relative uncertainty of about 1 / sqrt(2 (n_b - 1)) = 13%. The naive error (b = 1) is also
// returned; tau_int = (error / naive_error)^2 / 2 estimates the integrated autocorrelation time (1/2 for
// independent measurements). Throws std::invalid_argument when there are fewer than 2 bins.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace lqcd {

struct BinnedEstimate {
  double mean = 0;         // mean of the binned part of the series
  double error = 0;        // standard error from the bin averages
  double naive_error = 0;  // standard error as if the measurements were independent
  int bin_size = 0, bins = 0;
  double TauIntegrated() const { return naive_error > 0 ? 0.5 * (error / naive_error) * (error / naive_error) : 0.5; }
};

inline constexpr int kDefaultBins = 32;

inline double StandardErrorOfMean(const std::vector<double>& x) {
  const double n = x.size();
  double mean = 0;
  for (double v : x) mean += v;
  mean /= n;
  double sum2 = 0;
  for (double v : x) sum2 += (v - mean) * (v - mean);
  return std::sqrt(sum2 / (n * (n - 1)));
}

inline BinnedEstimate BinnedMean(const std::vector<double>& series, int bin_size) {
  if (bin_size < 1) throw std::invalid_argument("BinnedMean: bin size must be >= 1");
  const int bins = static_cast<int>(series.size()) / bin_size;
  if (bins < 2) {
    throw std::invalid_argument("BinnedMean: " + std::to_string(series.size()) + " measurements make fewer than 2 bins of " +
                                std::to_string(bin_size));
  }
  std::vector<double> averages(bins, 0.0), used(series.begin(), series.begin() + bins * bin_size);
  for (int k = 0; k < bins; ++k) {
    for (int i = 0; i < bin_size; ++i) averages[k] += series[k * bin_size + i];
    averages[k] /= bin_size;
  }
  BinnedEstimate out;
  for (double a : averages) out.mean += a;
  out.mean /= bins;
  out.error = StandardErrorOfMean(averages);
  out.naive_error = StandardErrorOfMean(used);
  out.bin_size = bin_size;
  out.bins = bins;
  return out;
}

// kDefaultBins bins (bin size N / 32), or bins of 1 when N < 2 * kDefaultBins.
inline BinnedEstimate BinnedMean(const std::vector<double>& series) {
  const int bin_size = static_cast<int>(series.size()) / kDefaultBins;
  return BinnedMean(series, bin_size < 1 ? 1 : bin_size);
}

}  // namespace lqcd
