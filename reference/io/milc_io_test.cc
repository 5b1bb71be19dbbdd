// milc_io_test: the MILC v5 reader on MILC's three sample files (checksums, plaquettes and the NERSC-style
// numbers MILC printed are reproduced), site-list order, the writer, and malformed inputs.
#include "reference/io/milc_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "reference/io/gauge_io_testing.h"
#include "reference/io/nersc_io.h"
#include "reference/plaquette.h"
#include "reference/random.h"
#include "reference/error_testing.h"

namespace lqcd {
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr double kU64 = 0x1.0p-53;

// Two codes summing the same n terms of magnitude <= m in double (different order) agree to 2 n m u;
// each term (a product of 4 links, traced) carries a few u more, negligible next to n.
double SummationTolerance(double n_terms, double magnitude) { return 2 * n_terms * magnitude * kU64; }

std::string ErrorReading(const Bytes& bytes) {
  return GaugeFileErrorOf([&] { ReadMilcFromBytes(bytes.data(), bytes.size(), "test.milc"); });
}

struct MilcSample {
  const char* file;
  Coordinates extents;
  ByteOrder order;
  std::uint32_t sum29, sum31;
  double ss, st;  // MILC's CHECK PLAQ: <Re Tr U_p> over spatial / space-time planes, NOT divided by 3
};

// The numbers MILC printed (../shared/data/gauge/README.md).
const MilcSample kSamples[] = {
    {"lat.sample.l4444",
     {4, 4, 4, 4},
     ByteOrder::kLittleEndian,
     0x2352c05u,
     0xd137321du,
     1.7946751560761729,
     1.7744257976067317},
    {"lat.sample.l4448",
     {4, 4, 4, 8},
     ByteOrder::kBigEndian,
     0x13f3b413u,
     0x161f7ddeu,
     1.7237482807974562,
     1.6905860654166089},
    {"lat.sample.l8888",
     {8, 8, 8, 8},
     ByteOrder::kLittleEndian,
     0x4f9d000eu,
     0x8d72f72eu,
     1.7790021544584596,
     1.7823592881385857},
};

TEST(MilcSampleTest, ReproducesMilcChecksumsAndPlaquettes) {
  for (const MilcSample& s : kSamples) {
    SCOPED_TRACE(s.file);
    LQCD_SAMPLE_OR_SKIP(path, s.file);
    const Bytes bytes = ReadFileBytes(path);
    const GaugeConfiguration c = ReadMilcFromBytes(bytes.data(), bytes.size(), path);
    const GaugeFileMetadata& m = c.metadata;
    EXPECT_EQ(m.format, GaugeFileFormat::kMilc);
    EXPECT_EQ(m.byte_order, s.order);
    EXPECT_EQ(m.precision, FloatPrecision::kSingle);
    EXPECT_EQ(m.extents, s.extents);
    EXPECT_EQ(m.HeaderValue("order"), "0");
    EXPECT_EQ(m.Checksum("sum29"), s.sum29);
    EXPECT_EQ(m.Checksum("sum31"), s.sum31);
    // Recomputed from the data, independently of the header.
    const MilcChecksums sums =
        ComputeMilcChecksums(bytes.data() + kMilcHeaderBytes, 72 * c.field.lattice().volume(), s.order);
    EXPECT_EQ(sums.sum29, s.sum29);
    EXPECT_EQ(sums.sum31, s.sum31);
    const PlaquetteAverages p = MeasurePlaquette(c.field);
    const double v = c.field.lattice().volume();
    EXPECT_NEAR(3 * p.spatial, s.ss, SummationTolerance(3 * v, 3));
    EXPECT_NEAR(3 * p.temporal, s.st, SummationTolerance(3 * v, 3));
    EXPECT_LE(m.max_unitarity_deviation, kUnitarityUlps * 0x1.0p-24);
  }
}

// lat.sample.l4444: MILC's NERSC-style link trace and the NERSC checksum of the first two rows.
TEST(MilcSampleTest, L4444NerscLinkTraceAndChecksum) {
  LQCD_SAMPLE_OR_SKIP(path, "lat.sample.l4444");
  const GaugeConfiguration c = ReadMilc(path);
  EXPECT_NEAR(LinkTrace(c.field), 0.64675873741896339, SummationTolerance(4 * 256, 1));
  EXPECT_EQ(NerscChecksum(c.field, NerscStorage::kTwoRows, FloatPrecision::kSingle), 0xffc4bb26u);
}

// lat.sample.l8888 and its .info file: the values MILC wrote there.
TEST(MilcSampleTest, L8888InfoFileValues) {
  LQCD_SAMPLE_OR_SKIP(path, "lat.sample.l8888");
  LQCD_SAMPLE_OR_SKIP(info_path, "lat.sample.l8888.info");
  const GaugeConfiguration c = ReadMilc(path);
  std::ifstream info_file(info_path);
  std::stringstream info;
  info << info_file.rdbuf();
  // The .info file's checksums are the ones the reader verified.
  EXPECT_NE(info.str().find("checksums = \"" + Hex32(c.metadata.Checksum("sum29")) + " " +
                            Hex32(c.metadata.Checksum("sum31")) + "\""),
            std::string::npos);
  EXPECT_EQ(NerscChecksum(c.field, NerscStorage::kTwoRows, FloatPrecision::kSingle), 1245429571u);
  // Printed with 6 decimals: half a unit of the last digit.
  EXPECT_NEAR(LinkTrace(c.field), -0.000646, 5e-7);
  const PlaquetteAverages p = MeasurePlaquette(c.field);
  EXPECT_NEAR(3 * p.spatial, 1.779002, 5e-7);
  EXPECT_NEAR(3 * p.temporal, 1.782359, 5e-7);
}

// Writing the links read from a sample, with its time stamp and byte order, reproduces the file.
TEST(MilcSampleTest, WriterReproducesTheSampleFilesByteForByte) {
  for (const MilcSample& s : kSamples) {
    SCOPED_TRACE(s.file);
    LQCD_SAMPLE_OR_SKIP(path, s.file);
    const Bytes original = ReadFileBytes(path);
    const GaugeConfiguration c = ReadMilcFromBytes(original.data(), original.size(), path);
    EXPECT_EQ(WriteMilcToBytes(c.field, s.order, c.metadata.HeaderValue("time_stamp")), original);
  }
}

TEST(MilcRoundTripTest, BothByteOrdersReadBackExactly) {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 4, 2, 6), 99);
  for (ByteOrder order : {ByteOrder::kBigEndian, ByteOrder::kLittleEndian}) {
    const Bytes bytes = WriteMilcToBytes(u, order, "Thu Jan  1 00:00:00 2026");
    const GaugeConfiguration c = ReadMilcFromBytes(bytes.data(), bytes.size(), "roundtrip");
    EXPECT_EQ(c.metadata.byte_order, order);
    EXPECT_EQ(c.metadata.HeaderValue("time_stamp"), "Thu Jan  1 00:00:00 2026");
    for (std::size_t i = 0; i < u.links().size(); ++i) {
      ASSERT_EQ(c.field.links()[i], RoundedToFloat(u.links()[i])) << i;
    }
  }
}

