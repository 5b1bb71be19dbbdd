// nersc_io_test: the NERSC reader on Chroma's sample file (header values reproduced), the writer in
// every variant (round trips bit-exactly), and rejection of every kind of malformed input.
#include "reference/io/nersc_io.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>

#include "reference/io/gauge_io_testing.h"
#include "reference/plaquette.h"
#include "reference/su3.h"
#include "reference/error_testing.h"

namespace lqcd {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr double kU32 = 0x1.0p-24;  // unit roundoff of float32
constexpr double kU64 = 0x1.0p-53;  // unit roundoff of float64

Bytes ReadBytes(const std::string& path) { return ReadFileBytes(path); }

std::size_t DataOffset(const Bytes& file) {
  const std::string text(file.begin(), file.begin() + std::min<std::size_t>(file.size(), 4096));
  return text.find("END_HEADER\n") + std::strlen("END_HEADER\n");
}

// Replaces the value of `key` in the header (the data after END_HEADER are kept as they are).
Bytes WithHeaderValue(const Bytes& file, const std::string& key, const std::string& value) {
  const std::size_t data = DataOffset(file);
  std::string header(file.begin(), file.begin() + data);
  const std::size_t at = header.find("\n" + key + " = ");
  EXPECT_NE(at, std::string::npos) << key;
  const std::size_t value_at = at + key.size() + 4, eol = header.find('\n', value_at);
  header.replace(value_at, eol - value_at, value);
  Bytes out(header.begin(), header.end());
  out.insert(out.end(), file.begin() + data, file.end());
  return out;
}

std::string ErrorReading(const Bytes& bytes) {
  return GaugeFileErrorOf([&] { ReadNerscFromBytes(bytes.data(), bytes.size(), "test.cfg"); });
}

// t_nersc.cfg, written by SZIN/Chroma: two rows, IEEE32BIG, 4^4, a very hot configuration.
TEST(NerscSampleTest, ChromaFileReproducesItsHeader) {
  LQCD_SAMPLE_OR_SKIP(path, "t_nersc.cfg");
  const GaugeConfiguration c = ReadNersc(path);
  const GaugeFileMetadata& m = c.metadata;
  EXPECT_EQ(m.format, GaugeFileFormat::kNersc);
  EXPECT_EQ(m.precision, FloatPrecision::kSingle);
  EXPECT_EQ(m.byte_order, ByteOrder::kBigEndian);
  EXPECT_EQ(m.stored_rows, 2);
  EXPECT_EQ(c.field.lattice(), Lattice(4, 4, 4, 4));
  EXPECT_EQ(m.HeaderValue("CHECKSUM"), "717938df");
  EXPECT_EQ(m.HeaderValue("PLAQUETTE"), "0.0382422893");
  EXPECT_EQ(m.HeaderValue("LINK_TRACE"), "0.4630322094");
  EXPECT_EQ(m.HeaderValue("CREATOR"), "SZIN");
  // CHECKSUM recomputed from the links as a writer would store them (not read from the header).
  EXPECT_EQ(m.Checksum("CHECKSUM"), 0x717938dfu);
  EXPECT_EQ(NerscChecksum(c.field, NerscStorage::kTwoRows, FloatPrecision::kSingle), 0x717938dfu);
  // The header's values against ours: the printed resolution (5e-11), plus the writer having measured
  // links before rounding to float32 (8u, see CheckHeaderValue), plus two summations of n terms (2 n u).
  const double v = c.field.lattice().volume();
  EXPECT_NEAR(MeasurePlaquette(c.field).total, 0.0382422893, 5e-11 + 8 * kU32 + 2 * 6 * v * kU64);
  EXPECT_NEAR(LinkTrace(c.field), 0.4630322094, 5e-11 + 8 * kU32 + 2 * 4 * v * kU64);
  ASSERT_EQ(m.values.size(), 2u);
  EXPECT_EQ(m.values[0].name, "PLAQUETTE");
  EXPECT_EQ(m.values[1].name, "LINK_TRACE");
  // The third rows are rebuilt in double from float32 rows: unitary to a few float32 roundings.
  EXPECT_LE(m.max_unitarity_deviation, kUnitarityUlps * kU32);
  EXPECT_GT(m.max_unitarity_deviation, 0.0);
}

// Rewriting the sample's links in its own variant reproduces its data bytes and CHECKSUM exactly.
TEST(NerscSampleTest, RewritingTheChromaFileReproducesItsDataBytes) {
  LQCD_SAMPLE_OR_SKIP(path, "t_nersc.cfg");
  const Bytes original = ReadBytes(path);
  const GaugeConfiguration c = ReadNerscFromBytes(original.data(), original.size(), path);
  NerscWriteOptions options;
  options.storage = NerscStorage::kTwoRows;
  options.precision = FloatPrecision::kSingle;
  options.byte_order = ByteOrder::kBigEndian;
  const Bytes rewritten = WriteNerscToBytes(c.field, options);
  const Bytes data_original(original.begin() + DataOffset(original), original.end());
  const Bytes data_rewritten(rewritten.begin() + DataOffset(rewritten), rewritten.end());
  EXPECT_EQ(data_rewritten, data_original);
  const GaugeConfiguration again = ReadNerscFromBytes(rewritten.data(), rewritten.size(), "rewritten");
  EXPECT_EQ(again.metadata.HeaderValue("CHECKSUM"), "717938df");
}

struct Variant {
  NerscStorage storage;
  FloatPrecision precision;
  ByteOrder order;
};

std::vector<Variant> AllVariants() {
  std::vector<Variant> all;
  for (NerscStorage s : {NerscStorage::kThreeRows, NerscStorage::kTwoRows}) {
    for (FloatPrecision p : {FloatPrecision::kDouble, FloatPrecision::kSingle}) {
      for (ByteOrder o : {ByteOrder::kBigEndian, ByteOrder::kLittleEndian}) all.push_back({s, p, o});
    }
  }
  return all;
}

std::string Name(const Variant& v) {
  return std::string(v.storage == NerscStorage::kTwoRows ? "two rows " : "3x3 ") + ToString(v.precision) + " " +
         ToString(v.order);
}

double Round(double x, FloatPrecision p) { return p == FloatPrecision::kSingle ? RoundToFloat(x) : x; }

// Every variant: write, read back, compare bit for bit with what was stored; write again: same bytes.
TEST(NerscRoundTripTest, EveryVariantReadsBackBitExactly) {
  const Lattice lattice(4, 2, 6, 4);  // unequal extents: a transposed axis would show
  const GaugeField<double> u = RandomSu3Field(lattice, 2024);
  const double v = lattice.volume();
  for (const Variant& variant : AllVariants()) {
    SCOPED_TRACE(Name(variant));
    NerscWriteOptions options;
    options.storage = variant.storage;
    options.precision = variant.precision;
    options.byte_order = variant.order;
    options.creation_date = "Thu Jan  1 00:00:00 2026 UTC";
    options.ensemble_id = "roundtrip";
    const Bytes bytes = WriteNerscToBytes(u, options);
    const GaugeConfiguration c = ReadNerscFromBytes(bytes.data(), bytes.size(), "roundtrip");
    const int rows = variant.storage == NerscStorage::kTwoRows ? 2 : 3;
    ASSERT_EQ(c.field.lattice(), lattice);
    EXPECT_EQ(c.metadata.precision, variant.precision);
    EXPECT_EQ(c.metadata.byte_order, variant.order);
    EXPECT_EQ(c.metadata.stored_rows, rows);
    for (std::size_t i = 0; i < u.links().size(); ++i) {
      const ColorMatrix<double>& in = u.links()[i];
      const ColorMatrix<double>& out = c.field.links()[i];
      for (int r = 0; r < rows; ++r) {
        for (int col = 0; col < 3; ++col) {
          ASSERT_EQ(out(r, col).real(), Round(in(r, col).real(), variant.precision)) << "link " << i;
          ASSERT_EQ(out(r, col).imag(), Round(in(r, col).imag(), variant.precision)) << "link " << i;
        }
      }
      if (rows == 2) {
        // Row 2 is rebuilt exactly as ThirdRow of the stored rows.
        const Eigen::Matrix<Complex<double>, 1, 3> expected = ThirdRow<double>(out.row(0), out.row(1));
        ASSERT_EQ(out.row(2), expected) << "link " << i;
      }
    }
    // The header the writer wrote: every key, values recomputable from what the reader returns.
    const GaugeFileMetadata& m = c.metadata;
    EXPECT_EQ(m.HeaderValue("DATATYPE"), rows == 2 ? "4D_SU3_GAUGE" : "4D_SU3_GAUGE_3x3");
    EXPECT_EQ(m.HeaderValue("DIMENSION_1"), "4");
    EXPECT_EQ(m.HeaderValue("DIMENSION_2"), "2");
    EXPECT_EQ(m.HeaderValue("DIMENSION_3"), "6");
    EXPECT_EQ(m.HeaderValue("DIMENSION_4"), "4");
    EXPECT_EQ(m.HeaderValue("BOUNDARY_4"), "PERIODIC");
    EXPECT_EQ(m.HeaderValue("ENSEMBLE_ID"), "roundtrip");
    EXPECT_EQ(m.HeaderValue("CREATION_DATE"), "Thu Jan  1 00:00:00 2026 UTC");
    EXPECT_EQ(m.Checksum("CHECKSUM"), NerscChecksum(u, variant.storage, variant.precision));
    // 15 printed decimals: half a unit of the last digit, plus two summations in double (2 n u).
    EXPECT_NEAR(std::stod(m.HeaderValue("PLAQUETTE")), MeasurePlaquette(c.field).total, 5e-16 + 2 * 6 * v * kU64);
    EXPECT_NEAR(std::stod(m.HeaderValue("LINK_TRACE")), LinkTrace(c.field), 5e-16 + 2 * 4 * v * kU64);
    // Writing what was read reproduces the file byte for byte.
    EXPECT_EQ(WriteNerscToBytes(c.field, options), bytes);
  }
}

// The CHECKSUM is a function of the stored values, not of the byte order they were written in.
TEST(NerscRoundTripTest, ChecksumDoesNotDependOnByteOrder) {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 2, 2, 4), 7);
  for (NerscStorage s : {NerscStorage::kThreeRows, NerscStorage::kTwoRows}) {
    for (FloatPrecision p : {FloatPrecision::kDouble, FloatPrecision::kSingle}) {
      NerscWriteOptions big, little;
      big.storage = little.storage = s;
      big.precision = little.precision = p;
      little.byte_order = ByteOrder::kLittleEndian;
      const Bytes a = WriteNerscToBytes(u, big), b = WriteNerscToBytes(u, little);
      EXPECT_EQ(ReadNerscFromBytes(a.data(), a.size(), "big").metadata.Checksum("CHECKSUM"),
                ReadNerscFromBytes(b.data(), b.size(), "little").metadata.Checksum("CHECKSUM"));
    }
  }
}

