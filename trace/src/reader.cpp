// Reads the layout of docs/trace-format.md (moirai/trace/format.h) and checks all of it.
#include "moirai/trace/reader.h"

#include <zlib.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <unordered_set>

#include "format_history.h"
#include "moirai/trace/chunk_checksum.h"
#include "moirai/trace/number_text.h"

namespace moirai::trace {

TraceError::TraceError(std::uint64_t offset, const std::string& problem)
    : std::runtime_error("at byte " + std::to_string(offset) + ": " + problem), offset_(offset) {}

std::string Trace::construct_name(std::uint32_t kind) const {
  return kind < constructs.size() ? constructs[kind] : "construct " + std::to_string(kind);
}

std::vector<std::uint32_t> Trace::constructs_of(ConstructRole role) const {
  std::vector<std::uint32_t> kinds;
  for (std::uint32_t kind = 0; kind < construct_roles.size(); ++kind) {
    if (construct_roles[kind] == role) kinds.push_back(kind);
  }
  return kinds;
}

const MessageRecord* Trace::message(std::uint64_t match) const {
  const auto found = messages.find(match);
  return found == messages.end() ? nullptr : &found->second;
}

std::string Trace::communicator_name(std::uint32_t id) const {
  const auto found = communicators.find(id);
  return found == communicators.end() ? "communicator " + std::to_string(id) : found->second.name;
}

std::string Trace::site_name(std::uint32_t site) const {
  auto found = sites.find(site);
  return found == sites.end() ? "?" : found->second.file + ":" + std::to_string(found->second.line);
}

double Trace::ms_from_start(std::uint64_t ticks) const {
  std::uint64_t start = 0;
  auto found = metadata.find("start_ticks");
  if (found != metadata.end()) start = std::strtoull(found->second.c_str(), nullptr, 10);
  if (ticks < start || !(clock_hz > 0)) return 0;
  return static_cast<double>(ticks - start) * 1e3 / clock_hz;
}

std::string Trace::interruption() const {
  if (interrupted.empty()) return "";
  const std::string at = number_text(ms_from_start(complete && end.end_time != 0 ? end.end_time : latest), "%.3f ms");
  auto reason = metadata.find("end_reason");
  return interrupted + " at " + at + (reason == metadata.end() ? "" : ": " + reason->second);
}

namespace {

template <class T>
T load(const unsigned char* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, by)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// A Source serves the bytes of a trace front to back: bytes(at, count) gives the `count` bytes
// at `at`, or nullptr where the input ends before them; exhausted(at) says whether anything is
// left at `at`; length() is how many bytes it has served or holds.

// MemorySource serves a trace already in memory.
class MemorySource {
 public:
  MemorySource(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t length() const { return size_; }
  bool exhausted(std::size_t at) const { return at >= size_; }
  const unsigned char* bytes(std::size_t at, std::size_t count) const {
    return at <= size_ && count <= size_ - at ? data_ + at : nullptr;
  }

 private:
  const unsigned char* data_;
  std::size_t size_;
};

// FileSource reads a regular trace file front to back, one piece at a time, so reading never
// holds the whole file in memory (a million-unit trace is over 100 MB). A length field is checked
// against the file's size before anything is allocated for it.
class FileSource {
 public:
  FileSource(std::FILE* file, std::size_t size) : file_(file), size_(size) {}
  std::uint64_t length() const { return size_; }
  bool exhausted(std::size_t at) const { return at >= size_; }
  const unsigned char* bytes(std::size_t at, std::size_t count) {
    if (at > size_ || count > size_ - at) return nullptr;
    if (at != position_ && std::fseek(file_, static_cast<long>(at), SEEK_SET) != 0) return nullptr;
    if (buffer_.size() < count) buffer_.resize(count);
    const std::size_t got = count ? std::fread(buffer_.data(), 1, count, file_) : 0;
    position_ = at + got;
    return got == count ? buffer_.data() : nullptr;  // short: the file shrank while read
  }

 private:
  std::FILE* file_;
  std::size_t size_;
  std::size_t position_ = 0;
  std::vector<unsigned char> buffer_;
};

// StreamSource reads a pipe or a device, whose size is not known, front to back and at most
// `limit` bytes of it: a piece is read into memory only as far as the input holds it, so an endless
// input (/dev/zero, a runaway pipe) is refused at the limit instead of exhausting memory.
class StreamSource {
 public:
  StreamSource(std::FILE* file, std::uint64_t limit, std::string name) : file_(file), limit_(limit), name_(std::move(name)) {}
  std::uint64_t length() const { return position_; }
  bool exhausted(std::size_t at) {
    if (at != position_) return true;
    const int next = std::getc(file_);
    if (next == EOF) return true;
    std::ungetc(next, file_);
    return false;
  }
  const unsigned char* bytes(std::size_t at, std::size_t count) {
    if (at != position_) return nullptr;  // the parser reads front to back
    if (count > limit_ - std::min<std::uint64_t>(limit_, at)) {
      throw TraceError(at, name_ + " holds more than " + std::to_string(limit_) +
                               " bytes, the trace size limit (MOIRAI_TRACE_MAX_BYTES)");
    }
    buffer_.clear();
    constexpr std::size_t kPiece = 1u << 20;
    while (buffer_.size() < count) {
      const std::size_t had = buffer_.size();
      buffer_.resize(had + std::min(kPiece, count - had));
      const std::size_t got = std::fread(buffer_.data() + had, 1, buffer_.size() - had, file_);
      position_ += got;
      if (had + got < buffer_.size()) return nullptr;  // the input ended inside these bytes
    }
    return buffer_.data();
  }

