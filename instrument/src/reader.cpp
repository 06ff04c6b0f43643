// Reads the layout of docs/trace-format.md (moirai/trace/format.h) and checks all of it.
#include "moirai/trace/reader.h"
#include "moirai/trace/ssr_constructs.h"

#include <zlib.h>

#include <sys/stat.h>

#include <algorithm>
#include <tuple>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

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
  char at[64];
  std::snprintf(at, sizeof at, "%.3f ms", ms_from_start(complete && end.end_time != 0 ? end.end_time : latest));
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

// MemorySource serves a trace already in memory.
class MemorySource {
 public:
  MemorySource(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t size() const { return size_; }
  // bytes returns the `count` bytes at `at` (at + count <= size()), or nullptr if they are gone.
  const unsigned char* bytes(std::size_t at, std::size_t) { return data_ + at; }

 private:
  const unsigned char* data_;
  std::size_t size_;
};

// FileSource reads a trace file front to back, one piece at a time, so reading never holds the
// whole file in memory (a million-unit trace is over 100 MB).
class FileSource {
 public:
  FileSource(std::FILE* file, std::size_t size) : file_(file), size_(size) {}
  std::size_t size() const { return size_; }
  const unsigned char* bytes(std::size_t at, std::size_t count) {
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

constexpr std::size_t kNoUnit = static_cast<std::size_t>(-1);

template <class Source>
class Parser {
 public:
  explicit Parser(Source& source) : source_(source), size_(source.size()) {}

  Trace run() {
    trace_.bytes = size_;
    if (size_ < sizeof(FileHeader)) throw TraceError(0, "file too short for a trace header (" + std::to_string(size_) + " bytes)");
    const unsigned char* head = source_.bytes(0, sizeof(FileHeader));
    if (head == nullptr) throw TraceError(0, "the file could not be read");
    const auto header = load<FileHeader>(head);
    if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) throw TraceError(0, "not a Moirai trace (wrong magic)");
    if (header.version_major < kOldestVersionMajor || header.version_major > kVersionMajor) {
      throw TraceError(8, "trace format version " + std::to_string(header.version_major) + "." +
                              std::to_string(header.version_minor) + " is not supported (this reader reads versions " +
                              std::to_string(kOldestVersionMajor) + " to " + std::to_string(kVersionMajor) + ")");
    }
    version_major_ = header.version_major;
    trace_.version = {header.version_major, header.version_minor};
    std::size_t at = sizeof(FileHeader);
    while (at < size_) {
      if (size_ - at < sizeof(ChunkHeader)) {
        cut(at, "a chunk header is incomplete");
        break;
      }
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
      if (size_ - payload_at < chunk.payload_size) {
        cut(at, "chunk " + std::to_string(chunk.sequence) + " is incomplete");
        break;
      }
      const unsigned char* payload = source_.bytes(payload_at, chunk.payload_size);
      if (payload == nullptr) {
        cut(at, "chunk " + std::to_string(chunk.sequence) + " is incomplete");
        break;
      }
#if !defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
      // (A fuzzer cannot forge checksums; without this check it reaches the record parsing.)
      const auto crc = static_cast<std::uint32_t>(crc32(0L, payload, chunk.payload_size));
      if (crc != chunk.payload_crc32) throw TraceError(at, "chunk " + std::to_string(chunk.sequence) + " fails its checksum");
#endif
      if (trace_.complete) throw TraceError(at, "data after the end chunk");
      parse_chunk(chunk, payload, payload_at);
      ++trace_.chunks;
      at = payload_at + chunk.payload_size;
    }
    if (!trace_.complete && trace_.cut.empty()) cut(at, "the end chunk is missing");
    if (!trace_.cut.empty()) {
      // Said first, as a time: how much of the run the trace still holds is what a reader asks.
      char ends[64];
      std::snprintf(ends, sizeof ends, "%.3f ms", trace_.ms_from_start(trace_.latest));
      trace_.cut = "partial trace, ends at " + std::string(ends) + (trace_.latest == 0 ? " (it holds no records)" : "") +
                   ": " + trace_.cut;
    }
    trace_.constructs.resize(std::max(trace_.constructs.size(), trace_.construct_roles.size()));
    trace_.construct_roles.resize(trace_.constructs.size(), ConstructRole::other);
    trace_.construct_colours.resize(trace_.constructs.size());
    if (version_major_ < 3) legacy_roles();
    // Each core's records arrive in its chunks, and the chunks of different cores in the order
    // the writer took them, which host timing decides (the recorder also flushes by time): in
    // time order, a trace reads the same however its chunks were interleaved, so every view of a
    // simulated run is the same each time.
    std::stable_sort(trace_.constraints.begin(), trace_.constraints.end(), [](const ConstraintRecord& a, const ConstraintRecord& b) {
      return std::tie(a.time, a.from, a.to, a.construct, a.match) < std::tie(b.time, b.from, b.to, b.construct, b.match);
    });
    auto interrupted = trace_.metadata.find("interrupted");
    if (interrupted != trace_.metadata.end() && interrupted->second != "no") trace_.interrupted = interrupted->second;
    return std::move(trace_);
  }

 private:
  // legacy_roles gives the constructs of an SSR trace from before roles (format 2 and older)
  // the roles and colours SSR records now; other languages' old constructs stay `other`.
  void legacy_roles() {
    auto language = trace_.metadata.find("language");
    if (language == trace_.metadata.end() || language->second != "SSR") return;
    for (std::size_t kind = 0; kind < trace_.constructs.size(); ++kind) {
      for (const ConstructInfo& ssr : kSsrConstructs) {
        if (ssr.name != trace_.constructs[kind]) continue;
        trace_.construct_roles[kind] = ssr.role;
        trace_.construct_colours[kind] = ssr.colour;
      }
    }
  }

  void cut(std::size_t at, const std::string& why) {
    trace_.cut = "trace cut at byte " + std::to_string(at) + " (" + why + "): read " +
                 std::to_string(trace_.chunks) + " complete chunks; the run did not finish writing it";
  }

  void saw_time(std::uint64_t ticks) { trace_.latest = std::max(trace_.latest, ticks); }

  void parse_chunk(const ChunkHeader& chunk, const unsigned char* payload, std::size_t offset) {
    switch (static_cast<ChunkType>(chunk.type)) {
      case ChunkType::metadata: return parse_metadata(payload, chunk.payload_size, offset);
      case ChunkType::definitions: return parse_definitions(payload, chunk.payload_size, offset);
      case ChunkType::events: return parse_events(chunk.core, payload, chunk.payload_size, offset);
      case ChunkType::closing: return parse_closing(payload, chunk.payload_size, offset);
      case ChunkType::end:
        if (chunk.payload_size != sizeof(EndPayload)) throw TraceError(offset, "end chunk of the wrong size");
        trace_.end = load<EndPayload>(payload);
        trace_.complete = true;
        return;
    }
    throw TraceError(offset, "unknown chunk type " + std::to_string(chunk.type));
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
      if (!(trace_.clock_hz > 0)) throw TraceError(offset, "impossible clock frequency " + need("clock_hz"));
    } catch (const std::logic_error&) {
      throw TraceError(offset, "metadata 'cores' or 'clock_hz' is not a number");
    }
    trace_.counters = split(need("counters"), ',');
    if (trace_.counters.size() > kMaxCounters) throw TraceError(offset, "more counters than the format allows");
    auto backends = trace_.metadata.find("counter_backends");
    trace_.counter_backends = backends != trace_.metadata.end() ? split(backends->second, ',') : std::vector<std::string>{};
    trace_.counter_backends.resize(trace_.counters.size());
    auto missing = trace_.metadata.find("missing_counters");
    if (missing != trace_.metadata.end()) trace_.missing_counters = split(missing->second, ';');
    unit_size_ = unit_record_size(trace_.counters.size());
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
          trace_.vps.push_back(Trace::Vp{entry.b, text, entry.a, static_cast<std::uint32_t>(entry.c)});
          break;
        case DefinitionType::group:
          trace_.groups.push_back(Trace::Group{entry.b, entry.a, text});
          break;
        case DefinitionType::user_event:
          trace_.user_event_names[entry.a] = text;
          break;
        default:
          throw TraceError(offset + at, "unknown definition type " + std::to_string(entry.type));
      }
      at += sizeof(Definition) + padded;
    }
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
      const auto need = [&](std::size_t bytes) {
        if (size - at < bytes) throw TraceError(here, "record truncated");
      };
      switch (kind) {
        case RecordKind::unit: {
          need(unit_size_);
          Unit unit;
          unit.core = core;
          unit.record = load<UnitRecord>(payload + at);
          const UnitRecord& r = unit.record;
          if (r.unit == 0 || r.vp == 0) throw TraceError(here, "unit record with unit or VP id 0");
          if (!(r.assign <= r.begin && r.begin <= r.end && r.end <= r.locked && r.locked <= r.handler &&
                r.handler <= r.handler_end)) {
            throw TraceError(here, "unit " + std::to_string(r.unit) + " has its life-line times out of order");
          }
          if (!trace_.counters.empty()) {
            unit.counters.resize(trace_.counters.size());
            std::memcpy(unit.counters.data(), payload + at + sizeof(UnitRecord), 8 * trace_.counters.size());
          }
          saw_time(r.handler_end);
          last_unit_.resize(trace_.core_count, kNoUnit);
          last_unit_[core] = trace_.units.size();
          trace_.units.push_back(std::move(unit));
          at += unit_size_;
          break;
        }
        case RecordKind::os_taken: {
          need(sizeof(OsTakenRecord));
          const auto record = load<OsTakenRecord>(payload + at);
          Unit& unit = unit_before(here, core, record.unit, "OS record");
          if (record.taken > unit.record.end - unit.record.begin) {
            throw TraceError(here, "OS record says more was taken from unit " + std::to_string(record.unit) +
                                       " than its work span");
          }
          unit.taken = record.taken;
          unit.switches = record.switches;
          unit.migrations = record.migrations;
          at += sizeof(OsTakenRecord);
          break;
        }
        case RecordKind::declared_work: {
          need(sizeof(DeclaredWorkRecord));
          const auto record = load<DeclaredWorkRecord>(payload + at);
          unit_before(here, core, record.unit, "declared-work record").declared = record.declared;
          at += sizeof(DeclaredWorkRecord);
          break;
        }
        case RecordKind::idle:
        case RecordKind::writer_wait:
        case RecordKind::paused: {
          need(sizeof(SpanRecord));
          const auto span = load<SpanRecord>(payload + at);
          if (span.begin > span.end) throw TraceError(here, "span ends before it begins");
          saw_time(span.end);
          (kind == RecordKind::idle ? trace_.idle
           : kind == RecordKind::paused ? trace_.paused
                                        : trace_.writer_waits)
              .push_back(Span{core, span.begin, span.end});
          at += sizeof(SpanRecord);
          break;
        }
        case RecordKind::constraint: {
          need(sizeof(ConstraintRecord));
          const auto record = load<ConstraintRecord>(payload + at);
          if (record.from == 0 || record.to == 0) throw TraceError(here, "constraint naming unit 0");
          saw_time(record.time);
          trace_.constraints.push_back(record);
          at += sizeof(ConstraintRecord);
          break;
        }
        case RecordKind::lock_handoff: {
          need(sizeof(LockHandoffRecord));
          const auto record = load<LockHandoffRecord>(payload + at);
          if (record.from >= trace_.core_count) throw TraceError(here, "lock handoff from core " + std::to_string(record.from) + " in a trace of " + std::to_string(trace_.core_count) + " cores");
          if (record.waited > record.acquired) throw TraceError(here, "lock acquired before the wait began");
          saw_time(record.acquired);
          trace_.lock_handoffs.push_back(Trace::LockHandoff{core, record});
          at += sizeof(LockHandoffRecord);
          break;
        }
        case RecordKind::chore: {
          need(sizeof(ChoreRecord));
          const auto record = load<ChoreRecord>(payload + at);
          if (record.chore != static_cast<std::uint16_t>(Chore::wake_up) &&
              record.chore != static_cast<std::uint16_t>(Chore::vp_shell)) {
            throw TraceError(here, "chore record of unknown chore " + std::to_string(record.chore));
          }
          if (record.begin > record.end) throw TraceError(here, "chore ends before it begins");
          saw_time(record.end);
          trace_.chores.push_back(Trace::ChoreSpan{core, record});
          at += sizeof(ChoreRecord);
          break;
        }
        case RecordKind::user_event: {
          need(sizeof(UserEventRecord));
          const auto record = load<UserEventRecord>(payload + at);
          if (record.phase != 1 && record.phase != 2) throw TraceError(here, "user event with phase " + std::to_string(record.phase));
          if (record.unit == 0) throw TraceError(here, "user event in unit 0");
          saw_time(record.time);
          trace_.user_events.push_back(Trace::UserEvent{core, record});
          at += sizeof(UserEventRecord);
          break;
        }
        case RecordKind::group: {
          need(sizeof(GroupRecord));
          const auto record = load<GroupRecord>(payload + at);
          if (record.role != 1 && record.role != 2) throw TraceError(here, "group member with role " + std::to_string(record.role));
          trace_.group_members.push_back(Trace::Member{core, record});
          at += sizeof(GroupRecord);
          break;
        }
        default:
          throw TraceError(here, "unknown record kind " + std::to_string(static_cast<unsigned>(kind)));
      }
    }
  }

  // unit_before is the unit recorded last on `core`, which a record following it (`what`) names
  // as `unit`; anything else is a corrupt trace.
  Unit& unit_before(std::size_t here, std::uint16_t core, std::uint64_t unit, const char* what) {
    last_unit_.resize(trace_.core_count, kNoUnit);
    const std::size_t index = last_unit_[core];
    if (index == kNoUnit || trace_.units[index].record.unit != unit) {
      throw TraceError(here, std::string(what) + " for unit " + std::to_string(unit) +
                                 ", which is not the unit recorded before it on core " + std::to_string(core));
    }
    return trace_.units[index];
  }

  Source& source_;
  std::size_t size_;
  Trace trace_;
  bool metadata_seen_ = false;
  bool closing_seen_ = false;
  std::uint16_t version_major_ = 0;
  std::vector<std::size_t> last_unit_;  // per core: index in trace_.units of its latest unit
  std::size_t unit_size_ = sizeof(UnitRecord);
};

}  // namespace

Trace parse_trace(const unsigned char* data, std::size_t size) {
  MemorySource source(data, size);
  return Parser<MemorySource>(source).run();
}

Trace read_trace(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  struct stat info {};
  if (!file || ::fstat(::fileno(file.get()), &info) != 0) throw TraceError(0, "cannot open " + path + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) {
    // A pipe or device has no size to stat: read it whole.
    std::vector<unsigned char> bytes;
    unsigned char piece[65536];
    for (std::size_t got; (got = std::fread(piece, 1, sizeof piece, file.get())) > 0;) bytes.insert(bytes.end(), piece, piece + got);
    if (bytes.empty()) throw TraceError(0, path + " is empty");
    return parse_trace(bytes.data(), bytes.size());
  }
  if (info.st_size == 0) throw TraceError(0, path + " is empty");
  FileSource source(file.get(), static_cast<std::size_t>(info.st_size));
  return Parser<FileSource>(source).run();
}

}  // namespace moirai::trace
