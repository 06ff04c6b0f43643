// A strict reader of Perfetto's protobuf trace for the export tests, written apart from the
// exporter (no shared code): it decodes the wire format, keeps each packet sequence's state as
// Perfetto's trace processor does (incremental state cleared and needed, interned names,
// defaults, sequence-scoped incremental clocks), sorts the track events by time and builds the
// slices per track and the flows between them, reporting every thing the trace processor would
// drop or refuse: a field it cannot decode, an iid never interned, an end without a begin, a
// flow terminated before it began or never bound. Field numbers are Perfetto's
// (protos/perfetto/trace/).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace moirai::test_support {

struct PerfettoSlice {
  std::uint64_t track = 0;
  std::int64_t begin = 0, end = -1;  // ns; -1: never ended
  std::string name, category;
  std::size_t depth = 0;
  std::size_t parent = SIZE_MAX;  // the enclosing slice on its track; SIZE_MAX at depth 0
  std::map<std::string, std::string> args;  // debug annotations, values as text
};

struct PerfettoInstant {
  std::uint64_t track = 0;
  std::int64_t time = 0;
  std::string name;
  std::map<std::string, std::string> args;
};

struct PerfettoFlow {
  int begins = 0, ends = 0;
  std::size_t from = SIZE_MAX, to = SIZE_MAX;  // slices
};

struct PerfettoTrace {
  std::map<std::uint64_t, std::string> tracks;    // uuid -> name (thread name for thread tracks)
  std::map<std::uint64_t, bool> counter_tracks;   // uuid -> is a counter track
  std::vector<PerfettoSlice> slices;
  std::vector<PerfettoInstant> instants;
  std::map<std::uint64_t, PerfettoFlow> flows;
  std::map<std::uint64_t, std::vector<std::int64_t>> counter_values;  // counter track -> values
  std::vector<std::string> errors;
};

// binds_units says a flow is bound as the export binds a constraint: it starts on the freeing
// unit's slice and ends on the freed unit's work slice (nested in that unit's slice), which
// begins only after the freeing unit's did; a decision to animate may begin earlier.
inline bool binds_units(const PerfettoTrace& trace, const PerfettoFlow& flow) {
  if (flow.from == SIZE_MAX || flow.to == SIZE_MAX) return false;
  const PerfettoSlice &from = trace.slices[flow.from], &to = trace.slices[flow.to];
  return from.category == "unit" && to.name == "work" && to.parent != SIZE_MAX && trace.slices[to.parent].category == "unit";
}

namespace perfetto_reader_detail {

struct Field {
  std::uint32_t number = 0, wire = 0;
  std::uint64_t value = 0;
  std::string_view bytes;
};

// Fields decodes one message; a malformed one adds an error and stops.
inline std::vector<Field> fields(std::string_view message, std::vector<std::string>& errors) {
  std::vector<Field> out;
  std::size_t i = 0;
  const auto varint = [&](std::uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= message.size()) return false;
      const auto byte = static_cast<unsigned char>(message[i++]);
      value |= std::uint64_t{byte & 0x7fu} << shift;
      if (byte < 0x80) return true;
    }
    return false;
  };
  while (i < message.size()) {
    std::uint64_t key = 0;
    if (!varint(key)) {
      errors.push_back("bad field key");
      return out;
    }
    Field f;
    f.number = static_cast<std::uint32_t>(key >> 3);
    f.wire = static_cast<std::uint32_t>(key & 7);
    if (f.number == 0) {
      errors.push_back("field number 0");
      return out;
    }
    if (f.wire == 0) {
      if (!varint(f.value)) {
        errors.push_back("bad varint");
        return out;
      }
    } else if (f.wire == 1) {
      if (i + 8 > message.size()) {
        errors.push_back("cut fixed64");
        return out;
      }
      for (int b = 7; b >= 0; --b) f.value = (f.value << 8) | static_cast<unsigned char>(message[i + static_cast<std::size_t>(b)]);
      i += 8;
    } else if (f.wire == 2) {
      std::uint64_t length = 0;
      if (!varint(length) || length > message.size() - i) {
        errors.push_back("bad length");
        return out;
      }
      f.bytes = message.substr(i, length);
      i += length;
    } else {
      errors.push_back("wire type " + std::to_string(f.wire) + " not written by the export");
      return out;
    }
    out.push_back(f);
  }
  return out;
}

struct Sequence {
  bool valid = false;
  std::map<std::uint32_t, std::map<std::uint64_t, std::string>> interned;  // InternedData field -> iid -> text
  std::uint64_t default_track = 0;
  std::vector<std::uint64_t> default_counter_tracks;
  std::uint32_t default_clock = 0;
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> clocks;  // sequence clock -> {last reading, offset to BOOTTIME}
};

struct Event {
  std::int64_t time = 0;
  std::size_t order = 0;
  std::uint64_t type = 0, track = 0;
  std::string name, category;
  std::vector<std::uint64_t> flow_ids, terminating;
  std::map<std::string, std::string> args;
  std::vector<std::uint64_t> counter_tracks;
  std::vector<std::int64_t> counter_values;
};

}  // namespace perfetto_reader_detail