 private:
  std::FILE* file_;
  std::uint64_t limit_;
  std::string name_;
  std::uint64_t position_ = 0;
  std::vector<unsigned char> buffer_;
};

constexpr std::size_t kNoUnit = static_cast<std::size_t>(-1);

// kMaxTime is the latest time a record may hold: the views compute with signed 64-bit ticks.
constexpr std::uint64_t kMaxTime = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

// CoreClock is how far a core's records have got, per kind of span that must not overlap its
// own kind: the life-line's spans (units, idle, paused), writer waits, chores.
struct CoreClock {
  std::uint64_t begin = 0;  // the latest span's begin
  std::uint64_t end = 0;    // ... and end
};

// ChunkKey tells chunks apart: two with the same key hold the same bytes (to 2^-64).
using ChunkKey = std::tuple<std::uint16_t, std::uint16_t, std::uint32_t, std::uint32_t, std::uint32_t>;
struct ChunkKeyHash {
  std::size_t operator()(const ChunkKey& key) const noexcept {
    const auto [type, core, size, crc, adler] = key;
    return std::hash<std::uint64_t>{}((std::uint64_t{crc} << 32 | adler) ^ (std::uint64_t{size} << 20) ^
                                      (std::uint64_t{type} << 16) ^ core);
  }
};

// UnitIdSet is the set of unit ids read so far, as 64-id words of bits: the runtime numbers units
// in order, so a core's next unit is nearly always in a word just used, and a million units cost
// a few thousand words rather than a million scattered entries.
class UnitIdSet {
 public:
  // insert adds `id`; false when it was there already.
  bool insert(std::uint64_t id) {
    const std::uint64_t word = id >> 6, bit = std::uint64_t{1} << (id & 63);
    if (last_ == nullptr || word != last_word_) {
      last_ = &words_[word];  // a map's elements stay where they are as it grows
      last_word_ = word;
    }
    if ((*last_ & bit) != 0) return false;
    *last_ |= bit;
    return true;
  }

 private:
  std::unordered_map<std::uint64_t, std::uint64_t> words_;
  std::uint64_t last_word_ = 0;
  std::uint64_t* last_ = nullptr;
};

template <class Source>
class Parser {
 public:
  Parser(Source& source, std::string name) : source_(source), name_(std::move(name)) {}

  Trace run() {
    try {
      return read();
    } catch (const std::bad_alloc&) {
      throw TraceOutOfMemory(at_, "out of memory reading " + name_ + " (after " + std::to_string(trace_.units.size()) + " units)");
    }
  }

 private:
  Trace read() {
    const unsigned char* head = source_.bytes(0, sizeof(FileHeader));
    if (head == nullptr) {
      if (source_.length() == 0) throw TraceError(0, name_ + " is empty");
      throw TraceError(0, "file too short for a trace header (" + std::to_string(source_.length()) + " bytes)");
    }
    const auto header = load<FileHeader>(head);
    if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) throw TraceError(0, "not a Moirai trace (wrong magic)");
    if (header.version_major < kOldestVersionMajor || header.version_major > kVersionMajor) {
      throw TraceError(8, "trace format version " + std::to_string(header.version_major) + "." +
                              std::to_string(header.version_minor) + " is not supported (this reader reads versions " +
                              std::to_string(kOldestVersionMajor) + " to " + std::to_string(kVersionMajor) + ")");
    }
    trace_.version = {header.version_major, header.version_minor};
    std::size_t at = sizeof(FileHeader);
    while (!source_.exhausted(at)) {
      at_ = at;
      const unsigned char* chunk_bytes = source_.bytes(at, sizeof(ChunkHeader));
      if (chunk_bytes == nullptr) {
        cut(at, "a chunk header is incomplete");
        break;
      }
      const auto chunk = load<ChunkHeader>(chunk_bytes);
      if (chunk.magic != kChunkMagic) throw TraceError(at, "bad chunk magic");
      if (chunk.payload_size > kMaxChunkPayload) {
        throw TraceError(at, "chunk payload of " + std::to_string(chunk.payload_size) + " bytes exceeds the limit");
      }
      if (chunk.sequence != trace_.chunks) {
        throw TraceError(at, "chunk sequence " + std::to_string(chunk.sequence) + " where " +
                                 std::to_string(trace_.chunks) + " was expected");
      }
      const std::size_t payload_at = at + sizeof(ChunkHeader);
      const unsigned char* payload = source_.bytes(payload_at, chunk.payload_size);
      if (payload == nullptr) {
        cut(at, "chunk " + std::to_string(chunk.sequence) + " is incomplete");
        break;
      }
#if !defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
      // (A fuzzer cannot forge checksums; without this check it reaches the record parsing.)
      const auto crc = chunk_checksum(chunk, payload, chunk.payload_size, header.version_major, header.version_minor);
      if (crc != chunk.payload_crc32) throw TraceError(at, "chunk " + std::to_string(chunk.sequence) + " fails its checksum");
#endif
      if (trace_.complete) throw TraceError(at, "data after the end chunk");
      chunk_ = chunk;
      chunk_at_ = at;
      if (!repeats_earlier_chunk(chunk, payload)) parse_chunk(chunk, payload, payload_at);
      ++trace_.chunks;
      at = payload_at + chunk.payload_size;
    }
    at_ = at;
    trace_.bytes = source_.length();
    if (!trace_.complete && trace_.cut.empty()) {
      auto stopped = trace_.metadata.find("recording_stopped");
      if (stopped != trace_.metadata.end()) {
        cut(at, "the recorder stopped writing: " + stopped->second);
      } else {
        cut(at, "the end chunk is missing");
      }
    }
    if (!trace_.cut.empty()) {
      // Said first, as a time: how much of the run the trace still holds is what a reader asks.
      trace_.cut = "partial trace, ends at " + number_text(trace_.ms_from_start(trace_.latest), "%.3f ms") +
                   (trace_.latest == 0 ? " (it holds no records)" : "") + ": " + trace_.cut;
    }
    trace_.constructs.resize(std::max(trace_.constructs.size(), trace_.construct_roles.size()));
    trace_.construct_roles.resize(trace_.constructs.size(), ConstructRole::other);
    trace_.construct_colours.resize(trace_.constructs.size());
    detail::apply_format_history(trace_);
    // Each core's records arrive in its chunks, and the chunks of different cores in the order
    // the writer took them, which host timing decides (the recorder also flushes by time): in
    // time order, a trace reads the same however its chunks were interleaved, so every view of a
    // simulated run is the same each time.
    std::stable_sort(trace_.constraints.begin(), trace_.constraints.end(), [](const ConstraintRecord& a, const ConstraintRecord& b) {
      return std::tie(a.time, a.from, a.to, a.construct, a.match) < std::tie(b.time, b.from, b.to, b.construct, b.match);
    });
    auto interrupted = trace_.metadata.find("interrupted");
    if (interrupted != trace_.metadata.end() && interrupted->second != "no") trace_.interrupted = interrupted->second;
    check_messages(at);
    // A complete trace defines every lock domain its handoffs name (a cut one may have lost the
    // definitions chunk, and its views name such a domain by its id).
    if (trace_.complete) {
      for (const Trace::LockHandoff& handoff : trace_.lock_handoffs) {
        if (handoff.record.domain != 0 && !trace_.lock_domains.contains(handoff.record.domain)) {
          throw TraceError(at, "a lock handoff on core " + std::to_string(handoff.core) + " names lock domain " +
                                   std::to_string(handoff.record.domain) + ", which the trace never defines");
        }
      }
    }
    return std::move(trace_);
  }

