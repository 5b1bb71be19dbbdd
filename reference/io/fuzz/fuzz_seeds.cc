// fuzz_seeds.cc: see fuzz_seeds.h.
#include "reference/io/fuzz/fuzz_seeds.h"

#include "reference/io/gauge_io_testing.h"
#include "reference/io/lime_io.h"
#include "reference/io/milc_io.h"
#include "reference/io/nersc_io.h"

namespace lqcd {

std::vector<FuzzSeed> SyntheticFuzzSeeds() {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 2, 2, 2), 20260101);
  std::vector<FuzzSeed> seeds;
  for (NerscStorage storage : {NerscStorage::kThreeRows, NerscStorage::kTwoRows}) {
    for (FloatPrecision precision : {FloatPrecision::kSingle, FloatPrecision::kDouble}) {
      for (ByteOrder order : {ByteOrder::kBigEndian, ByteOrder::kLittleEndian}) {
        NerscWriteOptions options;
        options.storage = storage;
        options.precision = precision;
        options.byte_order = order;
        options.creation_date = "Thu Jan  1 00:00:00 2026 UTC";
        seeds.push_back({std::string("nersc_") + (storage == NerscStorage::kTwoRows ? "3x2_" : "3x3_") +
                             ToString(precision) + "_" + (order == ByteOrder::kBigEndian ? "big" : "little") + ".cfg",
                         WriteNerscToBytes(u, options)});
      }
    }
  }
  for (FloatPrecision precision : {FloatPrecision::kSingle, FloatPrecision::kDouble}) {
    LimeWriteOptions options;
    options.precision = precision;
    options.date = "Thu Jan  1 00:00:00 2026 UTC";
    options.lfn = "lfn://lqcd/fuzz";
    seeds.push_back({std::string("lime_") + ToString(precision) + ".lime", WriteLimeToBytes(u, options)});
  }
  seeds.push_back({"milc_big.milc", WriteMilcToBytes(u, ByteOrder::kBigEndian, "Thu Jan  1 00:00:00 2026")});
  seeds.push_back({"milc_little.milc", WriteMilcToBytes(u, ByteOrder::kLittleEndian, "Thu Jan  1 00:00:00 2026")});
  std::vector<std::uint32_t> reversed(u.lattice().volume());
  for (std::size_t r = 0; r < reversed.size(); ++r) reversed[r] = static_cast<std::uint32_t>(reversed.size() - 1 - r);
  seeds.push_back({"milc_site_list.milc", WriteMilcToBytes(u, ByteOrder::kBigEndian, "site list", reversed)});
  return seeds;
}

}  // namespace lqcd
