// lime_io_test: the LIME reader on MILC's ILDG / SciDAC copies (same links as the MILC files, SciDAC
// checksums reproduced) and on Chroma's weak_field.lime (Chroma's plaquettes per plane and link
// reproduced), the writer (round trips bit-exactly, reproduces MILC's binary record and checksum), and
// malformed inputs.
#include "reference/io/lime_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "reference/io/gauge_io_testing.h"
#include "reference/io/milc_io.h"
#include "reference/plaquette.h"
#include "reference/error_testing.h"

namespace lqcd {
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr double kU64 = 0x1.0p-53;

std::string ErrorReading(const Bytes& bytes) {
  return GaugeFileErrorOf([&] { ReadLimeFromBytes(bytes.data(), bytes.size(), "test.lime"); });
}

LimeRecord RecordOfType(const std::vector<LimeRecord>& records, const std::string& type) {
  for (const LimeRecord& r : records) {
    if (r.type == type) return r;
  }
  throw std::out_of_range("no record " + type);
}

// Replaces the first occurrence of `from` by `to` (same length, so no record moves).
Bytes Replaced(const Bytes& file, const std::string& from, const std::string& to) {
  EXPECT_EQ(from.size(), to.size());
  const auto at = std::search(file.begin(), file.end(), from.begin(), from.end());
  EXPECT_NE(at, file.end()) << from;
  Bytes out = file;
  std::copy(to.begin(), to.end(), out.begin() + (at - file.begin()));
  return out;
}

TEST(Crc32BasedChecksumTest, ScidacChecksumOfKnownSites) {
  // Two "sites" of 9 bytes each: c_0 = CRC("123456789") = cbf43926, c_1 the same; rotated by 1 for r = 1.
  const std::string two_sites = "123456789123456789";
  const ScidacChecksum sum = ComputeScidacChecksum(reinterpret_cast<const std::uint8_t*>(two_sites.data()), 9, 2);
  const std::uint32_t c = 0xCBF43926u, rotated = (c << 1) | (c >> 31);
  EXPECT_EQ(sum.suma, c ^ rotated);
  EXPECT_EQ(sum.sumb, c ^ rotated);
}

struct LimeSample {
  const char* file;
  const char* milc_twin;  // the MILC file with the same links
  const char* binary_type;
  std::uint32_t suma, sumb;
  Coordinates extents;
};

const LimeSample kMilcCopies[] = {
    {"lat.sample.l4444.ildg", "lat.sample.l4444", "ildg-binary-data", 0x37affb9cu, 0x2fc07bbfu, {4, 4, 4, 4}},
    {"lat.sample.l4448.scidac", "lat.sample.l4448", "scidac-binary-data", 0x1c5a6cb5u, 0x5dea327au, {4, 4, 4, 8}},
};

TEST(LimeSampleTest, MilcCopiesHaveTheirChecksumsAndTheMilcLinks) {
  for (const LimeSample& s : kMilcCopies) {
    SCOPED_TRACE(s.file);
    LQCD_SAMPLE_OR_SKIP(path, s.file);
    LQCD_SAMPLE_OR_SKIP(twin_path, s.milc_twin);
    const Bytes bytes = ReadFileBytes(path);
    const GaugeConfiguration c = ReadLimeFromBytes(bytes.data(), bytes.size(), path);
    EXPECT_EQ(c.metadata.format, GaugeFileFormat::kLime);
    EXPECT_EQ(c.metadata.precision, FloatPrecision::kSingle);
    EXPECT_EQ(c.metadata.extents, s.extents);
    EXPECT_EQ(c.metadata.Checksum("suma"), s.suma);
    EXPECT_EQ(c.metadata.Checksum("sumb"), s.sumb);
    // Recomputed from the binary record alone.
    const LimeRecord binary = RecordOfType(ParseLimeRecords(bytes.data(), bytes.size(), path), s.binary_type);
    const ScidacChecksum sum =
        ComputeScidacChecksum(bytes.data() + binary.data_offset, 288, c.field.lattice().volume());
    EXPECT_EQ(sum.suma, s.suma);
    EXPECT_EQ(sum.sumb, s.sumb);
    // The same float32 links as the MILC file, bit for bit.
    EXPECT_EQ(c.field.links(), ReadMilc(twin_path).field.links());
  }
}

TEST(LimeSampleTest, RecordStructureOfTheIldgFile) {
  LQCD_SAMPLE_OR_SKIP(path, "lat.sample.l4444.ildg");
  const Bytes bytes = ReadFileBytes(path);
  const std::vector<LimeRecord> records = ParseLimeRecords(bytes.data(), bytes.size(), path);
  const std::vector<std::string> types = {"scidac-private-file-xml", "scidac-file-xml", "scidac-private-record-xml",
                                          "scidac-record-xml",       "ildg-format",     "ildg-data-lfn",
                                          "ildg-binary-data",        "scidac-checksum"};
  ASSERT_EQ(records.size(), types.size());
  for (std::size_t i = 0; i < types.size(); ++i) EXPECT_EQ(records[i].type, types[i]);
  EXPECT_TRUE(records[0].message_begin);
  EXPECT_TRUE(records[1].message_end);
  EXPECT_TRUE(records[7].message_end);
  EXPECT_EQ(records[6].data_length, 73728u);
  EXPECT_EQ(records[0].data_offset, 144u);
  const GaugeConfiguration c = ReadLimeFromBytes(bytes.data(), bytes.size(), path);
  EXPECT_EQ(c.metadata.HeaderValue("ildg-data-lfn"), "lfn://USQCD/MILC/test/lat.sample.l4444");
  EXPECT_EQ(c.metadata.HeaderValue("ildg-binary-data"), "<73728 bytes>");
}

// weak_field.lime: the numbers Chroma printed for it (double precision run).
TEST(LimeSampleTest, ChromaWeakFieldPlaquettesPerPlane) {
  LQCD_SAMPLE_OR_SKIP(path, "weak_field.lime");
  const GaugeConfiguration c = ReadLime(path);
  EXPECT_EQ(c.metadata.precision, FloatPrecision::kDouble);
  EXPECT_EQ(c.metadata.extents, (Coordinates{4, 4, 4, 8}));
  EXPECT_EQ(c.metadata.Checksum("suma"), 0xa2c41090u);
  EXPECT_EQ(c.metadata.Checksum("sumb"), 0x11193c39u);
  const PlaquetteAverages p = MeasurePlaquette(c.field);
  const double v = c.field.lattice().volume();
  // Chroma printed 15 significant digits (5e-16); both codes sum n terms <= 1 in double (2 n u).
  auto tolerance = [&](double n_terms) { return 5e-16 + 2 * n_terms * kU64; };
  EXPECT_NEAR(p.total, 0.9948041322667, 5e-14 + tolerance(6 * v));  // w_plaq printed with 13 digits
  EXPECT_NEAR(p.spatial, 0.994798578341303, tolerance(3 * v));
  EXPECT_NEAR(p.temporal, 0.994809686192097, tolerance(3 * v));
  EXPECT_NEAR(LinkTrace(c.field), 0.379449348715193, tolerance(4 * v));
  EXPECT_NEAR(p.plane[0][1], 0.994703733245322, tolerance(v));
  EXPECT_NEAR(p.plane[0][2], 0.994926957486681, tolerance(v));
  EXPECT_NEAR(p.plane[1][2], 0.994765044291907, tolerance(v));
  EXPECT_NEAR(p.plane[0][3], 0.994693320035353, tolerance(v));
  EXPECT_NEAR(p.plane[1][3], 0.99485404921873, 5e-15 + tolerance(v));  // 14 digits printed
  EXPECT_NEAR(p.plane[2][3], 0.994881689322207, tolerance(v));
  // Chroma's double-precision links are unitary to a few double roundings.
  EXPECT_LE(c.metadata.max_unitarity_deviation, kUnitarityUlps * kU64);
}

// Writing the links of MILC's .ildg copy in float32 reproduces its binary record and SciDAC checksum.
TEST(LimeSampleTest, WriterReproducesMilcsBinaryRecordAndChecksum) {
  LQCD_SAMPLE_OR_SKIP(path, "lat.sample.l4444.ildg");
  const Bytes original = ReadFileBytes(path);
  const GaugeConfiguration c = ReadLimeFromBytes(original.data(), original.size(), path);
  LimeWriteOptions options;
  options.precision = FloatPrecision::kSingle;
  const Bytes written = WriteLimeToBytes(c.field, options);
  const LimeRecord a = RecordOfType(ParseLimeRecords(original.data(), original.size(), "original"), "ildg-binary-data");
  const LimeRecord b = RecordOfType(ParseLimeRecords(written.data(), written.size(), "written"), "ildg-binary-data");
  ASSERT_EQ(a.data_length, b.data_length);
  EXPECT_TRUE(std::equal(original.begin() + a.data_offset, original.begin() + a.data_offset + a.data_length,
                         written.begin() + b.data_offset));
  const GaugeConfiguration again = ReadLimeFromBytes(written.data(), written.size(), "written");
  EXPECT_EQ(again.metadata.Checksum("suma"), 0x37affb9cu);
  EXPECT_EQ(again.metadata.Checksum("sumb"), 0x2fc07bbfu);
}

TEST(LimeRoundTripTest, BothPrecisionsReadBackBitExactly) {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 4, 6, 2), 31);
  for (FloatPrecision precision : {FloatPrecision::kDouble, FloatPrecision::kSingle}) {
    SCOPED_TRACE(ToString(precision));
    LimeWriteOptions options;
    options.precision = precision;
    options.date = "Thu Jan  1 00:00:00 2026 UTC";
    options.lfn = "lfn://lqcd/test";
    const Bytes bytes = WriteLimeToBytes(u, options);
    const GaugeConfiguration c = ReadLimeFromBytes(bytes.data(), bytes.size(), "roundtrip");
    EXPECT_EQ(c.metadata.precision, precision);
    EXPECT_EQ(c.metadata.extents, (Coordinates{2, 4, 6, 2}));
    for (std::size_t i = 0; i < u.links().size(); ++i) {
      const ColorMatrix<double> expected =
          precision == FloatPrecision::kDouble ? u.links()[i] : RoundedToFloat(u.links()[i]);
      ASSERT_EQ(c.field.links()[i], expected) << i;
    }
    EXPECT_EQ(c.metadata.HeaderValue("ildg-data-lfn"), "lfn://lqcd/test");
    EXPECT_EQ(WriteLimeToBytes(c.field, options), bytes);
    const std::vector<LimeRecord> records = ParseLimeRecords(bytes.data(), bytes.size(), "roundtrip");
    for (const LimeRecord& r : records) EXPECT_EQ(r.data_offset % 8, 0u) << r.type;
  }
}