  void cut(std::size_t at, const std::string& why) {
    trace_.cut = "trace cut at byte " + std::to_string(at) + " (" + why + "): read " +
                 std::to_string(trace_.chunks) + " complete chunks; the run did not finish writing it";
  }

  // chunk_name names the chunk being read, for a message: "chunk 12 (events of core 1)".
  std::string chunk_name() const {
    std::string name = "chunk " + std::to_string(chunk_.sequence);
    if (chunk_.type == static_cast<std::uint16_t>(ChunkType::events)) name += " (events of core " + std::to_string(chunk_.core) + ")";
    if (chunk_.type == static_cast<std::uint16_t>(ChunkType::definitions)) name += " (definitions)";
    if (chunk_.type == static_cast<std::uint16_t>(ChunkType::end)) name += " (end)";
    return name;
  }

  // refuse is a broken invariant no part of the trace can be left out for: an error naming the
  // chunk and the byte.
  [[noreturn]] void refuse(std::size_t here, const std::string& problem) const {
    throw TraceError(here, chunk_name() + ": " + problem);
  }

  // leave_out records a part of an otherwise sound trace that the reader leaves out, with its
  // warning; a trace with more such parts than kMaxLeftOut is not sound and is refused.
  void leave_out(std::size_t here, std::uint64_t Integrity::*count, const std::string& problem) {
    Integrity& integrity = trace_.integrity;
    if (integrity.warnings.size() >= kMaxLeftOut) {
      refuse(here, problem + "; more than " + std::to_string(kMaxLeftOut) + " parts of the trace are inconsistent (the first: " +
                       integrity.warnings.front() + ")");
    }
    ++(integrity.*count);
    integrity.warnings.push_back("at byte " + std::to_string(here) + " (" + chunk_name() + "): " + problem + "; left out");
  }

  // repeats_earlier_chunk says whether an events or definitions chunk holds the same bytes as an
  // earlier one of the same type and core: a chunk written twice, whose repeat is left out (it
  // would define every VP twice, or put every record of the chunk twice on its core).
  bool repeats_earlier_chunk(const ChunkHeader& chunk, const unsigned char* payload) {
    if (chunk.type != static_cast<std::uint16_t>(ChunkType::events) &&
        chunk.type != static_cast<std::uint16_t>(ChunkType::definitions)) {
      return false;
    }
    const std::uint32_t crc = chunk.payload_crc32;  // checked above (in a fuzzing build, taken as it is)
    const auto adler = static_cast<std::uint32_t>(adler32(1L, payload, chunk.payload_size));
    const auto [earlier, added] =
        chunks_seen_.emplace(ChunkKey{chunk.type, chunk.core, chunk.payload_size, crc, adler}, chunk.sequence);
    if (added) return false;
    leave_out(chunk_at_, &Integrity::chunks_left_out,
              "it repeats chunk " + std::to_string(earlier->second) + " byte for byte");
    return true;
  }

  // saw_time notes a record's time: the latest any record holds, and no later than kMaxTime.
  void saw_time(std::size_t here, std::uint64_t ticks) {
    if (ticks > kMaxTime) refuse(here, "a time of " + std::to_string(ticks) + " ticks, beyond 2^63");
    trace_.latest = std::max(trace_.latest, ticks);
  }

  // keeps_time says whether span [begin, end) of `what` on `core` begins no earlier than the
  // span before it of the same clock ended. A span that begins before the one before it began is
  // time going backwards on the core: the records of the core are out of order, and the trace is
  // refused. A span that begins inside the one before is left out with a warning.
  template <class Name>
  bool keeps_time(std::size_t here, CoreClock& clock, const char* kind, std::uint64_t begin, std::uint64_t end,
                  const Name& what, std::uint64_t Integrity::*count) {
    if (begin >= clock.end) {  // the usual case, kept cheap: no message is built
      clock = CoreClock{begin, end};
      return true;
    }
    if (begin < clock.begin) {
      refuse(here, what() + " begins at tick " + std::to_string(begin) + ", before the " + kind + " recorded before it on core " +
                       std::to_string(chunk_.core) + " began (tick " + std::to_string(clock.begin) +
                       "): time goes backwards on the core");
    }
    leave_out(here, count, what() + " [" + std::to_string(begin) + ", " + std::to_string(end) + ") overlaps the " + kind +
                               " recorded before it on core " + std::to_string(chunk_.core) + ", which ends at tick " +
                               std::to_string(clock.end));
    return false;
  }

  // before_start says whether a span of `what` that begins at `begin` began before the run's
  // first clock reading (metadata `start_ticks`), and leaves it out with a warning if so: no
  // record can precede the recording, and one that claims to would stretch the run back to it.
  template <class Name>
  bool before_start(std::size_t here, std::uint64_t begin, const Name& what, std::uint64_t Integrity::*count) {
    if (begin >= start_ticks_) return false;
    const std::string earlier = number_text(static_cast<double>(start_ticks_ - begin) / trace_.clock_hz, "%.6g s");
    leave_out(here, count, what() + " begins at tick " + std::to_string(begin) + ", " + earlier +
                               " before the run's start (start_ticks " + std::to_string(start_ticks_) +
                               "): no record precedes the recording");
    return true;
  }

