#include "moirai/trace/chunk_checksum.h"

#include <zlib.h>

namespace moirai::trace {

static_assert(offsetof(ChunkHeader, type) == 4 && offsetof(ChunkHeader, payload_crc32) == 12,
              "type, core and payload_size are the header's bytes 4 to 11");

std::uint32_t chunk_checksum(const ChunkHeader& header, const void* payload, std::size_t size,
                             std::uint16_t major, std::uint16_t minor) {
  uLong crc = crc32(0L, Z_NULL, 0);
  if (major > 3 || (major == 3 && minor >= kChunkHeaderChecksumMinor)) {
    crc = crc32(crc, reinterpret_cast<const Bytef*>(&header.type), 8);
  }
  return static_cast<std::uint32_t>(crc32(crc, static_cast<const Bytef*>(payload), static_cast<uInt>(size)));
}

ChunkHeader chunk_header(ChunkType type, std::uint16_t core, const void* payload, std::size_t size,
                         std::uint64_t sequence) {
  ChunkHeader header{kChunkMagic, static_cast<std::uint16_t>(type), core, static_cast<std::uint32_t>(size), 0,
                     sequence};
  header.payload_crc32 = chunk_checksum(header, payload, size);
  return header;
}

}  // namespace moirai::trace