TEST(LimeRoundTripTest, EveryChangedDataByteIsCaughtByTheScidacChecksum) {
  LimeWriteOptions options;
  options.precision = FloatPrecision::kSingle;
  const Bytes clean = WriteLimeToBytes(RandomSu3Field(Lattice(2, 2, 2, 2), 8), options);
  const LimeRecord binary = RecordOfType(ParseLimeRecords(clean.data(), clean.size(), "clean"), "ildg-binary-data");
  for (std::size_t i = binary.data_offset; i < binary.data_offset + binary.data_length; ++i) {
    Bytes bad = clean;
    bad[i] ^= 0x01;
    const std::string message = ErrorReading(bad);
    ASSERT_NE(message.find("scidac-checksum: suma sumb = "), std::string::npos) << i << ": " << message;
  }
}

TEST(LimeRoundTripTest, TwoBinaryRecordsAreRefused) {
  const Bytes one = WriteLimeToBytes(RandomSu3Field(Lattice(2, 2, 2, 2), 9));
  const LimeRecord binary = RecordOfType(ParseLimeRecords(one.data(), one.size(), "one"), "ildg-binary-data");
  Bytes two = one;  // append a copy of the binary record, header and padded data
  two.insert(two.end(), one.begin() + binary.header_offset, one.begin() + binary.data_offset + binary.data_length);
  EXPECT_CONTAINS(ErrorReading(two), "LIME: more than one binary data record ('ildg-binary-data' at offset " +
                                 std::to_string(binary.header_offset) + ", 'ildg-binary-data' at offset " +
                                 std::to_string(one.size()) + "); one configuration per file is read");
}