  void parse_chunk(const ChunkHeader& chunk, const unsigned char* payload, std::size_t offset) {
    switch (static_cast<ChunkType>(chunk.type)) {
      case ChunkType::metadata: return parse_metadata(payload, chunk.payload_size, offset);
      case ChunkType::definitions: return parse_definitions(payload, chunk.payload_size, offset);
      case ChunkType::events: return parse_events(chunk.core, payload, chunk.payload_size, offset);
      case ChunkType::closing: return parse_closing(payload, chunk.payload_size, offset);
      case ChunkType::end:
        if (chunk.payload_size != sizeof(EndPayload)) throw TraceError(offset, "end chunk of the wrong size");
        trace_.end = load<EndPayload>(payload);
        check_end_totals(chunk_at_);
        trace_.complete = true;
        return;
    }
    throw TraceError(offset, "unknown chunk type " + std::to_string(chunk.type));
  }

  // check_end_totals holds the end chunk's totals against what was read. A complete trace's end
  // chunk counts what the writer wrote, so a total that disagrees means chunks went missing or
  // the end chunk is corrupt: nothing read can be trusted to be the whole run. (A stopped run has
  // no end chunk; its trace reads as cut.) A chunk written twice counts once, as the writer wrote it.
  void check_end_totals(std::size_t here) const {
    const EndPayload& end = trace_.end;
    std::vector<std::string> problems;
    const std::uint64_t chunks = trace_.chunks - trace_.integrity.chunks_left_out;
    if (end.chunks != chunks) {
      problems.push_back("it counts " + std::to_string(end.chunks) + " chunks before it, the file holds " +
                         std::to_string(chunks) + (chunks == trace_.chunks ? "" : " (less the repeats)"));
    }
    if (end.records != records_read_) {
      std::string empty;  // the cores that hold no record at all: where a chunk went missing, likely
      std::uint32_t empty_cores = 0;
      for (std::uint32_t core = 0; core < core_records_.size(); ++core) {
        if (core_records_[core] != 0) continue;
        if (++empty_cores <= 8) empty += (empty.empty() ? "" : ", ") + std::to_string(core);
      }
      if (empty_cores > 8) empty += " and " + std::to_string(empty_cores - 8) + " more";
      const bool fewer = records_read_ < end.records;
      problems.push_back("it counts " + std::to_string(end.records) + " records, the trace holds " +
                         std::to_string(records_read_) +
                         (fewer && empty_cores != 0 && empty_cores < core_records_.size()
                              ? " (" + std::string(empty_cores == 1 ? "core " : "cores ") + empty + " " +
                                    (empty_cores == 1 ? "holds none: its" : "hold none: their") + " events are missing)"
                              : ""));
    }
    if (end.dropped != 0) {
      problems.push_back("it says " + std::to_string(end.dropped) +
                         " records were dropped, where the format allows none (a core waits for the writer instead)");
    }
    // Each writer wait is counted when it begins and recorded as a record once it ends: no fewer
    // waits than writer-wait records, no more than records in all.
    if (end.writer_waits < writer_wait_records_ || end.writer_waits > end.records) {
      problems.push_back("it counts " + std::to_string(end.writer_waits) + " writer waits, the trace holds " +
                         std::to_string(writer_wait_records_) + " writer-wait records of " +
                         std::to_string(records_read_) + " records");
    }
    if (problems.empty()) return;
    std::string text = "the end chunk disagrees with the trace: ";
    for (std::size_t i = 0; i < problems.size(); ++i) text += (i ? "; " : "") + problems[i];
    refuse(here, text);
  }

  // parse_lines adds "key=value" lines to the metadata; a key may not be given twice.
  void parse_lines(const unsigned char* payload, std::size_t size, std::size_t offset) {
    const std::string text(reinterpret_cast<const char*>(payload), size);
    for (const std::string& line : split(text, '\n')) {
      const auto eq = line.find('=');
      if (eq == std::string::npos) throw TraceError(offset, "metadata line without '=': " + line.substr(0, 60));
      if (!trace_.metadata.emplace(line.substr(0, eq), line.substr(eq + 1)).second) {
        throw TraceError(offset, "metadata key '" + line.substr(0, eq) + "' given twice");
      }
    }
  }

  void parse_closing(const unsigned char* payload, std::size_t size, std::size_t offset) {
    if (!metadata_seen_) throw TraceError(offset, "a closing chunk before the metadata chunk");
    if (closing_seen_) throw TraceError(offset, "a second closing chunk");
    closing_seen_ = true;
    parse_lines(payload, size, offset);
  }

  // parse_core_nodes reads `core_nodes`, the node each core is on: one name per core, or none.
  void parse_core_nodes(std::size_t offset) {
    const auto found = trace_.metadata.find("core_nodes");
    if (found == trace_.metadata.end()) return;
    // Split keeping empty names, so that one is refused rather than shifting the cores after it.
    std::size_t from = 0;
    for (std::size_t comma; (comma = found->second.find(',', from)) != std::string::npos; from = comma + 1) {
      trace_.core_nodes.push_back(found->second.substr(from, comma - from));
    }
    trace_.core_nodes.push_back(found->second.substr(from));
    const bool empty = std::find(trace_.core_nodes.begin(), trace_.core_nodes.end(), "") != trace_.core_nodes.end();
    if (trace_.core_nodes.size() != trace_.core_count || empty) {
      throw TraceError(offset, "metadata 'core_nodes' names " + std::to_string(trace_.core_nodes.size()) + " nodes for " +
                                   std::to_string(trace_.core_count) + " cores (one per core, none empty)");
    }
  }

  // parse_collective_constructs reads `collective_constructs`: KIND:OPERATION, comma-separated.
  void parse_collective_constructs(std::size_t offset) {
    const auto found = trace_.metadata.find("collective_constructs");
    if (found == trace_.metadata.end()) return;
    for (const std::string& item : split(found->second, ',')) {
      const std::size_t colon = item.find(':');
      const std::string op = colon == std::string::npos ? "" : item.substr(colon + 1);
      const bool known = std::find(std::begin(kCollectiveOps), std::end(kCollectiveOps), op) != std::end(kCollectiveOps);
      const std::uint32_t kind = construct_kind(item.substr(0, colon == std::string::npos ? item.size() : colon),
                                                "collective_constructs", offset);
      if (!known) {
        throw TraceError(offset, "metadata 'collective_constructs' holds '" + item.substr(0, 60) +
                                     "': not KIND:OPERATION with an operation the format knows (barrier, bcast, ...)");
      }
      trace_.collective_constructs[kind] = op;
    }
  }

