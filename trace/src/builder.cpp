// Writes the layout of docs/trace-format.md (moirai/trace/format.h) from records given one by one.
#include "moirai/trace/builder.h"

#include "moirai/trace/chunk_checksum.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace moirai::trace {

namespace {

// kFlushBytes is how much of one core's records, or of definitions, a chunk gathers.
constexpr std::size_t kFlushBytes = 1u << 20;

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

}  // namespace

TraceBuilder::TraceBuilder(const std::string& path, BuilderOptions options)
    : path_(path), options_(std::move(options)), events_(options_.cores) {
  if (options_.cores == 0 || options_.cores > 65534) {
    throw std::invalid_argument("a trace has 1 to 65534 cores, not " + std::to_string(options_.cores));
  }
  if (options_.language.empty()) {
    throw std::invalid_argument("BuilderOptions::language is empty: a built trace names its language (SSR, VSs, ...)");
  }
  if (options_.counters.size() > kMaxCounters) {
    throw std::invalid_argument("a trace records at most " + std::to_string(kMaxCounters) + " counters");
  }
  const std::vector<LanguageWord> no_words;
  const std::vector<LanguageWord>& words = options_.choices ? options_.choices->words : no_words;
  for (std::size_t w = 0; w < words.size(); ++w) {
    const std::string& name = words[w].name;
    if (name.empty() || name.find('\0') != std::string::npos) throw std::invalid_argument("a word's name is empty or holds a NUL");
    for (std::size_t earlier = 0; earlier < w; ++earlier) {
      if (words[earlier].name == name) throw std::invalid_argument("the word '" + name + "' is given twice");
    }
  }
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) throw std::runtime_error("cannot write trace file " + path + ": " + std::strerror(errno));
  FileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof header.magic);
  header.version_major = kVersionMajor;
  header.version_minor = kVersionMinor;
  write(&header, sizeof header);
  std::string counters;
  for (const std::string& name : options_.counters) counters += (counters.empty() ? "" : ",") + name;
  const std::string metadata = "format=moirai-trace\nlanguage=" + one_line(options_.language) +
                               "\ncores=" + std::to_string(options_.cores) +
                               "\nclock_source=" + one_line(options_.clock_source) + "\nclock_hz=" + std::to_string(options_.clock_hz) +
                               "\ncommand_line=" + one_line(options_.command_line) + "\ncounters=" + counters +
                               "\nunit_record_bytes=" + std::to_string(unit_record_size(options_.counters.size())) + "\n";
  std::string text = metadata;
  for (const auto& [key, value] : options_.metadata) text += one_line(key) + "=" + one_line(value) + "\n";
  chunk(ChunkType::metadata, kNoCore, text.data(), text.size());
  for (std::size_t kind = 0; kind < options_.constructs.size(); ++kind) {
    const ConstructInfo& construct = options_.constructs[kind];
    define(DefinitionType::construct, static_cast<std::uint32_t>(kind), static_cast<std::uint64_t>(construct.role), 0,
           construct_text(construct.name, construct.colour));
  }
  if (!options_.choices) return;
  define(DefinitionType::placement, 0, static_cast<std::uint64_t>(options_.choices->placement), 0, "");
  for (const LanguageWord& word : options_.choices->words) define(DefinitionType::word, 0, 0, 0, word_text(word.name, word.text));
}

TraceBuilder::~TraceBuilder() {
  try {
    finish();
  } catch (...) {
    // A destructor cannot report; finish() called explicitly does.
  }
  if (file_ != nullptr) std::fclose(file_);
}

void TraceBuilder::site(std::uint32_t id, const std::string& file, std::uint32_t line, const std::string& function) {
  define(DefinitionType::call_site, id, line, 0, file + '\0' + function);
}

void TraceBuilder::vp(std::uint64_t id, const std::string& name, std::uint32_t home_core, std::uint32_t creation_site) {
  if (id == 0) throw std::invalid_argument("VP id 0 is not a VP");
  vps_.insert(id);
  define(DefinitionType::vp, home_core, id, creation_site, name);
}

void TraceBuilder::group(std::uint64_t id, std::uint16_t construct, const std::string& name) {
  define(DefinitionType::group, construct, id, 0, name);
}

void TraceBuilder::lock_domain(std::uint16_t id, std::uint64_t key, const std::string& name) {
  if (id == 0) throw std::invalid_argument("lock domain ids start at 1 (0 is the whole-language lock)");
  define(DefinitionType::lock_domain, id, key, 0, name);
}

void TraceBuilder::communicator(std::uint32_t id, std::uint64_t size, const std::string& name) {
  define(DefinitionType::communicator, id, size, 0, name);
}