// A changed byte anywhere in the data changes one stored word, hence the sum: always detected.
TEST(NerscRoundTripTest, EveryChangedDataByteIsCaughtByTheChecksum) {
  NerscWriteOptions options;
  options.precision = FloatPrecision::kSingle;
  options.storage = NerscStorage::kTwoRows;
  const Bytes clean = WriteNerscToBytes(RandomSu3Field(Lattice(2, 2, 2, 2), 3), options);
  for (std::size_t i = DataOffset(clean); i < clean.size(); ++i) {
    Bytes bad = clean;
    bad[i] ^= 0x10;
    const std::string message = ErrorReading(bad);
    ASSERT_NE(message.find("CHECKSUM = "), std::string::npos) << "byte " << i << ": " << message;
  }
}

// The reader's checks run on every OpenMP thread (checksum, decoding, SU(3) check, plaquette, link trace):
// the same metadata and values to the bit with 1, 2 and 3 threads, and the first failing link (site, then mu
// order) is the one named whichever thread finds which.
TEST(NerscReaderTest, ThreadsChangeNoBitAndTheFirstBadLinkIsNamed) {
  const Bytes bytes = WriteNerscToBytes(RandomSu3Field(Lattice(4, 4, 2, 6), 8));
  GaugeField<double> bad = RandomSu3Field(Lattice(2, 2, 2, 2), 5);
  bad.Link(3, 2) *= 1.001;
  bad.Link(12, 0) *= 1.001;  // later in site order, in another thread's share
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const GaugeConfiguration one = ReadNerscFromBytes(bytes.data(), bytes.size(), "test.cfg");
  for (int threads : {2, 3}) {
    omp_set_num_threads(threads);
    const GaugeConfiguration c = ReadNerscFromBytes(bytes.data(), bytes.size(), "test.cfg");
    EXPECT_EQ(c.metadata.checksums.at(0).value, one.metadata.checksums.at(0).value) << threads;
    EXPECT_EQ(c.metadata.max_unitarity_deviation, one.metadata.max_unitarity_deviation) << threads;
    EXPECT_EQ(c.metadata.max_determinant_deviation, one.metadata.max_determinant_deviation) << threads;
    EXPECT_EQ(LinkTrace(c.field), LinkTrace(one.field)) << threads;
    EXPECT_EQ(MeasurePlaquette(c.field).total, MeasurePlaquette(one.field).total) << threads;
    EXPECT_TRUE(c.field.links() == one.field.links()) << threads;
  }
  for (int threads : {1, 2, 3, 4}) {
    omp_set_num_threads(threads);
    const std::string message = GaugeFileErrorOf([&] { WriteNerscToBytes(bad); });
    EXPECT_NE(message.find("U_z(x=1,y=1,z=0,t=0) (site 3, mu = 2) is not in SU(3)"), std::string::npos)
        << threads << " threads: " << message;
  }
  omp_set_num_threads(saved);
  // LinkTrace is <Re Tr U> / 3 summed in link order, as written out here.
  double sum = 0;
  for (const auto& link : one.field.links()) sum += link.trace().real();
  EXPECT_EQ(LinkTrace(one.field), sum / (3.0 * one.field.links().size()));
}

