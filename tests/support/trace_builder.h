// TraceBuilder writes a trace in the documented format directly, for tests whose answer must be
// known exactly (docs/trace-format.md). Times are clock ticks at 1 GHz.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "moirai/trace/format.h"

namespace moirai::test_support {

class TraceBuilder {
 public:
  explicit TraceBuilder(std::uint32_t cores) : cores_(cores), events_(cores) {
    const char* names[] = {"end_vp", "create_vp", "send_from_to", "receive_from_to", "send_of_type_to",
                           "receive_of_type_to", "send_of_type", "receive_of_type", "singleton", "singleton end"};
    for (std::uint32_t kind = 0; kind < 10; ++kind) define(trace::DefinitionType::construct, kind, 0, 0, names[kind]);
  }

  // site defines call site `id` as file:line.
  void site(std::uint32_t id, const std::string& file, std::uint32_t line) {
    define(trace::DefinitionType::call_site, id, line, 0, file + std::string(1, '\0') + "f");
  }
  // counters names the counters every unit record carries (call before adding units).
  void counters(std::vector<std::string> names) { counters_ = std::move(names); }
  // unit adds a unit on `core`: decision [assign, begin), work [begin, end), then communication
  // and update up to `handler_end` (split evenly), with one delta per counter.
  void unit(std::uint32_t core, std::uint64_t unit, std::uint64_t vp, std::uint64_t assign, std::uint64_t begin,
            std::uint64_t end, std::uint64_t handler_end, std::uint16_t ended_by, std::uint32_t site,
            std::vector<std::uint64_t> deltas = {}) {
    trace::UnitRecord r{};
    r.kind = static_cast<std::uint16_t>(trace::RecordKind::unit);
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
    deltas.resize(counters_.size());
    std::vector<unsigned char> bytes(sizeof r + 8 * deltas.size());
    std::memcpy(bytes.data(), &r, sizeof r);
    if (!deltas.empty()) std::memcpy(bytes.data() + sizeof r, deltas.data(), 8 * deltas.size());
    append(core, bytes.data(), bytes.size());
    if (vps_.insert({vp, true}).second) define(trace::DefinitionType::vp, 0xFFFFFFFF, vp, site, "vp" + std::to_string(vp));
  }
  void idle(std::uint32_t core, std::uint64_t begin, std::uint64_t end) {
    trace::SpanRecord s{static_cast<std::uint16_t>(trace::RecordKind::idle), 0, 0, begin, end};
    append(core, &s, sizeof s);
  }
  void constraint(std::uint32_t core, std::uint16_t construct, std::uint64_t from, std::uint64_t to, std::uint64_t time) {
    trace::ConstraintRecord c{static_cast<std::uint16_t>(trace::RecordKind::constraint), construct, 0, from, to, 0, time};
    append(core, &c, sizeof c);
  }
  // lock_handoff says that `core` waited for the runtime lock from `waited` until `from_core`
  // released it at `acquired`.
  void lock_handoff(std::uint32_t core, std::uint32_t from_core, std::uint64_t waited, std::uint64_t acquired) {
    trace::LockHandoffRecord h{static_cast<std::uint16_t>(trace::RecordKind::lock_handoff), 0, from_core, waited, acquired};
    append(core, &h, sizeof h);
  }

  // user_event marks the begin (or end) of phase `name` inside `unit` at `time`.
  void user_event(std::uint32_t core, std::uint32_t name_id, const std::string& name, std::uint64_t unit, std::uint64_t time,
                  bool begin) {
    if (event_names_.insert(name_id).second) define(trace::DefinitionType::user_event, name_id, 0, 0, name);
    trace::UserEventRecord e{static_cast<std::uint16_t>(trace::RecordKind::user_event), static_cast<std::uint16_t>(begin ? 1 : 2),
                             name_id, unit, time};
    append(core, &e, sizeof e);
  }

  // write writes the whole trace to `path`.
  void write(const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    trace::FileHeader header{};
    std::memcpy(header.magic, trace::kMagic, sizeof header.magic);
    header.version_major = trace::kVersionMajor;
    out.write(reinterpret_cast<const char*>(&header), sizeof header);
    const std::string metadata = "format=moirai-trace\nlanguage=SSR\ncores=" + std::to_string(cores_) +
                                 "\nclock_source=monotonic\nclock_hz=1000000000\ncommand_line=hand-built\ncounters=" + join(counters_) + "\n";
    chunk(out, trace::ChunkType::metadata, trace::kNoCore, metadata.data(), metadata.size());
    chunk(out, trace::ChunkType::definitions, trace::kNoCore, definitions_.data(), definitions_.size());
    std::uint64_t records = 0;
    for (std::uint32_t core = 0; core < cores_; ++core) {
      if (!events_[core].empty()) chunk(out, trace::ChunkType::events, static_cast<std::uint16_t>(core), events_[core].data(), events_[core].size());
      records += counts_[core];
    }
    trace::EndPayload end{sequence_, records, 0, 0, 0};
    chunk(out, trace::ChunkType::end, trace::kNoCore, &end, sizeof end);
  }

 private:
  static std::string join(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
    return text;
  }
  void define(trace::DefinitionType type, std::uint32_t a, std::uint64_t b, std::uint64_t c, const std::string& text) {
    trace::Definition d{static_cast<std::uint16_t>(type), static_cast<std::uint16_t>(text.size()), a, b, c};
    const std::size_t at = definitions_.size();
    definitions_.resize(at + sizeof d + ((text.size() + 7) & ~std::size_t{7}), 0);
    std::memcpy(definitions_.data() + at, &d, sizeof d);
    std::memcpy(definitions_.data() + at + sizeof d, text.data(), text.size());
  }
  void append(std::uint32_t core, const void* record, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(record);
    events_[core].insert(events_[core].end(), bytes, bytes + size);
    ++counts_[core];
  }
  void chunk(std::ofstream& out, trace::ChunkType type, std::uint16_t core, const void* payload, std::size_t size) {
    trace::ChunkHeader h{trace::kChunkMagic, static_cast<std::uint16_t>(type), core, static_cast<std::uint32_t>(size),
                         static_cast<std::uint32_t>(crc32(0L, static_cast<const Bytef*>(payload), static_cast<uInt>(size))),
                         sequence_++};
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(static_cast<const char*>(payload), static_cast<std::streamsize>(size));
  }

  std::uint32_t cores_;
  std::vector<std::string> counters_;
  std::set<std::uint32_t> event_names_;
  std::vector<std::vector<unsigned char>> events_;
  std::map<std::uint32_t, std::uint64_t> counts_;
  std::vector<unsigned char> definitions_;
  std::map<std::uint64_t, bool> vps_;
  std::uint64_t sequence_ = 0;
};

}  // namespace moirai::test_support