  // construct_kind reads one construct kind of a metadata list.
  static std::uint32_t construct_kind(const std::string& item, const char* key, std::size_t offset) {
    char* rest = nullptr;
    errno = 0;
    const unsigned long kind = std::strtoul(item.c_str(), &rest, 10);
    if (errno != 0 || rest == item.c_str() || *rest != '\0' || item[0] == '-' || kind > 0xFFFF) {
      throw TraceError(offset, std::string("metadata '") + key + "' holds '" + item.substr(0, 60) + "', not a construct kind");
    }
    return static_cast<std::uint32_t>(kind);
  }

  // construct_list reads a metadata key that lists construct kinds, comma-separated.
  std::vector<std::uint32_t> construct_list(const char* key, std::size_t offset) const {
    std::vector<std::uint32_t> kinds;
    const auto found = trace_.metadata.find(key);
    if (found == trace_.metadata.end()) return kinds;
    for (const std::string& item : split(found->second, ',')) kinds.push_back(construct_kind(item, key, offset));
    return kinds;
  }

  void parse_metadata(const unsigned char* payload, std::size_t size, std::size_t offset) {
    if (metadata_seen_) throw TraceError(offset, "a second metadata chunk");
    metadata_seen_ = true;
    parse_lines(payload, size, offset);
    const auto need = [&](const char* key) -> const std::string& {
      auto found = trace_.metadata.find(key);
      if (found == trace_.metadata.end()) throw TraceError(offset, std::string("metadata lacks '") + key + "'");
      return found->second;
    };
    try {
      const unsigned long cores = std::stoul(need("cores"));
      if (cores == 0 || cores > 65534) throw TraceError(offset, "impossible core count " + need("cores"));
      trace_.core_count = static_cast<std::uint32_t>(cores);
      trace_.clock_hz = std::stod(need("clock_hz"));
    } catch (const std::logic_error&) {
      throw TraceError(offset, "metadata 'cores' or 'clock_hz' is not a number");
    }
    if (!(trace_.clock_hz >= kMinClockHz && trace_.clock_hz <= kMaxClockHz)) {
      throw TraceError(offset, "impossible clock frequency " + need("clock_hz") + " Hz (a trace's clock runs at 1 kHz to 100 GHz)");
    }
    if (auto start = trace_.metadata.find("start_ticks"); start != trace_.metadata.end()) {
      char* rest = nullptr;
      errno = 0;
      start_ticks_ = std::strtoull(start->second.c_str(), &rest, 10);
      if (errno != 0 || rest == start->second.c_str() || *rest != '\0' || start->second[0] == '-' || start_ticks_ > kMaxTime) {
        throw TraceError(offset, "metadata 'start_ticks' is not a clock reading: " + start->second.substr(0, 60));
      }
    }
    trace_.counters = split(need("counters"), ',');
    if (trace_.counters.size() > kMaxCounters) throw TraceError(offset, "more counters than the format allows");
    auto backends = trace_.metadata.find("counter_backends");
    trace_.counter_backends = backends != trace_.metadata.end() ? split(backends->second, ',') : std::vector<std::string>{};
    trace_.counter_backends.resize(trace_.counters.size());
    auto missing = trace_.metadata.find("missing_counters");
    if (missing != trace_.metadata.end()) trace_.missing_counters = split(missing->second, ';');
    parse_core_nodes(offset);
    trace_.message_constructs = construct_list("message_constructs", offset);
    parse_collective_constructs(offset);
    unit_size_ = unit_record_size(trace_.counters.size());
    clocks_.resize(trace_.core_count);
    wait_clocks_.resize(trace_.core_count);
    chore_clocks_.resize(trace_.core_count);
    last_unit_.resize(trace_.core_count, kNoUnit);
    left_out_unit_.resize(trace_.core_count, 0);
    core_records_.resize(trace_.core_count, 0);
  }

  void parse_definitions(const unsigned char* payload, std::size_t size, std::size_t offset) {
    std::size_t at = 0;
    while (at < size) {
      if (size - at < sizeof(Definition)) throw TraceError(offset + at, "definition entry truncated");
      const auto entry = load<Definition>(payload + at);
      const std::size_t padded = (entry.text_size + 7u) & ~std::size_t{7};
      if (size - at - sizeof(Definition) < padded) throw TraceError(offset + at, "definition text runs past its chunk");
      const std::string text(reinterpret_cast<const char*>(payload + at + sizeof(Definition)), entry.text_size);
      switch (static_cast<DefinitionType>(entry.type)) {
        case DefinitionType::call_site: {
          const auto nul = text.find('\0');
          trace_.sites[entry.a] = Trace::Site{text.substr(0, nul), nul == std::string::npos ? "" : text.substr(nul + 1),
                                              static_cast<std::uint32_t>(entry.b)};
          break;
        }
        case DefinitionType::construct:
          if (entry.a > 0xFFFF) throw TraceError(offset + at, "impossible construct kind " + std::to_string(entry.a));
          if (entry.b >= kConstructRoles) throw TraceError(offset + at, "impossible construct role " + std::to_string(entry.b));
          if (trace_.constructs.size() <= entry.a) {
            trace_.constructs.resize(entry.a + 1);
            trace_.construct_roles.resize(entry.a + 1, ConstructRole::other);
            trace_.construct_colours.resize(entry.a + 1);
          }
          {
            const auto nul = text.find('\0');
            trace_.constructs[entry.a] = text.substr(0, nul);
            trace_.construct_roles[entry.a] = static_cast<ConstructRole>(entry.b);
            trace_.construct_colours[entry.a] = nul == std::string::npos ? "" : text.substr(nul + 1);
          }
          break;
        case DefinitionType::vp:
          if (entry.b == 0) throw TraceError(offset + at, "VP definition with id 0");
          if (metadata_seen_ && entry.a != kNoHomeCore && entry.a >= trace_.core_count) {
            refuse(offset + at, "VP " + std::to_string(entry.b) + " has home core " + std::to_string(entry.a) + " in a trace of " +
                                    std::to_string(trace_.core_count) + " cores");
          }
          trace_.vps.push_back(Trace::Vp{entry.b, text, entry.a, static_cast<std::uint32_t>(entry.c)});
          break;
        case DefinitionType::group:
          trace_.groups.push_back(Trace::Group{entry.b, entry.a, text});
          break;
        case DefinitionType::user_event:
          trace_.user_event_names[entry.a] = text;
          break;
        case DefinitionType::lock_domain:
          if (entry.a == 0 || entry.a > 0xFFFF) {
            throw TraceError(offset + at, "lock domain id " + std::to_string(entry.a) + " outside 1..65535");
          }
          trace_.lock_domains[static_cast<std::uint16_t>(entry.a)] = Trace::LockDomain{entry.b, text};
          break;
        case DefinitionType::placement:
          language_choice(offset + at, "a placement");
          if (entry.b > 0xFFFF || !placement_known(static_cast<std::uint16_t>(entry.b))) {
            throw TraceError(offset + at, "unknown placement " + std::to_string(entry.b) + " (1 any core, 2 last core)");
          }
          if (placement_seen_ && trace_.language_choices.placement != static_cast<LanguagePlacement>(entry.b)) {
            throw TraceError(offset + at, "a second placement, " + std::to_string(entry.b) + ", where the trace gave " +
                                              std::to_string(static_cast<std::uint16_t>(trace_.language_choices.placement)));
          }
          placement_seen_ = true;
          trace_.language_choices.placement = static_cast<LanguagePlacement>(entry.b);
          break;
        case DefinitionType::word: {
          language_choice(offset + at, "a word");
          const auto nul = text.find('\0');
          if (nul == std::string::npos || nul == 0) throw TraceError(offset + at, "a word definition without a name before its text");
          LanguageWord word{text.substr(0, nul), text.substr(nul + 1)};
          if (const std::string* given = trace_.language_choices.word(word.name)) {
            if (*given == word.text) break;
            throw TraceError(offset + at, "the word '" + word.name + "' given a second time, with another text");
          }
          trace_.language_choices.words.push_back(std::move(word));
          break;
        }
        case DefinitionType::communicator:
          if (trace_.version < std::pair<std::uint16_t, std::uint16_t>{3, kMessagesMinor}) {
            throw TraceError(offset + at, "a communicator definition is format 3." + std::to_string(kMessagesMinor) +
                                              "; this trace says " + version_text());
          }
          trace_.communicators[entry.a] = Trace::Communicator{entry.b, text};
          break;
        default:
          throw TraceError(offset + at, "unknown definition type " + std::to_string(entry.type));
      }
      at += sizeof(Definition) + padded;
    }
  }