void TraceBuilder::unit(std::uint32_t core, const UnitRecord& record, std::span<const std::uint64_t> counters) {
  if (record.unit == 0 || record.vp == 0) throw std::invalid_argument("a unit record needs unit and VP ids above 0");
  if (!(record.assign <= record.begin && record.begin <= record.end && record.end <= record.locked &&
        record.locked <= record.handler && record.handler <= record.handler_end)) {
    throw std::invalid_argument("unit " + std::to_string(record.unit) + " has its life-line times out of order");
  }
  if (counters.size() != options_.counters.size()) {
    throw std::invalid_argument("unit " + std::to_string(record.unit) + " has " + std::to_string(counters.size()) +
                                " counter deltas for " + std::to_string(options_.counters.size()) + " counters");
  }
  if (!vps_.contains(record.vp)) vp(record.vp, "vp" + std::to_string(record.vp), kNoHomeCore, record.site);
  UnitRecord r = record;
  r.kind = static_cast<std::uint16_t>(RecordKind::unit);
  append(core, &r, sizeof r);
  if (!counters.empty()) {
    auto& bytes = events_[core];
    const auto* data = reinterpret_cast<const unsigned char*>(counters.data());
    bytes.insert(bytes.end(), data, data + counters.size_bytes());
  }
}

void TraceBuilder::unit(std::uint32_t core, std::uint64_t unit, std::uint64_t vp, std::uint64_t assign,
                        std::uint64_t begin, std::uint64_t end, std::uint64_t handler_end, std::uint16_t ended_by,
                        std::uint32_t site, const std::vector<std::uint64_t>& counters) {
  UnitRecord r{};
  r.ended_by = ended_by;
  r.site = site;
  r.unit = unit;
  r.vp = vp;
  r.assign = assign;
  r.begin = begin;
  r.end = end;
  r.locked = end;
  r.handler = end + (handler_end - end) / 2;
  r.handler_end = handler_end;
  if (!counters.empty()) {
    this->unit(core, r, counters);
    return;
  }
  const std::vector<std::uint64_t> zeros(options_.counters.size(), 0);
  this->unit(core, r, zeros);
}

void TraceBuilder::user_event(std::uint32_t core, std::uint32_t name_id, const std::string& name, std::uint64_t unit,
                              std::uint64_t time, bool begin) {
  if (event_names_.insert(name_id).second) define(DefinitionType::user_event, name_id, 0, 0, name);
  const UserEventRecord e{static_cast<std::uint16_t>(RecordKind::user_event), static_cast<std::uint16_t>(begin ? 1 : 2),
                          name_id, unit, time};
  append(core, &e, sizeof e);
}

void TraceBuilder::os_taken(std::uint32_t core, std::uint64_t unit, std::uint64_t taken, std::uint32_t switches,
                            std::uint32_t migrations) {
  const OsTakenRecord r{static_cast<std::uint16_t>(RecordKind::os_taken), 0, switches, unit, taken, migrations, 0};
  append(core, &r, sizeof r);
}

void TraceBuilder::declared_work(std::uint32_t core, std::uint64_t unit, std::uint64_t declared) {
  const DeclaredWorkRecord r{static_cast<std::uint16_t>(RecordKind::declared_work), 0, 0, unit, declared};
  append(core, &r, sizeof r);
}

void TraceBuilder::idle(std::uint32_t core, std::uint64_t begin, std::uint64_t end) {
  if (begin > end) throw std::invalid_argument("idle span ends before it begins");
  const SpanRecord s{static_cast<std::uint16_t>(RecordKind::idle), 0, 0, begin, end};
  append(core, &s, sizeof s);
}

void TraceBuilder::constraint(std::uint32_t core, std::uint16_t construct, std::uint64_t from, std::uint64_t to,
                              std::uint64_t time, std::uint64_t match) {
  if (from == 0 || to == 0) throw std::invalid_argument("a constraint names units above 0");
  const ConstraintRecord c{static_cast<std::uint16_t>(RecordKind::constraint), construct, 0, from, to, match, time};
  append(core, &c, sizeof c);
}

void TraceBuilder::message(std::uint32_t core, std::uint64_t match, std::uint64_t bytes, std::int32_t tag, std::uint32_t comm,
                           std::uint16_t flags) {
  if (match == 0) throw std::invalid_argument("a message record names a match number above 0");
  if ((flags & ~kMessageFlags) != 0) throw std::invalid_argument("message flags " + std::to_string(flags) + " are not MessageFlag bits");
  const MessageRecord m{static_cast<std::uint16_t>(RecordKind::message), flags, comm, match, 0, bytes, tag, 0};
  append(core, &m, sizeof m);
}