// A file in "node dump" order, assembled by hand from a natural-order one: a site list after the header
// and the records in that order; the checksums run over the data in file order.
Bytes WithSiteList(const Bytes& natural, const std::vector<std::uint32_t>& site_of_record, ByteOrder order) {
  const std::size_t volume = site_of_record.size();
  Bytes out(natural.begin(), natural.begin() + kMilcHeaderBytes);
  StoreU32(1, order, out.data() + 84);
  out.resize(kMilcHeaderBytes + 4 * volume);
  for (std::size_t r = 0; r < volume; ++r) StoreU32(site_of_record[r], order, out.data() + kMilcHeaderBytes + 4 * r);
  for (std::size_t r = 0; r < volume; ++r) {
    const auto record = natural.begin() + kMilcHeaderBytes + 288 * site_of_record[r];
    out.insert(out.end(), record, record + 288);
  }
  const MilcChecksums sums = ComputeMilcChecksums(out.data() + kMilcHeaderBytes + 4 * volume, 72 * volume, order);
  StoreU32(sums.sum29, order, out.data() + 88);
  StoreU32(sums.sum31, order, out.data() + 92);
  return out;
}

TEST(MilcSiteListTest, PermutedRecordsGiveTheSameField) {
  const Lattice lattice(2, 2, 4, 2);
  const GaugeField<double> u = RandomSu3Field(lattice, 17);
  for (ByteOrder order : {ByteOrder::kBigEndian, ByteOrder::kLittleEndian}) {
    const Bytes natural = WriteMilcToBytes(u, order, "natural");
    // A Philox-shuffled permutation (Fisher-Yates).
    std::vector<std::uint32_t> site_of_record(lattice.volume());
    for (std::size_t i = 0; i < site_of_record.size(); ++i) site_of_record[i] = static_cast<std::uint32_t>(i);
    RandomStream rng(5, 0);
    for (std::size_t i = site_of_record.size() - 1; i > 0; --i)
      std::swap(site_of_record[i], site_of_record[rng.NextWord() % (i + 1)]);
    const Bytes listed = WithSiteList(natural, site_of_record, order);
    // The writer's site-list mode writes the same bytes.
    EXPECT_EQ(WriteMilcToBytes(u, order, "natural", site_of_record), listed);
    const GaugeConfiguration c = ReadMilcFromBytes(listed.data(), listed.size(), "site list");
    EXPECT_EQ(c.metadata.HeaderValue("order"), "1");
    const GaugeConfiguration n = ReadMilcFromBytes(natural.data(), natural.size(), "natural");
    EXPECT_EQ(c.field.links(), n.field.links());

    std::vector<std::uint32_t> duplicate = site_of_record;
    duplicate[5] = duplicate[9];
    EXPECT_CONTAINS(ErrorReading(WithSiteList(natural, duplicate, order)),
                          "MILC site list: site " + std::to_string(duplicate[9]) + " appears twice (entries 5 and 9)");
    Bytes out_of_range = listed;
    StoreU32(32, order, out_of_range.data() + kMilcHeaderBytes + 4 * 3);
    EXPECT_CONTAINS(ErrorReading(out_of_range), "MILC site list: entry 3 = 32 is outside 0 .. 31");
  }
}