  // version_text is the trace's format version as a file says it ("3.6").
  std::string version_text() const { return std::to_string(trace_.version.first) + "." + std::to_string(trace_.version.second); }

  // read_message reads a message record of `core`, at byte `here`: a message's envelope, kept by its
  // match number (whether a constraint holds that match is checked once every constraint is read), or
  // a collective call's bytes, which follow the unit the call ended.
  void read_message(std::uint16_t core, const MessageRecord& record, std::size_t here) {
    if (trace_.version < std::pair<std::uint16_t, std::uint16_t>{3, kMessagesMinor}) {
      refuse(here, "a message record is format 3." + std::to_string(kMessagesMinor) + "; this trace says " + version_text());
    }
    if ((record.match == 0) == (record.unit == 0)) {
      refuse(here, "a message record names " + std::string(record.match == 0 ? "neither" : "both") +
                       " a match number and a unit (a message names its match, a collective call its unit)");
    }
    if ((record.flags & ~kMessageFlags) != 0 || (record.unit != 0 && record.flags != 0)) {
      refuse(here, "a message record with flags " + std::to_string(record.flags) + " (a message's receive: 1 any source, 2 any tag; a collective call: none)");
    }
    if (record.unit != 0) {
      if (unit_before(here, core, record.unit, "message record") == nullptr) return;  // its unit was left out
      if (!trace_.collective_calls.emplace(record.unit, record).second) {
        leave_out(here, &Integrity::messages_left_out, "a second message record for the collective call of unit " + std::to_string(record.unit));
      }
      return;
    }
    const auto [earlier, added] = message_at_.try_emplace(record.match, MessageAt{here, chunk_});
    if (!added) {
      leave_out(here, &Integrity::messages_left_out,
                "a second message record for match " + std::to_string(record.match) + " (the first at byte " +
                    std::to_string(earlier->second.here) + ")");
      return;
    }
    trace_.messages.emplace(record.match, record);
  }

  // check_messages leaves out a message record whose match no constraint holds (what would it be
  // the envelope of?), and refuses, in a complete trace, a message record naming a communicator
  // the trace never defines (a cut trace may have lost the definition, and its views name it by id).
  void check_messages(std::size_t end_at) {
    std::unordered_set<std::uint64_t> matches;
    for (const ConstraintRecord& c : trace_.constraints) {
      if (c.match != 0) matches.insert(c.match);
    }
    std::vector<std::pair<std::size_t, std::uint64_t>> stray;  // (byte, match), in file order
    for (const auto& [match, at] : message_at_) {
      if (!matches.contains(match)) stray.emplace_back(at.here, match);
    }
    std::sort(stray.begin(), stray.end());
    const ChunkHeader last = chunk_;
    for (const auto& [here, match] : stray) {
      chunk_ = message_at_.at(match).chunk;
      trace_.messages.erase(match);
      leave_out(here, &Integrity::messages_left_out, "a message record for match " + std::to_string(match) + ", which no constraint holds");
    }
    chunk_ = last;
    if (!trace_.complete) return;
    const auto defined = [&](const MessageRecord& record) {
      if (trace_.communicators.contains(record.comm)) return;
      throw TraceError(end_at, "a message record names communicator " + std::to_string(record.comm) + " (" +
                                   (record.match != 0 ? "match " + std::to_string(record.match) : "the collective call of unit " + std::to_string(record.unit)) +
                                   "), which the trace never defines");
    };
    for (const auto& [match, record] : trace_.messages) defined(record);
    for (const auto& [unit, record] : trace_.collective_calls) defined(record);
  }

  // language_choice refuses `what` (a placement, a word) in a trace whose version predates them.
  void language_choice(std::size_t here, const std::string& what) const {
    if (trace_.version >= std::pair<std::uint16_t, std::uint16_t>{3, kLanguageChoicesMinor}) return;
    throw TraceError(here, what + " definition is format 3." + std::to_string(kLanguageChoicesMinor) + "; this trace says " +
                               std::to_string(trace_.version.first) + "." + std::to_string(trace_.version.second));
  }