void TraceBuilder::collective_call(std::uint32_t core, std::uint64_t unit, std::uint64_t bytes, std::uint32_t comm) {
  if (unit == 0) throw std::invalid_argument("a collective call's record names its unit, above 0");
  const MessageRecord m{static_cast<std::uint16_t>(RecordKind::message), 0, comm, 0, unit, bytes, 0, 0};
  append(core, &m, sizeof m);
}

void TraceBuilder::group_member(std::uint32_t core, std::uint64_t group, std::uint16_t role, std::uint64_t unit) {
  if (role != 1 && role != 2) throw std::invalid_argument("a group role is 1 (source) or 2 (sink)");
  const GroupRecord g{static_cast<std::uint16_t>(RecordKind::group), role, 0, group, unit};
  append(core, &g, sizeof g);
}

void TraceBuilder::lock_handoff(std::uint32_t core, std::uint32_t from, std::uint64_t waited, std::uint64_t acquired,
                                std::uint16_t domain) {
  if (from >= options_.cores) throw std::invalid_argument("lock handoff from core " + std::to_string(from) + " that does not exist");
  if (waited > acquired) throw std::invalid_argument("lock acquired before the wait began");
  const LockHandoffRecord h{static_cast<std::uint16_t>(RecordKind::lock_handoff), domain, from, waited, acquired};
  append(core, &h, sizeof h);
}

void TraceBuilder::chore(std::uint32_t core, Chore chore, std::uint64_t begin, std::uint64_t end, std::uint32_t cores) {
  if (begin > end) throw std::invalid_argument("a chore ends before it begins");
  const ChoreRecord c{static_cast<std::uint16_t>(RecordKind::chore), static_cast<std::uint16_t>(chore), cores, begin, end};
  append(core, &c, sizeof c);
}

void TraceBuilder::finish(std::uint64_t end_time) {
  if (finished_) return;
  finished_ = true;
  flush_definitions();
  for (std::uint32_t core = 0; core < options_.cores; ++core) flush_core(core);
  const EndPayload end{sequence_, records_, 0, 0, end_time};
  chunk(ChunkType::end, kNoCore, &end, sizeof end);
  if (std::fflush(file_) != 0) throw std::runtime_error("trace file " + path_ + ": write failed: " + std::strerror(errno));
}

void TraceBuilder::define(DefinitionType type, std::uint32_t a, std::uint64_t b, std::uint64_t c, const std::string& text) {
  if (text.size() > 0xFFFF) throw std::invalid_argument("a definition's text is at most 65535 bytes");
  const Definition d{static_cast<std::uint16_t>(type), static_cast<std::uint16_t>(text.size()), a, b, c};
  const std::size_t at = definitions_.size();
  definitions_.resize(at + sizeof d + ((text.size() + 7) & ~std::size_t{7}), 0);
  std::memcpy(definitions_.data() + at, &d, sizeof d);
  std::memcpy(definitions_.data() + at + sizeof d, text.data(), text.size());
  if (definitions_.size() >= kFlushBytes) flush_definitions();
}

void TraceBuilder::append(std::uint32_t core, const void* record, std::size_t size) {
  if (finished_) throw std::logic_error("a record after finish()");
  if (core >= options_.cores) {
    throw std::invalid_argument("core " + std::to_string(core) + " in a trace of " + std::to_string(options_.cores) + " cores");
  }
  auto& bytes = events_[core];
  // A unit's counter deltas follow its record in the same chunk, so flush before, not after.
  if (bytes.size() >= kFlushBytes) flush_core(core);
  const auto* data = static_cast<const unsigned char*>(record);
  bytes.insert(bytes.end(), data, data + size);
  ++records_;
}

void TraceBuilder::flush_core(std::uint32_t core) {
  auto& bytes = events_[core];
  if (bytes.empty()) return;
  flush_definitions();  // definitions go out no later than the records that name them
  chunk(ChunkType::events, static_cast<std::uint16_t>(core), bytes.data(), bytes.size());
  bytes.clear();
}

void TraceBuilder::flush_definitions() {
  if (definitions_.empty()) return;
  chunk(ChunkType::definitions, kNoCore, definitions_.data(), definitions_.size());
  definitions_.clear();
}

void TraceBuilder::chunk(ChunkType type, std::uint16_t core, const void* payload, std::size_t size) {
  const ChunkHeader h = chunk_header(type, core, payload, size, sequence_++);
  write(&h, sizeof h);
  write(payload, size);
}

void TraceBuilder::write(const void* data, std::size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
    throw std::runtime_error("trace file " + path_ + ": write failed: " + std::strerror(errno));
  }
}

}  // namespace moirai::trace
