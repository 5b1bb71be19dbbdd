// milc_io.cc: MILC v5 binary gauge configurations (see milc_io.h).
#include "reference/io/milc_io.h"

#include <cstring>
#include <stdexcept>

namespace lqcd {
namespace {

std::uint32_t RotateLeft(std::uint32_t w, unsigned n) { return n == 0 ? w : (w << n) | (w >> (32 - n)); }

constexpr std::size_t kMilcSiteBytes = 4 * 18 * 4;  // 4 links x 18 float32
constexpr std::size_t kTimeStampOffset = 20, kTimeStampBytes = 64;
constexpr std::size_t kOrderOffset = 84, kSum29Offset = 88, kSum31Offset = 92;

}  // namespace

MilcChecksums ComputeMilcChecksums(const std::uint8_t* data, std::size_t n_words, ByteOrder order) {
  MilcChecksums sums;
  unsigned k29 = 0, k31 = 0;
  for (std::size_t k = 0; k < n_words; ++k) {
    const std::uint32_t w = LoadU32(data + 4 * k, order);
    sums.sum29 ^= RotateLeft(w, k29);
    sums.sum31 ^= RotateLeft(w, k31);
    if (++k29 == 29) k29 = 0;
    if (++k31 == 31) k31 = 0;
  }
  return sums;
}

GaugeConfiguration ReadMilcFromBytes(const std::uint8_t* data, std::size_t size, const std::string& source,
                                     const GaugeReadOptions& options) {
  if (size < kMilcHeaderBytes) {
    ThrowGaugeFileError(source, "MILC: the file has " + std::to_string(size) + " bytes, fewer than the " +
                                    std::to_string(kMilcHeaderBytes) + "-byte header");
  }
  ByteOrder order;
  if (LoadU32(data, ByteOrder::kLittleEndian) == static_cast<std::uint32_t>(kMilcMagic)) {
    order = ByteOrder::kLittleEndian;
  } else if (LoadU32(data, ByteOrder::kBigEndian) == static_cast<std::uint32_t>(kMilcMagic)) {
    order = ByteOrder::kBigEndian;
  } else {
    ThrowGaugeFileError(source, "MILC: magic number 0x" + Hex32(LoadU32(data, ByteOrder::kBigEndian)) +
                                    " (big-endian reading) is not 20103 = 0x00004e87 in either byte order");
  }
  GaugeFileMetadata meta;
  meta.format = GaugeFileFormat::kMilc;
  meta.source = source;
  meta.precision = FloatPrecision::kSingle;
  meta.byte_order = order;
  meta.stored_rows = 3;
  auto int_at = [&](std::size_t offset) { return static_cast<std::int32_t>(LoadU32(data + offset, order)); };

  static const char* kNames[kDims] = {"nx", "ny", "nz", "nt"};
  std::array<std::int64_t, kDims> extents{};
  std::array<std::string, kDims> names;
  meta.header.emplace_back("magic_number", std::to_string(kMilcMagic));
  for (int mu = 0; mu < kDims; ++mu) {
    extents[mu] = int_at(4 + 4 * mu);
    names[mu] = std::string("MILC header: ") + kNames[mu];
    meta.header.emplace_back(kNames[mu], std::to_string(extents[mu]));
  }
  const std::string stamp_bytes(reinterpret_cast<const char*>(data + kTimeStampOffset), kTimeStampBytes);
  meta.header.emplace_back("time_stamp", Printable(stamp_bytes.substr(0, stamp_bytes.find('\0')), kTimeStampBytes));
  const std::int32_t site_order = int_at(kOrderOffset);
  meta.header.emplace_back("order", std::to_string(site_order));
  const MilcChecksums stored{LoadU32(data + kSum29Offset, order), LoadU32(data + kSum31Offset, order)};
  meta.header.emplace_back("sum29", Hex32(stored.sum29));
  meta.header.emplace_back("sum31", Hex32(stored.sum31));

  const std::uint64_t volume = VolumeFromHeader(source, extents, names);
  if (site_order != 0 && site_order != 1) {
    ThrowGaugeFileError(source, "MILC header: order = " + std::to_string(site_order) +
                                    " is neither 0 (natural site order) nor 1 (site list attached)");
  }
  const std::uint64_t list_bytes = site_order == 1 ? 4 * volume : 0;
  CheckByteCount(source,
                 "MILC file of " + std::to_string(extents[0]) + "x" + std::to_string(extents[1]) + "x" +
                     std::to_string(extents[2]) + "x" + std::to_string(extents[3]) + " sites (96-byte header" +
                     (site_order == 1 ? ", site list" : "") + ", 288 bytes per site)",
                 kMilcHeaderBytes + list_bytes + volume * kMilcSiteBytes, size);
  const std::uint8_t* payload = data + kMilcHeaderBytes + list_bytes;
  const MilcChecksums computed = ComputeMilcChecksums(payload, volume * kMilcSiteBytes / 4, order);
  if (options.verify_checksums && (computed.sum29 != stored.sum29 || computed.sum31 != stored.sum31)) {
    ThrowGaugeFileError(source, "MILC checksums: header has sum29 sum31 = " + Hex32(stored.sum29) + " " +
                                    Hex32(stored.sum31) + " but the data give " + Hex32(computed.sum29) + " " +
                                    Hex32(computed.sum31) + ": data corrupted or header wrong");
  }
  if (options.verify_checksums) {
    meta.checksums.push_back({"sum29", computed.sum29});
    meta.checksums.push_back({"sum31", computed.sum31});
  }

  // The site of each record: natural order, or the attached list, which must be a permutation.
  std::vector<std::int64_t> site_of_record(volume);
  if (site_order == 0) {
    for (std::uint64_t r = 0; r < volume; ++r) site_of_record[r] = static_cast<std::int64_t>(r);
  } else {
    std::vector<std::int64_t> record_of_site(volume, -1);
    for (std::uint64_t r = 0; r < volume; ++r) {
      const std::uint32_t site = LoadU32(data + kMilcHeaderBytes + 4 * r, order);
      if (site >= volume) {
        ThrowGaugeFileError(source, "MILC site list: entry " + std::to_string(r) + " = " + std::to_string(site) +
                                        " is outside 0 .. " + std::to_string(volume - 1));
      }
      if (record_of_site[site] >= 0) {
        ThrowGaugeFileError(source, "MILC site list: site " + std::to_string(site) + " appears twice (entries " +
                                        std::to_string(record_of_site[site]) + " and " + std::to_string(r) + ")");
      }
      record_of_site[site] = static_cast<std::int64_t>(r);
      site_of_record[r] = site;
    }
  }

  GaugeConfiguration config{GaugeField<double>(LatticeFromHeader(source, extents, names)), GaugeFileMetadata{}};
  meta.extents = config.field.lattice().extents();
  const std::size_t link_bytes = StoredLinkBytes(3, FloatPrecision::kSingle);
  for (std::uint64_t r = 0; r < volume; ++r) {
    for (int mu = 0; mu < kDims; ++mu) {
      config.field.Link(static_cast<int>(site_of_record[r]), mu) =
          DecodeLink(payload + r * kMilcSiteBytes + mu * link_bytes, 3, FloatPrecision::kSingle, order);
    }
  }
  CheckLinksAreSU3(source, config.field, UnitarityTolerance(FloatPrecision::kSingle, options), &meta);
  config.metadata = std::move(meta);
  return config;
}

GaugeConfiguration ReadMilc(const std::string& path, const GaugeReadOptions& options) {
  const std::vector<std::uint8_t> bytes = ReadFileBytes(path);
  return ReadMilcFromBytes(bytes.data(), bytes.size(), path, options);
}

std::vector<std::uint8_t> WriteMilcToBytes(const GaugeField<double>& u, ByteOrder order, const std::string& time_stamp,
                                           const std::vector<std::uint32_t>& site_of_record) {
  const Lattice& lat = u.lattice();
  const std::size_t volume = static_cast<std::size_t>(lat.volume());
  const bool listed = !site_of_record.empty();
  if (listed) {
    std::vector<bool> seen(volume, false);
    for (std::uint32_t site : site_of_record) {
      if (site_of_record.size() != volume || site >= volume || seen[site]) {
        throw std::invalid_argument("WriteMilcToBytes: site_of_record is not a permutation of 0 .. " +
                                    std::to_string(volume - 1));
      }
      seen[site] = true;
    }
  }
  const std::size_t list_bytes = listed ? 4 * volume : 0;
  std::vector<std::uint8_t> bytes(kMilcHeaderBytes + list_bytes + volume * kMilcSiteBytes, 0);
  StoreU32(static_cast<std::uint32_t>(kMilcMagic), order, bytes.data());
  for (int mu = 0; mu < kDims; ++mu)
    StoreU32(static_cast<std::uint32_t>(lat.extent(mu)), order, bytes.data() + 4 + 4 * mu);
  std::memcpy(bytes.data() + kTimeStampOffset, time_stamp.data(), std::min(time_stamp.size(), kTimeStampBytes - 1));
  StoreU32(listed ? 1 : 0, order, bytes.data() + kOrderOffset);
  for (std::size_t r = 0; listed && r < volume; ++r)
    StoreU32(site_of_record[r], order, bytes.data() + kMilcHeaderBytes + 4 * r);
  std::uint8_t* payload = bytes.data() + kMilcHeaderBytes + list_bytes;
  const std::size_t link_bytes = StoredLinkBytes(3, FloatPrecision::kSingle);
  GaugeField<double> stored(lat);  // what the reader will see
  for (std::size_t r = 0; r < volume; ++r) {
    const int site = static_cast<int>(listed ? site_of_record[r] : r);
    for (int mu = 0; mu < kDims; ++mu) {
      std::uint8_t* p = payload + r * kMilcSiteBytes + mu * link_bytes;
      EncodeLink(u.Link(site, mu), 3, FloatPrecision::kSingle, order, p);
      stored.Link(site, mu) = DecodeLink(p, 3, FloatPrecision::kSingle, order);
    }
  }
  GaugeFileMetadata check;
  try {
    CheckLinksAreSU3("WriteMilc", stored, UnitarityTolerance(FloatPrecision::kSingle, {}), &check);
  } catch (const GaugeFileError& e) {
    throw GaugeFileError(std::string(e.what()) +
                         " (as stored in float32); refusing to write a file the reader "
                         "would reject: reunitarize first");
  }
  const MilcChecksums sums = ComputeMilcChecksums(payload, volume * kMilcSiteBytes / 4, order);
  StoreU32(sums.sum29, order, bytes.data() + kSum29Offset);
  StoreU32(sums.sum31, order, bytes.data() + kSum31Offset);
  return bytes;
}

}  // namespace lqcd