TEST(MilcWriterTest, RejectsASiteOrderThatIsNotAPermutation) {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 2, 2, 2), 1);
  std::vector<std::uint32_t> sites(16);
  for (std::uint32_t i = 0; i < 16; ++i) sites[i] = i;
  sites[3] = 4;
  EXPECT_THROW(WriteMilcToBytes(u, ByteOrder::kBigEndian, "", sites), std::invalid_argument);
  sites.resize(15);
  EXPECT_THROW(WriteMilcToBytes(u, ByteOrder::kBigEndian, "", sites), std::invalid_argument);
}

TEST(MilcRoundTripTest, EveryChangedDataByteIsCaughtByTheChecksums) {
  const Bytes clean = WriteMilcToBytes(RandomSu3Field(Lattice(2, 2, 2, 2), 4), ByteOrder::kBigEndian, "");
  for (std::size_t i = kMilcHeaderBytes; i < clean.size(); ++i) {
    Bytes bad = clean;
    bad[i] ^= 0x80;
    const std::string message = ErrorReading(bad);
    ASSERT_NE(message.find("MILC checksums: header has sum29 sum31"), std::string::npos) << i << ": " << message;
  }
}

TEST(MilcWriterTest, RefusesLinksTheReaderWouldReject) {
  GaugeField<double> u = RandomSu3Field(Lattice(2, 2, 2, 2), 5);
  u.Link(0, 3) *= Complex<double>(0, 1);  // unitary, but det = -i: not in SU(3)
  const std::string message = GaugeFileErrorOf([&] { WriteMilcToBytes(u, ByteOrder::kBigEndian, ""); });
  EXPECT_NE(message.find("U_t(x=0,y=0,z=0,t=0) (site 0, mu = 3) is not in SU(3)"), std::string::npos) << message;
}

// ---- Malformed inputs made from lat.sample.l4444 (little-endian). ----

class MilcMalformedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = SampleGaugeFile("lat.sample.l4444");
    if (path.empty()) GTEST_SKIP() << "lat.sample.l4444 not available: " << SharedGaugeDataAbsentReason();
    file_ = ReadFileBytes(path);
  }
  Bytes WithInt(std::size_t offset, std::uint32_t value) const {
    Bytes out = file_;
    StoreU32(value, ByteOrder::kLittleEndian, out.data() + offset);
    return out;
  }
  Bytes file_;
};