TEST(LimeXmlTest, ElementText) {
  EXPECT_EQ(XmlElementText("<a><lx> 4 </lx></a>", "lx"), std::optional<std::string>("4"));
  EXPECT_EQ(XmlElementText("<lxx>3</lxx><lx>4</lx>", "lx"), std::optional<std::string>("4"));
  EXPECT_EQ(XmlElementText("<f xmlns=\"q\">su3gauge</f>", "f"), std::optional<std::string>("su3gauge"));
  EXPECT_EQ(XmlElementText("<lx/>", "lx"), std::optional<std::string>(""));
  EXPECT_EQ(XmlElementText("<lx>4", "lx"), std::nullopt);
  EXPECT_EQ(XmlElementText("<ly>4</ly>", "lx"), std::nullopt);
  EXPECT_EQ(XmlElementText("<lx", "lx"), std::nullopt);
}

// ---- Malformed inputs made from the MILC .ildg copy and Chroma's weak field. ----

class LimeMalformedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = SampleGaugeFile("lat.sample.l4444.ildg");
    if (path.empty()) GTEST_SKIP() << "lat.sample.l4444.ildg not available: " << SharedGaugeDataAbsentReason();
    file_ = ReadFileBytes(path);
    records_ = ParseLimeRecords(file_.data(), file_.size(), path);
  }
  Bytes file_;
  std::vector<LimeRecord> records_;
};

