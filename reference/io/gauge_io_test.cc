// gauge_io_test: format detection from the bytes (never the name) and ReadGaugeConfiguration over every
// sample file; the same links reached through different formats agree.
#include "reference/io/gauge_io.h"

#include <gtest/gtest.h>

#include "reference/io/gauge_io_testing.h"
#include "reference/io/lime_io.h"
#include "reference/io/milc_io.h"
#include "reference/io/nersc_io.h"
#include "reference/plaquette.h"

namespace lqcd {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct Sample {
  const char* file;
  GaugeFileFormat format;
  FloatPrecision precision;
  Coordinates extents;
  std::vector<const char*> checksums;  // names of the checksums the reader must have verified
  std::size_t values;                  // header values (PLAQUETTE, LINK_TRACE) verified
};

const std::vector<Sample> kSamples = {
    {"lat.sample.l4444", GaugeFileFormat::kMilc, FloatPrecision::kSingle, {4, 4, 4, 4}, {"sum29", "sum31"}, 0},
    {"lat.sample.l4448", GaugeFileFormat::kMilc, FloatPrecision::kSingle, {4, 4, 4, 8}, {"sum29", "sum31"}, 0},
    {"lat.sample.l8888", GaugeFileFormat::kMilc, FloatPrecision::kSingle, {8, 8, 8, 8}, {"sum29", "sum31"}, 0},
    {"lat.sample.l4444.ildg", GaugeFileFormat::kLime, FloatPrecision::kSingle, {4, 4, 4, 4}, {"suma", "sumb"}, 0},
    {"lat.sample.l4448.scidac", GaugeFileFormat::kLime, FloatPrecision::kSingle, {4, 4, 4, 8}, {"suma", "sumb"}, 0},
    {"weak_field.lime", GaugeFileFormat::kLime, FloatPrecision::kDouble, {4, 4, 4, 8}, {"suma", "sumb"}, 0},
    {"t_nersc.cfg", GaugeFileFormat::kNersc, FloatPrecision::kSingle, {4, 4, 4, 4}, {"CHECKSUM"}, 2},
};

TEST(GaugeIoTest, ReadsEverySampleWithEveryCheck) {
  for (const Sample& s : kSamples) {
    SCOPED_TRACE(s.file);
    LQCD_SAMPLE_OR_SKIP(path, s.file);
    const GaugeConfiguration c = ReadGaugeConfiguration(path);
    EXPECT_EQ(c.metadata.format, s.format);
    EXPECT_EQ(c.metadata.precision, s.precision);
    EXPECT_EQ(c.metadata.extents, s.extents);
    EXPECT_EQ(c.field.lattice().extents(), s.extents);
    EXPECT_EQ(c.metadata.checksums.size(), s.checksums.size());
    for (const char* name : s.checksums) EXPECT_NO_THROW(c.metadata.Checksum(name)) << name;
    EXPECT_EQ(c.metadata.values.size(), s.values);
    EXPECT_GT(c.metadata.max_unitarity_deviation, 0.0);
    EXPECT_LE(c.metadata.max_unitarity_deviation, c.metadata.unitarity_tolerance);
    const std::string description = c.metadata.Describe();
    EXPECT_NE(description.find(ToString(s.format)), std::string::npos) << description;
    EXPECT_NE(description.find(": verified"), std::string::npos) << description;
  }
}

TEST(GaugeIoTest, MilcAndIldgCopiesAgreeThroughTheGenericReader) {
  LQCD_SAMPLE_OR_SKIP(milc, "lat.sample.l4448");
  LQCD_SAMPLE_OR_SKIP(scidac, "lat.sample.l4448.scidac");
  EXPECT_EQ(ReadGaugeConfiguration(milc).field.links(), ReadGaugeConfiguration(scidac).field.links());
}

// The name says one format, the bytes another: the bytes win.
TEST(GaugeIoTest, DetectsTheFormatFromTheBytesNotTheName) {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 2, 4, 2), 12);
  const std::string nersc_named_lime = TempPath("config.lime");
  const std::string lime_named_nersc = TempPath("config.nersc");
  const std::string milc_named_ildg = TempPath("config.ildg");
  WriteNersc(nersc_named_lime, u);
  WriteLime(lime_named_nersc, u);
  WriteFileBytes(milc_named_ildg, WriteMilcToBytes(u, ByteOrder::kBigEndian, "detect"));
  const GaugeConfiguration a = ReadGaugeConfiguration(nersc_named_lime);
  const GaugeConfiguration b = ReadGaugeConfiguration(lime_named_nersc);
  const GaugeConfiguration c = ReadGaugeConfiguration(milc_named_ildg);
  EXPECT_EQ(a.metadata.format, GaugeFileFormat::kNersc);
  EXPECT_EQ(b.metadata.format, GaugeFileFormat::kLime);
  EXPECT_EQ(c.metadata.format, GaugeFileFormat::kMilc);
  EXPECT_EQ(a.field.links(), u.links());  // float64, all rows: exact
  EXPECT_EQ(b.field.links(), u.links());
  const Bytes little = WriteMilcToBytes(u, ByteOrder::kLittleEndian, "detect");
  EXPECT_EQ(DetectGaugeFileFormat(little.data(), little.size(), "little"), GaugeFileFormat::kMilc);
}

TEST(GaugeIoTest, UnknownFormatsAreNamedByTheirFirstBytes) {
  const std::string text = "#!/bin/sh\necho not a configuration\n";
  const Bytes script(text.begin(), text.end());
  const std::string message =
      GaugeFileErrorOf([&] { ReadGaugeConfigurationFromBytes(script.data(), script.size(), "script.sh"); });
  EXPECT_NE(message.find("script.sh: not a gauge configuration in a known format: the first bytes "
                         "(23 21 2f 62 69 6e 2f 73) are neither the LIME magic"),
            std::string::npos)
      << message;
  const Bytes empty;
  EXPECT_NE(GaugeFileErrorOf([&] {
              ReadGaugeConfigurationFromBytes(empty.data(), 0, "empty");
            }).find("empty: not a gauge configuration in a known format: the first bytes (the file is empty)"),
            std::string::npos);
  const Bytes short_magic = {0x45, 0x67, 0x89};
  EXPECT_NE(
      GaugeFileErrorOf([&] { ReadGaugeConfigurationFromBytes(short_magic.data(), 3, "three"); }).find("(45 67 89)"),
      std::string::npos);
  EXPECT_NE(GaugeFileErrorOf([] {
              ReadGaugeConfiguration("/nonexistent/config");
            }).find("/nonexistent/config: cannot open for reading"),
            std::string::npos);
}

TEST(GaugeIoTest, DescribeListsWhatWasVerified) {
  LQCD_SAMPLE_OR_SKIP(path, "t_nersc.cfg");
  const std::string d = ReadGaugeConfiguration(path).metadata.Describe();
  EXPECT_NE(d.find("NERSC, float32 big-endian, two rows stored, lattice 4x4x4x4"), std::string::npos) << d;
  EXPECT_NE(d.find("checksum CHECKSUM = 717938df: verified"), std::string::npos) << d;
  EXPECT_NE(d.find("PLAQUETTE = 0.0382422893, computed 0.0382422893"), std::string::npos) << d;
}

}  // namespace
}  // namespace lqcd