TEST(NerscWriterTest, RefusesLinksTheReaderWouldReject) {
  GaugeField<double> u = RandomSu3Field(Lattice(2, 2, 2, 2), 5);
  u.Link(3, 2) *= 1.001;
  const std::string message = GaugeFileErrorOf([&] { WriteNerscToBytes(u); });
  EXPECT_NE(message.find("U_z(x=1,y=1,z=0,t=0) (site 3, mu = 2) is not in SU(3)"), std::string::npos) << message;
  EXPECT_NE(message.find("refusing to write"), std::string::npos) << message;
  NerscWriteOptions newline_in_value;
  newline_in_value.ensemble_label = "two\nlines";
  EXPECT_THROW(WriteNerscToBytes(RandomSu3Field(Lattice(2, 2, 2, 2), 5), newline_in_value), std::invalid_argument);
}

TEST(NerscWriterTest, WritesAndReadsAFile) {
  const GaugeField<double> u = RandomSu3Field(Lattice(2, 4, 2, 2), 11);
  const std::string path = TempPath("nersc_io_test.cfg");
  WriteNersc(path, u);
  const GaugeConfiguration c = ReadNersc(path);
  EXPECT_EQ(c.field.links(), u.links());  // 3x3 float64 by default: exact
  EXPECT_EQ(c.metadata.source, path);
  EXPECT_NE(GaugeFileErrorOf([] { ReadNersc("/nonexistent/dir/x.cfg"); }).find("cannot open for reading"),
            std::string::npos);
}