TEST_F(MilcMalformedTest, TruncatedFiles) {
  EXPECT_CONTAINS(ErrorReading(Bytes(file_.begin(), file_.end() - 4)),
                        "test.milc: MILC file of 4x4x4x4 sites (96-byte header, 288 bytes per site): expected 73824 "
                        "bytes, found 73820");
  EXPECT_CONTAINS(ErrorReading(Bytes(file_.begin(), file_.begin() + 50)),
                        "MILC: the file has 50 bytes, fewer than the 96-byte header");
}

TEST_F(MilcMalformedTest, BadMagic) {
  EXPECT_CONTAINS(ErrorReading(WithInt(0, 20104)), "MILC: magic number 0x884e0000 (big-endian reading) is not 20103");
}

TEST_F(MilcMalformedTest, WrongDimensionsAndOrder) {
  EXPECT_CONTAINS(ErrorReading(
      WithInt(16, 8)),
      "MILC file of 4x4x4x8 sites (96-byte header, 288 bytes per site): expected 147552 bytes, found 73824");
  EXPECT_CONTAINS(ErrorReading(WithInt(12, 3)), "MILC header: nz = 3 is odd");
  EXPECT_CONTAINS(ErrorReading(WithInt(4, 0xFFFFFFFCu)), "MILC header: nx = -4: a lattice extent must be positive");
  EXPECT_CONTAINS(ErrorReading(WithInt(84, 2)), "MILC header: order = 2 is neither 0 (natural site order) nor 1");
  // order = 1 promises a site list of 4V bytes that is not there.
  EXPECT_CONTAINS(ErrorReading(WithInt(84, 1)),
                        "(96-byte header, site list, 288 bytes per site): expected 74848 bytes, found 73824");
}

TEST_F(MilcMalformedTest, AbsurdSizesAreRejectedBeforeAllocating) {
  Bytes bad = file_;
  for (int mu = 0; mu < 4; ++mu) StoreU32(512, ByteOrder::kLittleEndian, bad.data() + 4 + 4 * mu);
  EXPECT_CONTAINS(ErrorReading(bad), "expected 19791209300064 bytes, found 73824");
}

TEST_F(MilcMalformedTest, FlippedBytesAndWrongChecksums) {
  Bytes bad = file_;
  bad[5000] ^= 0x04;
  EXPECT_CONTAINS(ErrorReading(bad), "MILC checksums: header has sum29 sum31 = 02352c05 d137321d but the data give");
  EXPECT_CONTAINS(ErrorReading(WithInt(92, 0xd137321c)),
                        "header has sum29 sum31 = 02352c05 d137321c but the data give 02352c05 d137321d");
}

TEST_F(MilcMalformedTest, NonUnitaryLinkIsNamed) {
  GaugeConfiguration c = ReadMilcFromBytes(file_.data(), file_.size(), "l4444");
  const int site = c.field.lattice().Index({3, 0, 2, 1});
  c.field.Link(site, 0)(1, 1) += 1e-4;  // |U U^dag - 1|_11 ~ 2e-4 > 64 u(float32) = 3.8e-6
  // Store the edited link and make the checksums consistent: only the unitarity check is left.
  Bytes bad = file_;
  EncodeLink(c.field.Link(site, 0), 3, FloatPrecision::kSingle, ByteOrder::kLittleEndian,
             bad.data() + kMilcHeaderBytes + 72 * (4 * site + 0));
  const MilcChecksums sums = ComputeMilcChecksums(bad.data() + kMilcHeaderBytes, 72 * 256, ByteOrder::kLittleEndian);
  StoreU32(sums.sum29, ByteOrder::kLittleEndian, bad.data() + 88);
  StoreU32(sums.sum31, ByteOrder::kLittleEndian, bad.data() + 92);
  EXPECT_CONTAINS(ErrorReading(bad), "link U_x(x=3,y=0,z=2,t=1) (site 99, mu = 0) is not in SU(3)");
}

}  // namespace
}  // namespace lqcd
