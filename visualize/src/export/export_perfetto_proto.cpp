// Perfetto's own protobuf trace format (docs/export.md): a thread track per core with a slice per
// unit and its life-line segments nested in it, idle spans and chores as slices, constraints as
// flows from the freeing unit's slice to the freed unit's work slice, counters on counter tracks, user
// events as instants. Each core is a packet sequence of its own, written in time order: names
// are interned, timestamps are deltas on an incremental clock, the core's track is the default,
// so a unit costs its bytes in events, not in repeated names and times. The messages are
// written from the field numbers Perfetto publishes in protos/perfetto/trace/ (trace.proto,
// trace_packet.proto, clock_snapshot.proto, trace_packet_defaults.proto, interned_data/,
// track_event/): what each number below means is said next to it.
#include "moirai/visualize/export/export.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/integrity.h"
#include "export/export_common.h"
#include "moirai/core/chore.h"
#include "export/protobuf_wire.h"

namespace moirai::visualize {

namespace {

using detail::ProtoMessage;

// Trace
constexpr std::uint32_t kTracePacket = 1;  // repeated TracePacket packet
// TracePacket
constexpr std::uint32_t kTimestamp = 8;                 // uint64 timestamp
constexpr std::uint32_t kClockSnapshot = 6;             // ClockSnapshot clock_snapshot
constexpr std::uint32_t kSequenceId = 10;               // uint32 trusted_packet_sequence_id
constexpr std::uint32_t kTrackEvent = 11;               // TrackEvent track_event
constexpr std::uint32_t kInternedData = 12;             // InternedData interned_data
constexpr std::uint32_t kSequenceFlags = 13;            // uint32 sequence_flags
constexpr std::uint32_t kTracePacketDefaults = 59;      // TracePacketDefaults trace_packet_defaults
constexpr std::uint32_t kTrackDescriptor = 60;          // TrackDescriptor track_descriptor
constexpr std::uint64_t kIncrementalStateCleared = 1;   // SEQ_INCREMENTAL_STATE_CLEARED
constexpr std::uint64_t kNeedsIncrementalState = 2;     // SEQ_NEEDS_INCREMENTAL_STATE
// TracePacketDefaults
constexpr std::uint32_t kDefaultClockId = 58;           // uint32 timestamp_clock_id
constexpr std::uint32_t kTrackEventDefaults = 11;       // TrackEventDefaults track_event_defaults
// TrackEventDefaults (numbers shared with TrackEvent)
constexpr std::uint32_t kDefaultTrackUuid = 11;         // uint64 track_uuid
constexpr std::uint32_t kDefaultCounterTracks = 31;     // repeated uint64 extra_counter_track_uuids
// ClockSnapshot, ClockSnapshot.Clock
constexpr std::uint32_t kClocks = 1;                    // repeated Clock clocks
constexpr std::uint32_t kClockId = 1;                   // uint32 clock_id
constexpr std::uint32_t kClockTimestamp = 2;            // uint64 timestamp
constexpr std::uint32_t kClockIncremental = 3;          // bool is_incremental
constexpr std::uint64_t kBoottime = 6;                  // BuiltinClock BOOTTIME: the trace clock
constexpr std::uint64_t kSequenceClock = 64;            // the first sequence-scoped clock id
// TrackDescriptor
constexpr std::uint32_t kTrackUuid = 1;                 // uint64 uuid
constexpr std::uint32_t kTrackName = 2;                 // string name
constexpr std::uint32_t kTrackProcess = 3;              // ProcessDescriptor process
constexpr std::uint32_t kTrackThread = 4;               // ThreadDescriptor thread
constexpr std::uint32_t kTrackParent = 5;               // uint64 parent_uuid
constexpr std::uint32_t kTrackCounter = 8;              // CounterDescriptor counter
// ProcessDescriptor, ThreadDescriptor
constexpr std::uint32_t kPid = 1;                       // int32 pid (both)
constexpr std::uint32_t kProcessName = 6;               // string process_name
constexpr std::uint32_t kTid = 2;                       // int32 tid
constexpr std::uint32_t kThreadName = 5;                // string thread_name
// TrackEvent
constexpr std::uint32_t kCategoryIids = 3;              // repeated uint64 category_iids
constexpr std::uint32_t kDebugAnnotations = 4;          // repeated DebugAnnotation debug_annotations
constexpr std::uint32_t kEventType = 9;                 // Type type
constexpr std::uint32_t kNameIid = 10;                  // uint64 name_iid
constexpr std::uint32_t kEventTrackUuid = 11;           // uint64 track_uuid
constexpr std::uint32_t kCounterValues = 12;            // repeated int64 extra_counter_values
constexpr std::uint32_t kEventName = 23;                // string name
constexpr std::uint32_t kFlowIds = 47;                  // repeated fixed64 flow_ids
constexpr std::uint32_t kTerminatingFlowIds = 48;       // repeated fixed64 terminating_flow_ids
constexpr std::uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3;  // Type
// DebugAnnotation
constexpr std::uint32_t kAnnotationNameIid = 1;         // uint64 name_iid
constexpr std::uint32_t kAnnotationInt = 4;             // int64 int_value
constexpr std::uint32_t kAnnotationString = 6;          // string string_value
constexpr std::uint32_t kAnnotationName = 10;           // string name
constexpr std::uint32_t kAnnotationStringIid = 17;      // uint64 string_value_iid
// InternedData; each entry is {iid = 1, name (or str) = 2}
constexpr std::uint32_t kInternedCategories = 1;        // repeated EventCategory event_categories
constexpr std::uint32_t kInternedNames = 2;             // repeated EventName event_names
constexpr std::uint32_t kInternedAnnotationNames = 3;   // repeated DebugAnnotationName debug_annotation_names
constexpr std::uint32_t kInternedStrings = 29;          // repeated InternedString debug_annotation_string_values

constexpr std::uint64_t kProcessTrack = 1;  // track uuids: the run's process, then the cores, then counters
constexpr std::uint64_t kProcessId = 1;

// Interned is one interning index: its texts by iid, and which sequence last emitted each, as
// every sequence must emit an entry before its first use (iids are the same on every sequence).
class Interned {
 public:
  explicit Interned(std::uint32_t field) : field_(field) {}
  // add gives a text its iid.
  std::uint64_t add(std::string text) {
    texts_.push_back(std::move(text));
    emitted_on_.push_back(0);
    return texts_.size();
  }
  // use returns the iid, adding its entry to `interned` when `sequence` has not had it yet.
  std::uint64_t use(std::uint64_t iid, std::uint32_t sequence, ProtoMessage& interned, ProtoMessage& scratch) {
    if (emitted_on_[iid - 1] != sequence) {
      emitted_on_[iid - 1] = sequence;
      scratch.clear();
      scratch.varint(1, iid).bytes(2, texts_[iid - 1]);
      interned.message(field_, scratch);
    }
    return iid;
  }