// ---- Malformed inputs, made from the Chroma sample (and a synthetic file where noted). ----

class NerscMalformedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = SampleGaugeFile("t_nersc.cfg");
    if (path.empty()) GTEST_SKIP() << "t_nersc.cfg not available: " << SharedGaugeDataAbsentReason();
    file_ = ReadBytes(path);
  }
  Bytes file_;
};

TEST_F(NerscMalformedTest, TruncatedOrExtendedData) {
  EXPECT_CONTAINS(ErrorReading(Bytes(file_.begin(), file_.end() - 1)),
                        "NERSC data after the 586-byte header (4x4x4x4, 4D_SU3_GAUGE, IEEE32BIG): expected 49152 "
                        "bytes, found 49151");
  Bytes longer = file_;
  longer.push_back(0);
  EXPECT_CONTAINS(ErrorReading(longer), "expected 49152 bytes, found 49153");
  EXPECT_CONTAINS(ErrorReading(Bytes(file_.begin(), file_.begin() + 300)), "no END_HEADER line within the first 300 bytes");
  EXPECT_CONTAINS(ErrorReading(Bytes()), "does not start with BEGIN_HEADER");
}

TEST_F(NerscMalformedTest, FlippedDataByteIsACheckSumMismatch) {
  Bytes bad = file_;
  bad[DataOffset(file_) + 1000] ^= 0x01;
  EXPECT_CONTAINS(ErrorReading(bad), "test.cfg: NERSC header: CHECKSUM = 717938df but the data sum to");
}

