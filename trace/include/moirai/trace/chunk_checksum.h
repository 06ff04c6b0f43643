// The checksum a chunk header carries, shared by the recorder, the builder and the reader.
#pragma once

#include <cstddef>
#include <cstdint>

#include "moirai/trace/format.h"

namespace moirai::trace {

// chunk_checksum is the CRC-32 (zlib) a chunk of a trace of format `major`.`minor` carries: from
// format 3.3 of the header's type, core and payload size (bytes 4 to 11) and then the payload, so
// that a flipped core id fails the check; before 3.3 of the payload alone.
std::uint32_t chunk_checksum(const ChunkHeader& header, const void* payload, std::size_t size,
                             std::uint16_t major = kVersionMajor, std::uint16_t minor = kVersionMinor);

// chunk_header is the header of a chunk of this format that carries `payload` (`size` bytes) as
// the `sequence`-th chunk of its file, its checksum filled in: what every writer of traces puts
// before a payload.
ChunkHeader chunk_header(ChunkType type, std::uint16_t core, const void* payload, std::size_t size,
                         std::uint64_t sequence);

}  // namespace moirai::trace