 private:
  std::uint32_t field_;
  std::vector<std::string> texts_;
  std::vector<std::uint32_t> emitted_on_;
};

class PerfettoProtoWriter {
 public:
  PerfettoProtoWriter(const detail::ExportModel& model, detail::OutFile& out) : model_(model), trace_(model.trace), out_(out) {
    decision_ = names_.add(detail::kDecisionSegment);
    work_ = names_.add(detail::kWorkSegment);
    communication_ = names_.add(detail::kCommunicationSegment);
    lock_wait_ = names_.add(detail::kLockWaitSegment);
    constraint_update_ = names_.add(detail::kConstraintUpdateSegment);
    idle_ = names_.add("idle");
    wake_up_ = names_.add(std::string(chore_name(Chore::wake_up)));
    vp_shell_ = names_.add(std::string(chore_name(Chore::vp_shell)));
    unit_category_ = categories_.add("unit");
    for (const char* name : {"unit", "ended_by", "os_taken_ns", "switches", "migrations", "cores", "phase"}) {
      annotation_iids_.push_back(annotation_names_.add(name));
    }
    begin_ = strings_.add("begin");
    end_ = strings_.add("end");
  }

  void write() {
    describe_tracks();
    write_metadata();
    for (std::uint32_t core = 0; core < trace_.core_count; ++core) write_core(core);
  }

 private:
  enum Annotation : std::size_t { kUnit, kEndedBy, kOsTaken, kSwitches, kMigrations, kCores, kPhase };

  std::uint64_t core_track(std::uint32_t core) const { return kProcessTrack + 1 + core; }
  std::uint64_t counter_track(std::uint32_t core, std::size_t counter) const {
    return kProcessTrack + 1 + trace_.core_count + std::uint64_t{core} * trace_.counters.size() + counter;
  }