TEST_F(NerscMalformedTest, ChecksumVerificationCanBeSwitchedOffButNothingElse) {
  Bytes bad = file_;
  bad[DataOffset(file_) + 3] ^= 0x01;  // last mantissa bit of the first (big-endian) float: a 1-ulp change
  EXPECT_CONTAINS(ErrorReading(bad), "CHECKSUM = 717938df but");
  GaugeReadOptions unchecked;
  unchecked.verify_checksums = false;
  const GaugeConfiguration c = ReadNerscFromBytes(bad.data(), bad.size(), "unchecked", unchecked);
  EXPECT_TRUE(c.metadata.checksums.empty());
  // The other checks still run: a changed exponent takes the link out of SU(3).
  Bytes worse = file_;
  worse[DataOffset(file_)] ^= 0x40;
  const std::string message =
      GaugeFileErrorOf([&] { ReadNerscFromBytes(worse.data(), worse.size(), "unchecked", unchecked); });
  EXPECT_NE(message.find("link U_x(x=0,y=0,z=0,t=0) (site 0, mu = 0) is not in SU(3)"), std::string::npos) << message;
}

TEST_F(NerscMalformedTest, WrongHeaderValues) {
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DATATYPE", "4D_SU3_GAUGE_2x3")),
                        "DATATYPE = '4D_SU3_GAUGE_2x3' is neither 4D_SU3_GAUGE (two rows stored) nor 4D_SU3_GAUGE_3x3");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "FLOATING_POINT", "IEEE16BIG")),
                        "FLOATING_POINT = 'IEEE16BIG' is none of");
  // Another floating-point format or storage changes the expected size.
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "FLOATING_POINT", "IEEE64BIG")), "expected 98304 bytes, found 49152");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DATATYPE", "4D_SU3_GAUGE_3x3")), "expected 73728 bytes, found 49152");
  // The same size, the wrong byte order: the checksum of the words read the other way differs.
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "FLOATING_POINT", "IEEE32LITTLE")), "CHECKSUM = 717938df but");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DIMENSION_1", "6")),
                        "(6x4x4x4, 4D_SU3_GAUGE, IEEE32BIG): expected 73728 bytes, found 49152");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DIMENSION_3", "5")), "DIMENSION_3 = 5 is odd");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DIMENSION_2", "0")),
                        "DIMENSION_2 = 0: a lattice extent must be positive");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DIMENSION_2", "four")), "DIMENSION_2 = 'four' is not an integer");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "BOUNDARY_4", "TWISTED")), "BOUNDARY_4 = 'TWISTED' is neither");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "CHECKSUM", "717938dg")), "CHECKSUM = '717938dg' is not a 32-bit hex");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "CHECKSUM", "717938de")),
                        "CHECKSUM = 717938de but the data sum to 717938df");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "PLAQUETTE", "0.0382432893")),
                        "header PLAQUETTE = 0.0382432893 but the links give 0.0382422893");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "LINK_TRACE", "0.4630332094")), "header LINK_TRACE = 0.4630332094");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "LINK_TRACE", "nan")), "LINK_TRACE = 'nan' is not a finite decimal");
}