// read_perfetto_trace reads a whole trace file's bytes.
inline PerfettoTrace read_perfetto_trace(std::string_view bytes) {
  using namespace perfetto_reader_detail;
  PerfettoTrace trace;
  std::vector<std::string>& errors = trace.errors;
  std::map<std::uint32_t, Sequence> sequences;
  std::vector<Event> events;
  const auto lookup = [&](Sequence& s, std::uint32_t index, std::uint64_t iid) -> std::string {
    auto found = s.interned[index].find(iid);
    if (found == s.interned[index].end()) {
      errors.push_back("iid " + std::to_string(iid) + " of interned field " + std::to_string(index) + " never interned on its sequence");
      return "";
    }
    return found->second;
  };
  for (const Field& packet_field : fields(bytes, errors)) {
    if (packet_field.number != 1 || packet_field.wire != 2) {
      errors.push_back("a Trace holds only packets (field 1)");
      continue;
    }
    const std::vector<Field> packet = fields(packet_field.bytes, errors);
    std::uint32_t seq_id = 0, flags = 0, clock_id = 0;
    bool has_time = false, has_seq = false;
    std::uint64_t time = 0;
    std::string_view event_bytes, defaults, interned, snapshot, descriptor;
    for (const Field& f : packet) {
      switch (f.number) {
        case 8: has_time = true; time = f.value; break;
        case 10: has_seq = true; seq_id = static_cast<std::uint32_t>(f.value); break;
        case 13: flags = static_cast<std::uint32_t>(f.value); break;
        case 58: clock_id = static_cast<std::uint32_t>(f.value); break;
        case 11: event_bytes = f.bytes; break;
        case 59: defaults = f.bytes; break;
        case 12: interned = f.bytes; break;
        case 6: snapshot = f.bytes; break;
        case 60: descriptor = f.bytes; break;
        default: errors.push_back("packet field " + std::to_string(f.number) + " not written by the export");
      }
    }
    Sequence& s = sequences[seq_id];
    if (flags & 1) {
      s = Sequence();
      s.valid = true;
    }
    if ((flags & 2) && !s.valid) errors.push_back("a packet needs incremental state its sequence never cleared: the trace processor skips it");
    if (!defaults.empty()) {
      if (!has_seq) errors.push_back("defaults without a sequence");
      for (const Field& f : fields(defaults, errors)) {
        if (f.number == 58) s.default_clock = static_cast<std::uint32_t>(f.value);
        if (f.number == 11) {
          for (const Field& d : fields(f.bytes, errors)) {
            if (d.number == 11) s.default_track = d.value;
            if (d.number == 31) s.default_counter_tracks.push_back(d.value);
          }
        }
      }
    }
    if (!interned.empty()) {
      if (!s.valid) errors.push_back("interned data on a sequence whose state was never cleared: the trace processor drops it");
      for (const Field& f : fields(interned, errors)) {
        std::uint64_t iid = 0;
        std::string text;
        for (const Field& e : fields(f.bytes, errors)) {
          if (e.number == 1) iid = e.value;
          if (e.number == 2) text = std::string(e.bytes);
        }
        if (iid == 0) errors.push_back("interned entry with iid 0");
        auto [it, added] = s.interned[f.number].try_emplace(iid, text);
        if (!added && it->second != text) errors.push_back("iid " + std::to_string(iid) + " reused for another text");
      }
    }
    if (!snapshot.empty()) {
      std::map<std::uint32_t, std::pair<std::int64_t, bool>> clocks;
      for (const Field& c : fields(snapshot, errors)) {
        if (c.number != 1) continue;
        std::uint32_t id = 0;
        std::int64_t value = 0;
        bool incremental = false;
        for (const Field& v : fields(c.bytes, errors)) {
          if (v.number == 1) id = static_cast<std::uint32_t>(v.value);
          if (v.number == 2) value = static_cast<std::int64_t>(v.value);
          if (v.number == 3) incremental = v.value != 0;
          if (v.number == 4 && v.value != 1) errors.push_back("clock unit other than 1 ns");
        }
        clocks[id] = {value, incremental};
      }
      if (!clocks.count(6)) errors.push_back("clock snapshot without BOOTTIME (the trace clock)");
      for (const auto& [id, value] : clocks) {
        if (id < 64) continue;
        if (id >= 128 || !value.second) errors.push_back("the export's clocks are sequence-scoped and incremental");
        // The first delta counts from the snapshot's reading, which is BOOTTIME's reading there.
        s.clocks[id] = {value.first, clocks[6].first - value.first};
      }
      continue;
    }
    if (!descriptor.empty()) {
      std::uint64_t uuid = 0;
      std::string name;
      bool counter = false;
      for (const Field& f : fields(descriptor, errors)) {
        if (f.number == 1) uuid = f.value;
        if (f.number == 2) name = std::string(f.bytes);
        if (f.number == 8) counter = true;
        if (f.number == 4) {
          for (const Field& t : fields(f.bytes, errors)) {
            if (t.number == 5 && name.empty()) name = std::string(t.bytes);
          }
        }
      }
      if (uuid == 0 || trace.tracks.count(uuid)) errors.push_back("track uuid " + std::to_string(uuid) + " zero or described twice");
      trace.tracks[uuid] = name;
      trace.counter_tracks[uuid] = counter;
      continue;
    }
    if (event_bytes.empty()) continue;
    if (!has_seq || seq_id == 0) errors.push_back("a track event without a sequence id: the trace processor refuses it");
    if (!has_time) errors.push_back("a track event without a timestamp");
    Event e;
    e.order = events.size();
    const std::uint32_t clock = clock_id != 0 ? clock_id : s.default_clock;
    if (clock >= 64) {
      auto found = s.clocks.find(clock);
      if (found == s.clocks.end()) {
        errors.push_back("a timestamp on a sequence clock no snapshot of its sequence defined");
      } else {
        found->second.first += static_cast<std::int64_t>(time);
        e.time = found->second.first + found->second.second;
      }
    } else {
      e.time = static_cast<std::int64_t>(time);
    }
    e.track = s.default_track;
    e.counter_tracks = s.default_counter_tracks;
    for (const Field& f : fields(event_bytes, errors)) {
      switch (f.number) {
        case 9: e.type = f.value; break;
        case 10: e.name = lookup(s, 2, f.value); break;
        case 23: e.name = std::string(f.bytes); break;
        case 3: e.category = lookup(s, 1, f.value); break;
        case 11: e.track = f.value; break;
        case 12: e.counter_values.push_back(static_cast<std::int64_t>(f.value)); break;
        case 47:
          if (f.wire != 1) errors.push_back("flow_ids are fixed64");
          e.flow_ids.push_back(f.value);
          break;
        case 48:
          if (f.wire != 1) errors.push_back("terminating_flow_ids are fixed64");
          e.terminating.push_back(f.value);
          break;
        case 4: {
          std::string key, value;
          for (const Field& a : fields(f.bytes, errors)) {
            if (a.number == 1) key = lookup(s, 3, a.value);
            if (a.number == 10) key = std::string(a.bytes);
            if (a.number == 4) value = std::to_string(static_cast<std::int64_t>(a.value));
            if (a.number == 6) value = std::string(a.bytes);
            if (a.number == 17) value = lookup(s, 29, a.value);
          }
          e.args[key] = value;
          break;
        }
        default: errors.push_back("track event field " + std::to_string(f.number) + " not written by the export");
      }
    }
    if (e.type < 1 || e.type > 3) errors.push_back("track event type " + std::to_string(e.type));
    if (!trace.tracks.count(e.track)) errors.push_back("an event on undescribed track " + std::to_string(e.track));
    events.push_back(std::move(e));
  }
  // The trace processor sorts events by time; ties keep the order read.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  std::map<std::uint64_t, std::vector<std::size_t>> open;  // track -> open slices
  std::map<std::uint64_t, bool> active;                    // flow -> begun, not terminated
  for (const Event& e : events) {
    if (!e.counter_values.empty()) {
      if (e.counter_values.size() > e.counter_tracks.size()) errors.push_back("more counter values than counter tracks");
      for (std::size_t c = 0; c < e.counter_values.size() && c < e.counter_tracks.size(); ++c) {
        if (!trace.counter_tracks[e.counter_tracks[c]]) errors.push_back("a counter value for a track that is no counter");
        trace.counter_values[e.counter_tracks[c]].push_back(e.counter_values[c]);
      }
    }
    auto& stack = open[e.track];
    if (e.type == 3) {
      trace.instants.push_back({e.track, e.time, e.name, e.args});
      continue;
    }
    if (e.type == 2) {
      if (stack.empty()) {
        errors.push_back("a slice end with no slice open on track " + std::to_string(e.track));
        continue;
      }
      trace.slices[stack.back()].end = e.time;
      stack.pop_back();
      continue;
    }
    const std::size_t slice = trace.slices.size();
    trace.slices.push_back({e.track, e.time, -1, e.name, e.category, stack.size(), stack.empty() ? SIZE_MAX : stack.back(), e.args});
    stack.push_back(slice);
    for (std::uint64_t id : e.flow_ids) {
      PerfettoFlow& flow = trace.flows[id];
      ++flow.begins;
      if (active[id]) errors.push_back("flow " + std::to_string(id) + " begins twice");
      active[id] = true;
      flow.from = slice;
    }
    for (std::uint64_t id : e.terminating) {
      PerfettoFlow& flow = trace.flows[id];
      ++flow.ends;
      if (!active[id]) {
        errors.push_back("flow " + std::to_string(id) + " terminated before it began: the trace processor drops it");
        continue;
      }
      active[id] = false;
      flow.to = slice;
    }
  }
  for (const auto& [track, stack] : open) {
    if (!stack.empty()) errors.push_back(std::to_string(stack.size()) + " slices never ended on track " + std::to_string(track));
  }
  for (const auto& [id, flow] : trace.flows) {
    if (flow.begins != 1 || flow.ends != 1 || flow.from == SIZE_MAX || flow.to == SIZE_MAX) {
      errors.push_back("flow " + std::to_string(id) + " not bound at both ends");
    }
  }
  return trace;
}

}  // namespace moirai::test_support