  // read_unit reads a unit record of `core` (its counters after it) from `record`, at byte `here`.
  void read_unit(std::uint16_t core, const unsigned char* record, std::size_t here) {
    Unit unit;
    unit.core = core;
    unit.record = load<UnitRecord>(record);
    const UnitRecord& r = unit.record;
    if (r.unit == 0 || r.vp == 0) throw TraceError(here, "unit record with unit or VP id 0");
    if (!(r.assign <= r.begin && r.begin <= r.end && r.end <= r.locked && r.locked <= r.handler &&
          r.handler <= r.handler_end)) {
      throw TraceError(here, "unit " + std::to_string(r.unit) + " has its life-line times out of order");
    }
    saw_time(here, r.handler_end);
    const auto what = [&r] { return "unit " + std::to_string(r.unit); };
    if (!unit_ids_.insert(r.unit)) {
      leave_out(here, &Integrity::units_left_out, what() + " was recorded before: a unit id repeats");
      left_out_unit_[core] = r.unit;
      return;
    }
    if (before_start(here, r.assign, what, &Integrity::units_left_out) ||
        !keeps_time(here, clocks_[core], "span", r.assign, r.handler_end, what, &Integrity::units_left_out)) {
      left_out_unit_[core] = r.unit;
      return;
    }
    if (!trace_.counters.empty()) {
      unit.counters.resize(trace_.counters.size());
      std::memcpy(unit.counters.data(), record + sizeof(UnitRecord), 8 * trace_.counters.size());
    }
    left_out_unit_[core] = 0;
    last_unit_[core] = trace_.units.size();
    trace_.units.push_back(std::move(unit));
  }

  // read_span reads an idle span, a writer wait or a paused span (`kind`) of `core`, at byte `here`.
  void read_span(RecordKind kind, std::uint16_t core, const SpanRecord& span, std::size_t here) {
    if (span.begin > span.end) throw TraceError(here, "span ends before it begins");
    saw_time(here, span.end);
    const bool wait = kind == RecordKind::writer_wait;
    const auto what = [kind, wait] {
      return std::string(kind == RecordKind::idle ? "an idle span" : wait ? "a writer wait" : "a paused span");
    };
    if (wait) ++writer_wait_records_;
    if (before_start(here, span.begin, what, &Integrity::spans_left_out) ||
        !keeps_time(here, wait ? wait_clocks_[core] : clocks_[core], wait ? "writer wait" : "span", span.begin, span.end, what, &Integrity::spans_left_out)) {
      return;
    }
    (kind == RecordKind::idle ? trace_.idle
     : kind == RecordKind::paused ? trace_.paused
                                  : trace_.writer_waits)
        .push_back(Span{core, span.begin, span.end});
  }

  // read_chore reads a chore record of `core`, at byte `here`.
  void read_chore(std::uint16_t core, const ChoreRecord& record, std::size_t here) {
    const bool estimated_known = trace_.version >= std::pair<std::uint16_t, std::uint16_t>{3, kEstimatedChoreMinor};
    if (record.chore != static_cast<std::uint16_t>(Chore::wake_up) &&
        record.chore != static_cast<std::uint16_t>(Chore::vp_shell) &&
        (record.chore != static_cast<std::uint16_t>(Chore::estimated) || !estimated_known)) {
      throw TraceError(here, "chore record of unknown chore " + std::to_string(record.chore) +
                                 (record.chore == static_cast<std::uint16_t>(Chore::estimated)
                                      ? " (estimated runtime work is format 3.5; this trace says " +
                                            std::to_string(trace_.version.first) + "." + std::to_string(trace_.version.second) + ")"
                                      : ""));
    }
    if (record.begin > record.end) throw TraceError(here, "chore ends before it begins");
    saw_time(here, record.end);
    const auto what = [] { return std::string("a chore"); };
    if (before_start(here, record.begin, what, &Integrity::spans_left_out) ||
        !keeps_time(here, chore_clocks_[core], "chore", record.begin, record.end, what, &Integrity::spans_left_out)) {
      return;
    }
    trace_.chores.push_back(Trace::ChoreSpan{core, record});
  }

  void parse_events(std::uint16_t core, const unsigned char* payload, std::size_t size, std::size_t offset) {
    if (!metadata_seen_) throw TraceError(offset, "events before the metadata chunk");
    if (core >= trace_.core_count) {
      throw TraceError(offset, "events of core " + std::to_string(core) + " in a trace of " +
                                   std::to_string(trace_.core_count) + " cores");
    }
    std::size_t at = 0;
    while (at < size) {
      const std::size_t here = offset + at;
      if (size - at < 8) throw TraceError(here, "record truncated");
      const auto kind = static_cast<RecordKind>(load<std::uint16_t>(payload + at));
      ++records_read_;
      ++core_records_[core];
      const auto need = [&](std::size_t bytes) {
        if (size - at < bytes) throw TraceError(here, "record truncated");
      };
      // take reads the record of type T at `at` and steps past it.
      const auto take = [&]<typename T>(std::type_identity<T>) {
        need(sizeof(T));
        const T record = load<T>(payload + at);
        at += sizeof(T);
        return record;
      };
      switch (kind) {
        case RecordKind::unit:
          need(unit_size_);
          at += unit_size_;
          read_unit(core, payload + here - offset, here);
          break;
        case RecordKind::os_taken: {
          const auto record = take(std::type_identity<OsTakenRecord>{});
          Unit* unit = unit_before(here, core, record.unit, "OS record");
          if (unit == nullptr) break;  // it belongs to a unit left out
          if (record.taken > unit->record.end - unit->record.begin) {
            throw TraceError(here, "OS record says more was taken from unit " + std::to_string(record.unit) +
                                       " than its work span");
          }
          unit->taken = record.taken;
          unit->switches = record.switches;
          unit->migrations = record.migrations;
          break;
        }
        case RecordKind::declared_work: {
          const auto record = take(std::type_identity<DeclaredWorkRecord>{});
          if (Unit* unit = unit_before(here, core, record.unit, "declared-work record")) unit->declared = record.declared;
          break;
        }
        case RecordKind::idle:
        case RecordKind::writer_wait:
        case RecordKind::paused:
          read_span(kind, core, take(std::type_identity<SpanRecord>{}), here);
          break;
        case RecordKind::constraint: {
          const auto record = take(std::type_identity<ConstraintRecord>{});
          if (record.from == 0 || record.to == 0) throw TraceError(here, "constraint naming unit 0");
          saw_time(here, record.time);
          trace_.constraints.push_back(record);
          break;
        }
        case RecordKind::lock_handoff: {
          const auto record = take(std::type_identity<LockHandoffRecord>{});
          if (record.from >= trace_.core_count) throw TraceError(here, "lock handoff from core " + std::to_string(record.from) + " in a trace of " + std::to_string(trace_.core_count) + " cores");
          if (record.waited > record.acquired) throw TraceError(here, "lock acquired before the wait began");
          saw_time(here, record.acquired);
          trace_.lock_handoffs.push_back(Trace::LockHandoff{core, record});
          break;
        }
        case RecordKind::chore:
          read_chore(core, take(std::type_identity<ChoreRecord>{}), here);
          break;
        case RecordKind::message:
          read_message(core, take(std::type_identity<MessageRecord>{}), here);
          break;
        case RecordKind::user_event: {
          const auto record = take(std::type_identity<UserEventRecord>{});
          if (record.phase != 1 && record.phase != 2) throw TraceError(here, "user event with phase " + std::to_string(record.phase));
          if (record.unit == 0) throw TraceError(here, "user event in unit 0");
          saw_time(here, record.time);
          trace_.user_events.push_back(Trace::UserEvent{core, record});
          break;
        }
        case RecordKind::group: {
          const auto record = take(std::type_identity<GroupRecord>{});
          if (record.role != 1 && record.role != 2) throw TraceError(here, "group member with role " + std::to_string(record.role));
          trace_.group_members.push_back(Trace::Member{core, record});
          break;
        }
        default:
          throw TraceError(here, "unknown record kind " + std::to_string(static_cast<unsigned>(kind)));
      }
    }
  }