TEST_F(NerscMalformedTest, AbsurdSizesAreRejectedBeforeAllocating) {
  // 400^4 links would need terabytes; the size check comes first and the test stays fast.
  Bytes bad = file_;
  for (const char* key : {"DIMENSION_1", "DIMENSION_2", "DIMENSION_3", "DIMENSION_4"})
    bad = WithHeaderValue(bad, key, "400");
  EXPECT_CONTAINS(ErrorReading(bad), "expected 4915200000000 bytes, found 49152");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DIMENSION_4", "99999999999")),
                        "DIMENSION_4 = 99999999999 exceeds the largest extent accepted, 512");
  EXPECT_CONTAINS(ErrorReading(WithHeaderValue(file_, "DIMENSION_4", "-4")),
                        "DIMENSION_4 = -4: a lattice extent must be positive");
}

TEST_F(NerscMalformedTest, BrokenHeaderSyntax) {
  std::string header(file_.begin(), file_.begin() + DataOffset(file_));
  const Bytes data(file_.begin() + DataOffset(file_), file_.end());
  auto with_header = [&](const std::string& h) {
    Bytes out(h.begin(), h.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
  };
  std::string missing = header;
  missing.erase(missing.find("CHECKSUM"), std::strlen("CHECKSUM = 717938df\n"));
  EXPECT_CONTAINS(ErrorReading(with_header(missing)), "NERSC header: required key CHECKSUM is missing");
  std::string duplicate = header;
  duplicate.insert(duplicate.find("DATATYPE"), "DIMENSION_1 = 4\n");
  EXPECT_CONTAINS(ErrorReading(with_header(duplicate)), "DIMENSION_1 appears twice (lines 5 and 9)");
  std::string no_equals = header;
  no_equals.insert(no_equals.find("DATATYPE"), "JUST SOME WORDS\n");
  EXPECT_CONTAINS(ErrorReading(with_header(no_equals)), "NERSC header line 5 'JUST SOME WORDS' is not KEY = value");
  std::string binary = header;
  binary[binary.find("SZIN")] = '\x01';
  EXPECT_CONTAINS(ErrorReading(with_header(binary)), "byte 0x01 at offset");
  EXPECT_CONTAINS(ErrorReading(with_header("BEGIN_HEADER\nEND_HEADER_AND_MORE\nEND_HEADER x\n")),
                        "END_HEADER must be alone on its line");
}

// A link off SU(3) with a consistent CHECKSUM: only the unitarity check can catch it, and it names the link.
TEST_F(NerscMalformedTest, NonUnitaryLinkIsNamed) {
  GaugeConfiguration c = ReadNerscFromBytes(file_.data(), file_.size(), "t_nersc.cfg");
  const Lattice& lat = c.field.lattice();
  const int site = lat.Index({1, 2, 3, 0});
  // Row 0 scaled by 1 + 1e-5: |U U^dag - 1|_00 ~ 2e-5, above 64 u(float32) = 3.8e-6; the plaquette
  // moves by ~ 6 * 2e-5 / (6 V) = 8e-8 only, inside its own tolerance.
  c.field.Link(site, 1).row(0) *= 1.00001;
  const std::size_t data = DataOffset(file_);
  Bytes bad = file_;
  const std::size_t link_bytes = StoredLinkBytes(2, FloatPrecision::kSingle);
  EncodeLink(c.field.Link(site, 1), 2, FloatPrecision::kSingle, ByteOrder::kBigEndian,
             bad.data() + data + (4 * site + 1) * link_bytes);
  bad =
      WithHeaderValue(bad, "CHECKSUM", Hex32(NerscChecksum(c.field, NerscStorage::kTwoRows, FloatPrecision::kSingle)));
  const std::string message = ErrorReading(bad);
  EXPECT_NE(message.find("link U_y(x=1,y=2,z=3,t=0) (site 57, mu = 1) is not in SU(3)"), std::string::npos) << message;
  EXPECT_NE(message.find("tolerance 3.81e-06"), std::string::npos) << message;
  // A caller who knows better may widen the tolerance.
  GaugeReadOptions loose;
  loose.unitarity_tolerance = 1e-3;
  EXPECT_NO_THROW(ReadNerscFromBytes(bad.data(), bad.size(), "loose", loose));
}

}  // namespace
}  // namespace lqcd