  void emit(const ProtoMessage& packet) {
    frame_.clear();
    frame_.message(kTracePacket, packet);
    out_ << frame_.view();
  }

  void describe_track(ProtoMessage& track) {
    packet_.clear();
    packet_.message(kTrackDescriptor, track);
    emit(packet_);
  }

  // describe_tracks: the run as a process, each core a thread of it, each core's counters its
  // counter tracks.
  void describe_tracks() {
    ProtoMessage track, descriptor;
    std::string program = "moirai run";
    if (auto found = trace_.metadata.find("command_line"); found != trace_.metadata.end() && !found->second.empty()) {
      program = found->second.substr(0, found->second.find(' '));
      program = program.substr(program.rfind('/') + 1);
    }
    descriptor.varint(kPid, kProcessId).bytes(kProcessName, program);
    track.varint(kTrackUuid, kProcessTrack).message(kTrackProcess, descriptor);
    describe_track(track);
    for (std::uint32_t core = 0; core < trace_.core_count; ++core) {
      const std::string name = "core " + std::to_string(core);
      descriptor.clear();
      descriptor.varint(kPid, kProcessId).varint(kTid, core + 1).bytes(kThreadName, name);  // tid 0 is the kernel's idle
      track.clear();
      track.varint(kTrackUuid, core_track(core)).bytes(kTrackName, name).message(kTrackThread, descriptor);
      describe_track(track);
      for (std::size_t c = 0; c < trace_.counters.size(); ++c) {
        track.clear();
        track.varint(kTrackUuid, counter_track(core, c))
            .varint(kTrackParent, core_track(core))
            .bytes(kTrackName, name + " " + trace_.counters[c])
            .bytes(kTrackCounter, "");
        describe_track(track);
      }
    }
  }

  // write_metadata puts the trace's metadata on an instant at time 0 of the process track, as
  // the details of one event, on a sequence of its own.
  void write_metadata() {
    event_.clear();
    event_.varint(kEventType, kInstant).varint(kEventTrackUuid, kProcessTrack).bytes(kEventName, "trace metadata");
    ProtoMessage annotation;
    const auto annotate_text = [&](const std::string& key, const std::string& value) {
      annotation.clear();
      annotation.bytes(kAnnotationName, key).bytes(kAnnotationString, value);
      event_.message(kDebugAnnotations, annotation);
    };
    for (const auto& [key, value] : trace_.metadata) annotate_text(key, value);
    // What the trace lost (where it was cut, what the reader left out), as every export says it.
    for (const auto& [name, text] : detail::integrity_notes(trace_)) annotate_text(name, text);
    packet_.clear();
    packet_.varint(kTimestamp, 0)
        .varint(kSequenceId, trace_.core_count + 1)
        .varint(kSequenceFlags, kIncrementalStateCleared)
        .message(kTrackEvent, event_);
    emit(packet_);
  }

  // start_sequence opens a core's packet sequence: its interning cleared, its track and counter
  // tracks the defaults, and its incremental clock starting at the trace clock's 0.
  void start_sequence(std::uint32_t core) {
    sequence_ = core + 1;
    last_ns_ = 0;
    ProtoMessage event_defaults, defaults, snapshot, clock;
    event_defaults.varint(kDefaultTrackUuid, core_track(core));
    for (std::size_t c = 0; c < trace_.counters.size(); ++c) event_defaults.varint(kDefaultCounterTracks, counter_track(core, c));
    defaults.varint(kDefaultClockId, kSequenceClock).message(kTrackEventDefaults, event_defaults);
    clock.varint(kClockId, kBoottime).varint(kClockTimestamp, 0);
    snapshot.message(kClocks, clock);
    clock.clear();
    clock.varint(kClockId, kSequenceClock).varint(kClockTimestamp, 0).varint(kClockIncremental, 1);
    snapshot.message(kClocks, clock);
    packet_.clear();
    packet_.varint(kSequenceId, sequence_)
        .varint(kSequenceFlags, kIncrementalStateCleared)
        .message(kTracePacketDefaults, defaults)
        .message(kClockSnapshot, snapshot);
    emit(packet_);
  }

