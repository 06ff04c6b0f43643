// The checksum a chunk header carries, shared by the recorder, the builder and the reader.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>

#include "moirai/trace/format.h"

namespace moirai::trace::detail {

static_assert(offsetof(ChunkHeader, type) == 4 && offsetof(ChunkHeader, payload_crc32) == 12,
              "type, core and payload_size are the header's bytes 4 to 11");

// chunk_checksum is the CRC-32 (zlib) a chunk of a trace of format `major`.`minor` carries: from
// format 3.3 of the header's type, core and payload size (bytes 4 to 11) and then the payload, so
// that a flipped core id fails the check; before 3.3 of the payload alone.
inline std::uint32_t chunk_checksum(const ChunkHeader& header, const void* payload, std::size_t size,
                                    std::uint16_t major = kVersionMajor, std::uint16_t minor = kVersionMinor) {
  uLong crc = crc32(0L, Z_NULL, 0);
  if (major > 3 || (major == 3 && minor >= kChunkHeaderChecksumMinor)) {
    crc = crc32(crc, reinterpret_cast<const Bytef*>(&header.type), 8);
  }
  return static_cast<std::uint32_t>(crc32(crc, static_cast<const Bytef*>(payload), static_cast<uInt>(size)));
}

}  // namespace moirai::trace::detail