  // unit_before is the unit recorded last on `core`, which a record following it (`what`) names
  // as `unit`; nullptr when that unit was left out (the record goes with it); anything else is a
  // corrupt trace.
  Unit* unit_before(std::size_t here, std::uint16_t core, std::uint64_t unit, const char* what) {
    if (left_out_unit_[core] != 0 && left_out_unit_[core] == unit) return nullptr;
    const std::size_t index = last_unit_[core];
    if (index == kNoUnit || trace_.units[index].record.unit != unit) {
      throw TraceError(here, std::string(what) + " for unit " + std::to_string(unit) +
                                 ", which is not the unit recorded before it on core " + std::to_string(core));
    }
    return &trace_.units[index];
  }

  Source& source_;
  std::string name_;
  Trace trace_;
  std::size_t at_ = 0;  // where the chunk being read begins, for an out-of-memory error
  ChunkHeader chunk_{};  // the chunk being read
  std::size_t chunk_at_ = 0;
  bool metadata_seen_ = false;
  bool closing_seen_ = false;
  bool placement_seen_ = false;  // a placement definition was read
  std::vector<std::size_t> last_unit_;       // per core: index in trace_.units of its latest unit
  std::vector<std::uint64_t> left_out_unit_;  // per core: the unit just left out, whose records go with it
  std::vector<CoreClock> clocks_, wait_clocks_, chore_clocks_;  // per core
  UnitIdSet unit_ids_;
  std::unordered_map<ChunkKey, std::uint64_t, ChunkKeyHash> chunks_seen_;  // events and definitions: sequence
  std::size_t unit_size_ = sizeof(UnitRecord);
  std::uint64_t start_ticks_ = 0;           // the run's first clock reading (metadata start_ticks)
  std::uint64_t records_read_ = 0;          // records of every events chunk read (not a repeat's)
  std::vector<std::uint64_t> core_records_;  // ... per core
  std::uint64_t writer_wait_records_ = 0;
  // MessageAt is where a message record was read, for a warning once every constraint is read.
  struct MessageAt {
    std::size_t here = 0;
    ChunkHeader chunk{};
  };
  std::unordered_map<std::uint64_t, MessageAt> message_at_;  // by match
};

}  // namespace

std::uint64_t max_trace_bytes() {
  const char* given = std::getenv("MOIRAI_TRACE_MAX_BYTES");
  if (given == nullptr || *given == '\0') return kDefaultMaxTraceBytes;
  char* rest = nullptr;
  errno = 0;
  const unsigned long long number = std::strtoull(given, &rest, 10);
  std::uint64_t scale = 1;
  const std::string suffix = rest != nullptr ? rest : "";
  if (suffix == "K" || suffix == "k") scale = 1ull << 10;
  if (suffix == "M") scale = 1ull << 20;
  if (suffix == "G") scale = 1ull << 30;
  if (errno != 0 || rest == given || *given == '-' || (scale == 1 && !suffix.empty()) || number == 0 ||
      number > std::numeric_limits<std::uint64_t>::max() / scale) {
    throw TraceError(0, std::string("MOIRAI_TRACE_MAX_BYTES=") + given + " is not a size (bytes above 0, or with K, M or G)");
  }
  return number * scale;
}

Trace parse_trace(const unsigned char* data, std::size_t size) {
  MemorySource source(data, size);
  return Parser<MemorySource>(source, "the trace").run();
}

Trace read_trace(const std::string& path) { return read_trace(path, max_trace_bytes()); }

Trace read_trace(const std::string& path, std::uint64_t max_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  struct stat info {};
  if (!file || ::fstat(::fileno(file.get()), &info) != 0) throw TraceError(0, "cannot open " + path + ": " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw TraceError(0, path + " is a directory, not a trace file");
  if (!S_ISREG(info.st_mode)) {
    // A pipe or a device has no size to check first: it is read as it comes, up to the limit.
    StreamSource source(file.get(), max_bytes, path);
    return Parser<StreamSource>(source, path).run();
  }
  if (info.st_size == 0) throw TraceError(0, path + " is empty");
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    throw TraceError(0, path + " is " + std::to_string(info.st_size) + " bytes, over the trace size limit of " +
                            std::to_string(max_bytes) + " bytes (MOIRAI_TRACE_MAX_BYTES)");
  }
  FileSource source(file.get(), static_cast<std::size_t>(info.st_size));
  return Parser<FileSource>(source, path).run();
}

}  // namespace moirai::trace