  // event starts a track event at `ns` on the core's track; the sequence's clock never goes
  // back, so a time before the previous event's (a damaged trace) is taken as that time.
  void event(std::uint64_t type, std::int64_t ns, std::uint64_t name = 0) {
    event_.clear();
    event_.varint(kEventType, type);
    if (name != 0) event_.varint(kNameIid, names_.use(name, sequence_, interned_, scratch_));
    event_ns_ = std::max(ns, last_ns_);
  }
  // finish writes the event as a packet: its time as a delta, the interned data it introduced.
  void finish() {
    packet_.clear();
    packet_.varint(kTimestamp, static_cast<std::uint64_t>(event_ns_ - last_ns_))
        .varint(kSequenceId, sequence_)
        .varint(kSequenceFlags, kNeedsIncrementalState)
        .message(kTrackEvent, event_);
    if (!interned_.empty()) {
      packet_.message(kInternedData, interned_);
      interned_.clear();
    }
    last_ns_ = event_ns_;
    emit(packet_);
  }
  void begin(std::int64_t ns, std::uint64_t name) {
    event(kSliceBegin, ns, name);
    finish();
  }
  void end(std::int64_t ns) {
    event(kSliceEnd, ns);
    finish();
  }

  void annotate(Annotation name, std::int64_t value) {
    scratch_.clear();
    scratch_.varint(kAnnotationNameIid, annotation_names_.use(annotation_iids_[name], sequence_, interned_, annotation_));
    scratch_.varint(kAnnotationInt, static_cast<std::uint64_t>(value));
    event_.message(kDebugAnnotations, scratch_);
  }
  void annotate_string(Annotation name, std::uint64_t string_iid) {
    scratch_.clear();
    scratch_.varint(kAnnotationNameIid, annotation_names_.use(annotation_iids_[name], sequence_, interned_, annotation_));
    scratch_.varint(kAnnotationStringIid, strings_.use(string_iid, sequence_, interned_, annotation_));
    event_.message(kDebugAnnotations, scratch_);
  }

  std::uint64_t cached(std::unordered_map<std::uint64_t, std::uint64_t>& cache, Interned& index, std::uint64_t key, auto make) {
    auto [it, added] = cache.try_emplace(key, 0);
    if (added) it->second = index.add(make());
    return it->second;
  }
  // vp_name is the iid of a unit slice's name, "name #id": Perfetto colours slices by name.
  std::uint64_t vp_name(std::uint64_t vp) {
    return cached(vp_names_, names_, vp, [&] { return model_.vp_name(vp) + " #" + std::to_string(vp); });
  }
  std::uint64_t ending(const trace::UnitRecord& r) {
    return cached(endings_, strings_, (std::uint64_t{r.ended_by} << 32) | r.site, [&] { return model_.ending(r); });
  }
  // chore_iid is the iid of a chore slice's name; estimated runtime work's is added when first
  // used, so exports of traces without it keep their iids.
  std::uint64_t chore_iid(Chore chore) {
    if (chore == Chore::wake_up) return wake_up_;
    if (chore == Chore::vp_shell) return vp_shell_;
    if (estimated_ == 0) estimated_ = names_.add(std::string(chore_name(Chore::estimated)));
    return estimated_;
  }
  std::uint64_t user_event_name(std::uint32_t name) {
    return cached(user_event_names_, names_, name, [&] {
      auto found = trace_.user_event_names.find(name);
      return found != trace_.user_event_names.end() ? found->second : "user event " + std::to_string(name);
    });
  }

  void counter_values(const trace::Unit* unit) {
    for (std::size_t c = 0; c < trace_.counters.size(); ++c) {
      event_.varint(kCounterValues, unit != nullptr && c < unit->counters.size() ? unit->counters[c] : 0);
    }
  }