TEST_F(LimeMalformedTest, TruncatedFiles) {
  EXPECT_CONTAINS(ErrorReading(
      Bytes(file_.begin(), file_.end() - 8)),
      "LIME record 7 at offset 76056 ('scidac-checksum'): declares 136 data bytes but only 128 remain");
  // Record 0 has 149 data bytes at 144..293, padded to 296: cut inside the padding.
  EXPECT_CONTAINS(ErrorReading(Bytes(file_.begin(), file_.begin() + 294)),
                        "LIME record 0 at offset 0 ('scidac-private-file-xml'): the padding to 8 bytes after its 149 "
                        "data bytes is missing");
  EXPECT_CONTAINS(ErrorReading(
      Bytes(file_.begin(), file_.begin() + 40000)),
      "LIME record 6 at offset 2184 ('ildg-binary-data'): declares 73728 data bytes but only 37672 remain");
  EXPECT_CONTAINS(ErrorReading(Bytes(file_.begin(), file_.begin() + 100)),
                        "only 100 bytes left, fewer than a 144-byte record header");
  EXPECT_CONTAINS(ErrorReading(Bytes()), "LIME: the file is empty");
}

TEST_F(LimeMalformedTest, BrokenRecordHeaders) {
  Bytes bad = file_;
  bad[records_[2].header_offset + 3] = 0xAC;
  EXPECT_CONTAINS(ErrorReading(bad), "LIME record 2 at offset " + std::to_string(records_[2].header_offset) +
                                 ": magic 0x456789ac, expected 0x456789ab");
  bad = file_;
  bad[records_[1].header_offset + 5] = 2;
  EXPECT_CONTAINS(ErrorReading(bad), "LIME record 1 at offset 296: LIME version 2, expected 1");
  bad = file_;
  std::fill(bad.begin() + records_[3].header_offset + 16, bad.begin() + records_[3].header_offset + 144, 'x');
  EXPECT_CONTAINS(ErrorReading(bad), "LIME record 3 at offset 968: the record type is not NUL-terminated in 128 bytes");
  // A huge declared length must not be trusted (nor overflow the offset arithmetic).
  bad = file_;
  StoreU64(0xFFFFFFFFFFFFFFF0ull, ByteOrder::kBigEndian, bad.data() + records_[6].header_offset + 8);
  EXPECT_CONTAINS(ErrorReading(bad), "declares 18446744073709551600 data bytes but only 74008 remain");
}

TEST_F(LimeMalformedTest, FlippedDataByteIsACheckSumMismatch) {
  Bytes bad = file_;
  bad[records_[6].data_offset + 12345] ^= 0x20;
  EXPECT_CONTAINS(ErrorReading(bad), "scidac-checksum: suma sumb = 37affb9c 2fc07bbf but the data give");
}