  void write_core(std::uint32_t core) {
    start_sequence(core);
    // The core's chores, each a slice inside the decision or idle slice it lies in (cut at that
    // slice's end, where a damaged trace has it run over).
    auto chores = model_.chores(core);
    const auto chores_before = [&](std::uint64_t time) {
      const std::int64_t limit = time == UINT64_MAX ? INT64_MAX : model_.ns(time);
      chores.before(time, [&](const trace::ChoreRecord& c) {
        event(kSliceBegin, model_.ns(c.begin), chore_iid(static_cast<Chore>(c.chore)));
        annotate(kCores, c.cores);
        finish();
        end(std::min(model_.ns(c.end), limit));
      });
    };
    const auto on_idle = [&](const trace::Span& span, std::uint32_t) {
      chores_before(span.begin);
      begin(model_.ns(span.begin), idle_);
      chores_before(span.end);
      end(model_.ns(span.end));
    };
    const auto on_user_event = [&](const trace::Trace::UserEvent& e) {
      event(kInstant, model_.ns(e.record.time), user_event_name(e.record.name));
      annotate_string(kPhase, e.record.phase == 1 ? begin_ : end_);
      annotate(kUnit, static_cast<std::int64_t>(e.record.unit));
      finish();
    };
    const auto on_unit = [&](std::uint32_t node, auto& user_events_before) {
      const trace::Unit& unit = model_.unit(node);
      const trace::UnitRecord& r = unit.record;
      chores_before(r.assign);
      // The unit's slice starts the flows of the constraints it satisfied; those that freed it
      // end on its work slice. The trace processor drops a flow whose end it meets before its
      // start, and a decision to animate may begin before its freeing unit's slice (the core
      // waited for the lock meanwhile), but work begins only after its freeing unit's did.
      event(kSliceBegin, model_.ns(r.assign), vp_name(r.vp));
      event_.varint(kCategoryIids, categories_.use(unit_category_, sequence_, interned_, annotation_));
      for (auto [a, last] = model_.out(node); a != last; ++a) event_.fixed64(kFlowIds, *a + 1);
      annotate(kUnit, static_cast<std::int64_t>(r.unit));
      annotate_string(kEndedBy, ending(r));
      if (unit.taken != 0) {  // what the OS took from the work span (trace::Unit::taken)
        annotate(kOsTaken, model_.duration_ns(r.begin, r.begin + unit.taken));
        annotate(kSwitches, unit.switches);
        annotate(kMigrations, unit.migrations);
      }
      finish();
      begin(model_.ns(r.assign), decision_);
      chores_before(r.begin);
      end(model_.ns(r.begin));
      event(kSliceBegin, model_.ns(r.begin), work_);
      for (auto [a, last] = model_.in(node); a != last; ++a) event_.fixed64(kTerminatingFlowIds, *a + 1);
      counter_values(&unit);
      finish();
      user_events_before(r.end);
      event(kSliceEnd, model_.ns(r.end));
      counter_values(nullptr);
      finish();
      begin(model_.ns(r.end), communication_);
      if (r.locked > r.end) {
        begin(model_.ns(r.end), lock_wait_);
        end(model_.ns(r.locked));
      }
      end(model_.ns(r.handler));
      begin(model_.ns(r.handler), constraint_update_);
      end(model_.ns(r.handler_end));
      end(model_.ns(r.handler_end));
    };
    model_.walk_core(core, on_idle, on_unit, on_user_event);
    chores_before(UINT64_MAX);
  }

  const detail::ExportModel& model_;
  const trace::Trace& trace_;
  detail::OutFile& out_;
  Interned names_{kInternedNames}, categories_{kInternedCategories}, annotation_names_{kInternedAnnotationNames},
      strings_{kInternedStrings};
  std::uint64_t decision_ = 0, work_ = 0, communication_ = 0, lock_wait_ = 0, constraint_update_ = 0, idle_ = 0, wake_up_ = 0,
                vp_shell_ = 0, estimated_ = 0, unit_category_ = 0, begin_ = 0, end_ = 0;
  std::vector<std::uint64_t> annotation_iids_;
  std::unordered_map<std::uint64_t, std::uint64_t> vp_names_, endings_, user_event_names_;
  std::uint32_t sequence_ = 0;
  std::int64_t last_ns_ = 0, event_ns_ = 0;  // the sequence's clock, the pending event's time
  // Reused so that a million units cost no allocation each: the packet being built, its event,
  // the interned entries it introduces, a framed packet, and two scratch messages.
  ProtoMessage packet_, event_, interned_, frame_, scratch_, annotation_;
};

}  // namespace

ExportCounts export_perfetto_proto(const trace::Trace& trace, const std::string& out) {
  detail::OutFile file(out);
  const detail::ExportModel model(trace);
  PerfettoProtoWriter(model, file).write();
  file.close();
  return ExportCounts{model.graph.nodes.size(), model.arcs.size(), model.cross_core, model.unresolved, file.bytes()};
}

}  // namespace moirai::visualize