TEST_F(LimeMalformedTest, InconsistentMetadata) {
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<lx>4</lx>", "<lx>6</lx>")),
                        "scidac-private-file-xml: <dims> 4x4x4x4 disagrees with ildg-format 6x4x4x4");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<precision>32</precision>", "<precision>64</precision>")),
                        "scidac-private-record-xml: <precision> F disagrees with ildg-format's float64");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<precision>32</precision>", "<precision>16</precision>")),
                        "ildg-format: <precision> is 16, expected 32 or 64");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<field>su3gauge</field>", "<field>u1gauge0</field>")),
                        "ildg-format: <field> is 'u1gauge0', expected su3gauge");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<lt>4</lt>", "<lt>x</lt>")), "ildg-format <lt> = 'x' is not an integer");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<lt>4</lt>", "<xx>4</xx>")), "ildg-format: required element <lt> is missing");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<typesize>72</typesize>", "<typesize>96</typesize>")),
                        "<typesize> is 96, expected 72 for a 3x3 float32 matrix");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<datacount>4</datacount>", "<datacount>8</datacount>")),
                        "<datacount> is 8, expected 4 (links per site)");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "<suma>37affb9c</suma>", "<suma>37affbXc</suma>")),
                        "scidac-checksum <suma> = '37affbXc' is not a 32-bit hexadecimal number");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "ildg-binary-data", "ildg-binary-dat_")),
                        "LIME: no ildg-binary-data or scidac-binary-data record among 8 records");
  EXPECT_CONTAINS(ErrorReading(Replaced(file_, "ildg-data-lfn", std::string("ildg-format\0\0", 13))),
                        "LIME: record 'ildg-format' appears twice");
}

TEST_F(LimeMalformedTest, NonUnitaryLinkIsNamed) {
  // Overwrite link U_z at site 200 with 1.5 * identity and fix the checksum record, so that only the
  // unitarity check can notice.
  Bytes bad = file_;
  ColorMatrix<double> big = 1.5 * ColorMatrix<double>::Identity();
  const std::size_t link_bytes = StoredLinkBytes(3, FloatPrecision::kSingle);
  EncodeLink(big, 3, FloatPrecision::kSingle, ByteOrder::kBigEndian,
             bad.data() + records_[6].data_offset + (4 * 200 + 2) * link_bytes);
  const ScidacChecksum sum = ComputeScidacChecksum(bad.data() + records_[6].data_offset, 288, 256);
  bad = Replaced(bad, "<suma>37affb9c</suma><sumb>2fc07bbf</sumb>",
                 "<suma>" + Hex32(sum.suma) + "</suma><sumb>" + Hex32(sum.sumb) + "</sumb>");
  EXPECT_CONTAINS(ErrorReading(bad),
                        "link U_z(x=0,y=2,z=0,t=3) (site 200, mu = 2) is not in SU(3): max |(U U^dag - 1)_ij| = 1.25");
}

TEST(LimeMalformedScidacTest, WrongDimsInTheScidacOnlyFile) {
  LQCD_SAMPLE_OR_SKIP(path, "lat.sample.l4448.scidac");
  const Bytes file = ReadFileBytes(path);
  EXPECT_CONTAINS(ErrorReading(Replaced(file, "<dims>4 4 4 8 </dims>", "<dims>4 4 4 6 </dims>")),
                        "LIME 'scidac-binary-data' for 4x4x4x6 (scidac-private-file-xml) in float32 "
                        "(scidac-private-record-xml): expected 110592 bytes, found 147456");
  EXPECT_CONTAINS(ErrorReading(
      Replaced(file, "<spacetime>4</spacetime><dims>4 4 4 8 </dims>", "<spacetim>4</spacetim><dims>4 4 4 8 4 </dims>")),
      "holds more than 4 extents");
  EXPECT_CONTAINS(ErrorReading(Replaced(file, "<dims>4 4 4 8 </dims>", "<dims>4 4 4   </dims>")), "does not hold 4 extents");
  EXPECT_CONTAINS(ErrorReading(Replaced(file, "<precision>F</precision>", "<precision>Q</precision>")),
                        "scidac-private-record-xml: <precision> is 'Q', expected F or D");
  EXPECT_CONTAINS(ErrorReading(Replaced(file, "<volfmt>0</volfmt>", "<volfmt>2</volfmt>")),
                        "<volfmt> is 2, only 0 (single file) is supported");
}

TEST(LimeMalformedWeakFieldTest, FlippedLowBitOfADouble) {
  LQCD_SAMPLE_OR_SKIP(path, "weak_field.lime");
  Bytes file = ReadFileBytes(path);
  const LimeRecord binary = RecordOfType(ParseLimeRecords(file.data(), file.size(), path), "ildg-binary-data");
  // The last mantissa bit of one double: invisible to the unitarity check, caught by the CRC.
  file[binary.data_offset + 8 * 1001 + 7] ^= 0x01;
  EXPECT_CONTAINS(ErrorReading(file), "scidac-checksum: suma sumb = a2c41090 11193c39 but the data give");
}

}  // namespace
}  // namespace lqcd
