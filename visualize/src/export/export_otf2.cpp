// OTF2 for Vampir and the Score-P tools (docs/export.md), through the OTF2 library: a location
// per core; every life-line segment of a unit a region entered and left, named by the construct
// and call site that ended the unit; constraints between cores as matched MPI point-to-point
// messages (the records Vampir draws as lines between locations); counters as a metric class;
// user events as markers. Event buffers go to disk as they fill, one core after another.
#include "moirai/visualize/export/export.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analyses/integrity.h"
#include "export/export_common.h"
#include "moirai/visualize/output/output_file.h"

namespace moirai::visualize {

namespace {

constexpr OTF2_CommRef kConstraintComm = 0;
constexpr OTF2_GroupRef kLocationsGroup = 0, kRanksGroup = 1;
constexpr OTF2_MetricRef kCounterClass = 0;
constexpr OTF2_MarkerRef kUserEventMarker = 0;

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

// Otf2Failure is an OTF2 call that failed; export_otf2 names the archive in its message.
class Otf2Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// check turns an OTF2 error into an Otf2Failure naming what failed.
void check(OTF2_ErrorCode code, const std::string& what) {
  if (code != OTF2_SUCCESS) throw Otf2Failure("OTF2: " + what + ": " + OTF2_Error_GetName(code) + ": " + OTF2_Error_GetDescription(code));
}

// Otf2Errors holds what OTF2 reports through its error callback while an archive is written: a
// buffered write that fails as a file is closed (a full disk, a file-size limit) is said there,
// "File is too large: Write of buffered data failed!", and reaches no return code. It takes the
// callback (and so OTF2's own message on stderr) for its life and gives back the former one.
class Otf2Errors {
 public:
  Otf2Errors() : former_(OTF2_Error_RegisterCallback(&Otf2Errors::heard, this)) {}
  ~Otf2Errors() { OTF2_Error_RegisterCallback(former_, nullptr); }
  Otf2Errors(const Otf2Errors&) = delete;
  Otf2Errors& operator=(const Otf2Errors&) = delete;

  // first is the first error OTF2 reported, "" when none.
  const std::string& first() const noexcept { return first_; }

 private:
  static OTF2_ErrorCode heard(void* self, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* format,
                              va_list arguments) {
    auto& errors = *static_cast<Otf2Errors*>(self);
    if (errors.first_.empty()) {
      char text[512];
      std::vsnprintf(text, sizeof text, format, arguments);
      errors.first_ = std::string("OTF2: ") + text + ": " + OTF2_Error_GetDescription(code);
    }
    return code;
  }

  OTF2_ErrorCallback former_;
  std::string first_;
};

// Archive closes the OTF2 archive however the export ends.
struct Archive {
  OTF2_Archive* handle = nullptr;
  ~Archive() {
    if (handle != nullptr) OTF2_Archive_Close(handle);
  }
};

// Segment is one kind of region, in life-line order.
// The chores come after them: regions of their own, nested in the decision to animate or alone
// in an idle stretch.
enum class Segment : std::uint8_t { decision, work, communication, lock_wait, constraint_update, wake_up, vp_shell, estimated };

class Otf2Writer {
 public:
  Otf2Writer(const detail::ExportModel& model, OTF2_Archive* archive) : model_(model), trace_(model.trace), archive_(archive) {}

  void write() {
    check(OTF2_Archive_OpenEvtFiles(archive_), "opening the event files");
    markers_ = OTF2_Archive_GetMarkerWriter(archive_);
    if (markers_ == nullptr) throw Otf2Failure("OTF2: cannot open the marker writer");
    check(OTF2_MarkerWriter_WriteDefMarker(markers_, kUserEventMarker, "Moirai", "user event", OTF2_SEVERITY_NONE), "marker definition");
    // A location per core that has events: a trace may claim tens of thousands of cores and
    // use a few, and OTF2 writes a file per location.
    for (std::uint32_t core = 0; core < trace_.core_count; ++core) {
      if (model_.has_events(core)) cores_.push_back(core);
    }
    // OTF2's readers refuse an archive without a location: a trace with no records (cut after
    // its header) still gets core 0's, empty.
    if (cores_.empty()) cores_.push_back(0);
    events_per_core_.resize(cores_.size());
    for (std::size_t rank = 0; rank < cores_.size(); ++rank) rank_of_[cores_[rank]] = static_cast<std::uint32_t>(rank);
    for (std::size_t rank = 0; rank < cores_.size(); ++rank) write_core(cores_[rank], rank);
    check(OTF2_Archive_CloseMarkerWriter(archive_, markers_), "closing the markers");
    check(OTF2_Archive_CloseEvtFiles(archive_), "closing the event files");
    // Every location gets a (empty) local definition file, as the OTF2 readers expect.
    check(OTF2_Archive_OpenDefFiles(archive_), "opening the definition files");
    for (const std::uint32_t core : cores_) {
      OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(archive_, core);
      if (local == nullptr) throw Otf2Failure("OTF2: cannot open the definitions of core " + std::to_string(core));
      check(OTF2_Archive_CloseDefWriter(archive_, local), "closing a local definition file");
    }
    check(OTF2_Archive_CloseDefFiles(archive_), "closing the definition files");
    write_definitions();
  }

  std::uint64_t messages() const { return messages_; }

 private:
  // string interns a definition string.
  OTF2_StringRef string(const std::string& text) {
    auto [it, added] = strings_.try_emplace(text, static_cast<OTF2_StringRef>(string_order_.size()));
    if (added) string_order_.push_back(&it->first);
    return it->second;
  }

  // region is the region of one segment of units ended by one construct at one call site
  // (decision to animate has neither: it is the assigner's).
  OTF2_RegionRef region(Segment segment, const trace::UnitRecord& r) {
    const bool own = segment < Segment::wake_up && segment != Segment::decision;
    const auto key = std::make_tuple(static_cast<std::uint8_t>(segment), own ? r.ended_by : 0u, own ? r.site : 0u);
    auto [it, added] = regions_.try_emplace(key, static_cast<OTF2_RegionRef>(region_defs_.size()));
    if (added) {
      static constexpr const char* kNames[] = {detail::kDecisionSegment,  detail::kWorkSegment,
                                               detail::kCommunicationSegment, detail::kLockWaitSegment,
                                               detail::kConstraintUpdateSegment, chore_name(Chore::wake_up).data(),
                                               chore_name(Chore::vp_shell).data(), chore_name(Chore::estimated).data()};
      const std::string name = kNames[static_cast<int>(segment)];
      RegionDef def{string(own ? name + ": " + model_.ending(r) : name), segment == Segment::work, string(""), 0};
      if (own) {
        auto site = trace_.sites.find(r.site);
        if (site != trace_.sites.end()) {
          def.file = string(site->second.file);
          def.line = site->second.line;
        }
      }
      region_defs_.push_back(def);
    }
    return it->second;
  }

  // collective_op is the OTF2 operation of a construct the trace says is a collective.
  std::optional<OTF2_CollectiveOp> collective_op(std::uint32_t construct) const {
    const auto found = trace_.collective_constructs.find(construct);
    if (found == trace_.collective_constructs.end()) return std::nullopt;
    static const std::map<std::string, OTF2_CollectiveOp> kOps = {
        {"barrier", OTF2_COLLECTIVE_OP_BARRIER},     {"bcast", OTF2_COLLECTIVE_OP_BCAST},
        {"gather", OTF2_COLLECTIVE_OP_GATHER},       {"scatter", OTF2_COLLECTIVE_OP_SCATTER},
        {"allgather", OTF2_COLLECTIVE_OP_ALLGATHER}, {"alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
        {"reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER}, {"reduce", OTF2_COLLECTIVE_OP_REDUCE},
        {"allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE}, {"scan", OTF2_COLLECTIVE_OP_SCAN}};
    return kOps.at(found->second);  // the reader admits only these
  }

  // Envelope is an MPI message's tag and length as OTF2 writes them.
  struct Envelope {
    std::uint32_t tag = 0;
    std::uint64_t bytes = 0;
  };

  // envelope is the tag and bytes of arc `a`'s message, from the trace's message record (3.7); a
  // trace without one says neither, and the arc's index stands for the tag, so that every send
  // pairs with exactly one receive, with length 0.
  Envelope envelope(std::uint32_t a) const {
    const trace::MessageRecord* m = trace_.message(trace_.constraints[model_.arcs[a].constraint].match);
    return m == nullptr ? Envelope{a, 0} : Envelope{static_cast<std::uint32_t>(m->tag), m->bytes};
  }

  // as_message says whether an arc is written as a message: those the trace says are messages
  // when it names message constructs, else every arc between cores.
  bool as_message(const detail::ExportModel::Arc& arc) const {
    return trace_.message_constructs.empty() ? arc.cross_core : arc.message;
  }

  void enter(OTF2_EvtWriter* w, std::uint64_t tick, Segment segment, const trace::UnitRecord& r) {
    check(OTF2_EvtWriter_Enter(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(tick)), region(segment, r)), "enter");
  }
  void leave(OTF2_EvtWriter* w, std::uint64_t tick, Segment segment, const trace::UnitRecord& r) {
    check(OTF2_EvtWriter_Leave(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(tick)), region(segment, r)), "leave");
  }

  void write_core(std::uint32_t core, std::size_t rank) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive_, core);
    if (w == nullptr) throw Otf2Failure("OTF2: cannot open the events of core " + std::to_string(core));
    if (core < trace_.core_count) write_events(w, core);
    uint64_t events = 0;
    check(OTF2_EvtWriter_GetNumberOfEvents(w, &events), "counting events");
    events_per_core_[rank] = events;
    check(OTF2_Archive_CloseEvtWriter(archive_, w), "closing the events of core " + std::to_string(core));
  }

  // write_events writes one core's units, chores, messages, metrics and markers in time order.
  void write_events(OTF2_EvtWriter* w, std::uint32_t core) {
    const std::size_t counters = trace_.counters.size();
    std::vector<OTF2_Type> types(counters, OTF2_TYPE_UINT64);
    std::vector<OTF2_MetricValue> values(counters);  // the core's work counts so far (accumulated)
    for (OTF2_MetricValue& v : values) v.unsigned_int = 0;
    const auto metric = [&](std::uint64_t tick) {
      if (counters == 0) return;
      check(OTF2_EvtWriter_Metric(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(tick)), kCounterClass,
                                  static_cast<std::uint8_t>(counters), types.data(), values.data()),
            "metric");
    };
    const auto on_user_event = [&](const trace::Trace::UserEvent& event) {
      auto name = trace_.user_event_names.find(event.record.name);
      const std::string text = (event.record.phase == 1 ? "begin " : "end ") +
                               (name != trace_.user_event_names.end() ? name->second : std::to_string(event.record.name));
      check(OTF2_MarkerWriter_WriteMarker(markers_, static_cast<OTF2_TimeStamp>(model_.ns(event.record.time)), 0, kUserEventMarker,
                                          OTF2_MARKER_SCOPE_LOCATION, core, text.c_str()),
            "marker");
    };
    auto chores = model_.chores(core);
    const auto chores_before = [&](std::uint64_t time) {
      chores.before(time, [&](const trace::ChoreRecord& c) {
        const Segment segment = c.chore == static_cast<std::uint16_t>(Chore::wake_up)     ? Segment::wake_up
                                : c.chore == static_cast<std::uint16_t>(Chore::estimated) ? Segment::estimated
                                                                                          : Segment::vp_shell;
        enter(w, c.begin, segment, trace::UnitRecord{});
        leave(w, c.end, segment, trace::UnitRecord{});
      });
    };
    std::optional<OTF2_CollectiveOp> collective;  // begun by the core's previous unit's call
    std::uint64_t collective_unit = 0;             // ... that unit
    const auto on_unit = [&](std::uint32_t node, auto& user_events_before) {
      const trace::Unit& unit = model_.unit(node);
      const trace::UnitRecord& r = unit.record;
      chores_before(r.assign);
      for (auto [a, end] = model_.in(node); a != end; ++a) {
        const detail::ExportModel::Arc& arc = model_.arcs[*a];
        if (!as_message(arc)) continue;
        const Envelope e = envelope(*a);
        check(OTF2_EvtWriter_MpiRecv(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(r.assign)), rank_of_.at(model_.graph.nodes[arc.from].core),
                                     kConstraintComm, e.tag, e.bytes),
              "receive");
      }
      enter(w, r.assign, Segment::decision, r);
      chores_before(r.begin);
      leave(w, r.begin, Segment::decision, r);
      if (collective) {
        // The collective call ended the core's previous unit and returns as this one begins.
        const auto call = trace_.collective_calls.find(collective_unit);
        const std::uint64_t sent = call == trace_.collective_calls.end() ? 0 : call->second.bytes;
        check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(r.begin)), *collective,
                                              kConstraintComm, OTF2_UNDEFINED_UINT32, sent, 0),
              "collective end");
        collective.reset();
      }
      enter(w, r.begin, Segment::work, r);
      metric(r.begin);
      user_events_before(r.end);
      for (std::size_t c = 0; c < counters && c < unit.counters.size(); ++c) values[c].unsigned_int += unit.counters[c];
      metric(r.end);
      leave(w, r.end, Segment::work, r);
      enter(w, r.end, Segment::communication, r);
      for (auto [a, end] = model_.out(node); a != end; ++a) {
        const detail::ExportModel::Arc& arc = model_.arcs[*a];
        if (!as_message(arc)) continue;
        const Envelope e = envelope(*a);
        check(OTF2_EvtWriter_MpiSend(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(r.end)), rank_of_.at(model_.graph.nodes[arc.to].core),
                                     kConstraintComm, e.tag, e.bytes),
              "send");
        ++messages_;
      }
      if (r.locked > r.end) {
        enter(w, r.end, Segment::lock_wait, r);
        leave(w, r.locked, Segment::lock_wait, r);
      }
      leave(w, r.handler, Segment::communication, r);
      enter(w, r.handler, Segment::constraint_update, r);
      leave(w, r.handler_end, Segment::constraint_update, r);
      collective = collective_op(r.ended_by);
      collective_unit = r.unit;
      if (collective) {
        check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, static_cast<OTF2_TimeStamp>(model_.ns(r.handler_end))), "collective begin");
      }
    };
    const auto on_idle = [&](const trace::Span& span, std::uint32_t) { chores_before(span.end); };
    model_.walk_core(core, on_idle, on_unit, on_user_event);
    chores_before(UINT64_MAX);
  }

  void write_definitions() {
    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive_);
    if (d == nullptr) throw Otf2Failure("OTF2: cannot open the global definitions");
    // Time: nanoseconds since the run's first reading (converted from the trace's clock_hz).
    check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0,
                                                    static_cast<std::uint64_t>(model_.ns(model_.origin + model_.graph.makespan)),
                                                    start_unix_ns()),
          "clock properties");
    // Strings are written first: every later definition refers to them.
    const OTF2_StringRef machine = string(trace_.metadata.count("host") ? trace_.metadata.at("host") : "machine");
    const OTF2_StringRef node_class = string("machine"), run = string("Moirai run"), comm = string("constraints");
    const OTF2_StringRef unit_name = string("#"), locations = string("cores");
    std::vector<OTF2_StringRef> core_names, counter_names;
    for (const std::uint32_t core : cores_) core_names.push_back(string("core " + std::to_string(core)));
    for (const std::string& counter : trace_.counters) counter_names.push_back(string(counter));
    // A trace that says each core's node (core_nodes): a system-tree node per node under the
    // machine, and a process (location group) per core under its node, as an MPI rank is.
    std::map<std::string, std::pair<OTF2_SystemTreeNodeRef, OTF2_StringRef>> nodes;
    const bool per_node = !trace_.core_nodes.empty();
    const OTF2_StringRef node_word = per_node ? string("node") : 0;
    for (const std::uint32_t core : cores_) {
      if (!per_node || core >= trace_.core_nodes.size()) continue;
      const std::string& node = trace_.core_nodes[core];
      if (!nodes.count(node)) nodes[node] = {static_cast<OTF2_SystemTreeNodeRef>(nodes.size() + 1), string(node)};
    }
    for (std::size_t s = 0; s < string_order_.size(); ++s) {
      check(OTF2_GlobalDefWriter_WriteString(d, static_cast<OTF2_StringRef>(s), string_order_[s]->c_str()), "string");
    }
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, machine, node_class, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
    for (const auto& [name, refs] : nodes) {
      check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, refs.first, refs.second, node_word, 0), "system tree node");
    }
    if (!per_node) {
      check(OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, run, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP),
            "location group");
    }
    for (std::size_t rank = 0; rank < cores_.size(); ++rank) {
      const auto group = static_cast<OTF2_LocationGroupRef>(per_node ? rank : 0);
      if (per_node) {
        const auto node = cores_[rank] < trace_.core_nodes.size() ? nodes.at(trace_.core_nodes[cores_[rank]]).first : 0;
        check(OTF2_GlobalDefWriter_WriteLocationGroup(d, group, core_names[rank], OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "location group");
      }
      check(OTF2_GlobalDefWriter_WriteLocation(d, cores_[rank], core_names[rank], OTF2_LOCATION_TYPE_CPU_THREAD, events_per_core_[rank],
                                               group),
            "location");
    }
    for (std::size_t r = 0; r < region_defs_.size(); ++r) {
      const RegionDef& def = region_defs_[r];
      check(OTF2_GlobalDefWriter_WriteRegion(d, static_cast<OTF2_RegionRef>(r), def.name, def.name, def.name,
                                             def.work ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_ARTIFICIAL,
                                             def.work ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MEASUREMENT_SYSTEM, OTF2_REGION_FLAG_NONE,
                                             def.file, def.line, def.line),
            "region");
    }
    // The messages' communicator: rank k is the k-th core with events (its location).
    const std::vector<std::uint64_t> locations_of_ranks(cores_.begin(), cores_.end());
    std::vector<std::uint64_t> ranks(cores_.size());
    for (std::size_t rank = 0; rank < cores_.size(); ++rank) ranks[rank] = rank;
    check(OTF2_GlobalDefWriter_WriteGroup(d, kLocationsGroup, locations, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(cores_.size()), locations_of_ranks.data()),
          "locations group");
    check(OTF2_GlobalDefWriter_WriteGroup(d, kRanksGroup, comm, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                          static_cast<std::uint32_t>(ranks.size()), ranks.data()),
          "ranks group");
    check(OTF2_GlobalDefWriter_WriteComm(d, kConstraintComm, comm, kRanksGroup, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "communicator");
    if (!trace_.counters.empty()) {
      std::vector<OTF2_MetricMemberRef> refs;
      for (std::size_t c = 0; c < trace_.counters.size(); ++c) {
        refs.push_back(static_cast<OTF2_MetricMemberRef>(c));
        check(OTF2_GlobalDefWriter_WriteMetricMember(d, refs.back(), counter_names[c], counter_names[c], OTF2_METRIC_TYPE_PAPI,
                                                     OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, unit_name),
              "metric member");
      }
      check(OTF2_GlobalDefWriter_WriteMetricClass(d, kCounterClass, static_cast<std::uint8_t>(refs.size()), refs.data(),
                                                  OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU),
            "metric class");
    }
    check(OTF2_Archive_CloseGlobalDefWriter(archive_, d), "closing the global definitions");
  }

  std::uint64_t start_unix_ns() const {
    auto found = trace_.metadata.find("start_unix_ns");
    return found == trace_.metadata.end() ? 0 : std::strtoull(found->second.c_str(), nullptr, 10);
  }

  struct RegionDef {
    OTF2_StringRef name;
    bool work;
    OTF2_StringRef file;
    std::uint32_t line;
  };
  const detail::ExportModel& model_;
  const trace::Trace& trace_;
  OTF2_Archive* archive_;
  OTF2_MarkerWriter* markers_ = nullptr;
  std::unordered_map<std::string, OTF2_StringRef> strings_;
  std::vector<const std::string*> string_order_;  // keys of strings_, by reference number
  std::map<std::tuple<std::uint8_t, std::uint32_t, std::uint32_t>, OTF2_RegionRef> regions_;
  std::vector<RegionDef> region_defs_;
  std::vector<std::uint32_t> cores_;            // the cores with events, a location each
  std::unordered_map<std::uint32_t, std::uint32_t> rank_of_;  // core -> its rank (index in cores_)
  std::vector<std::uint64_t> events_per_core_;  // by rank
  std::uint64_t messages_ = 0;
};

// archive_size is the bytes of every file under the archive's directory.
std::uint64_t archive_size(const std::filesystem::path& directory) {
  std::uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    if (entry.is_regular_file()) bytes += entry.file_size();
  }
  return bytes;
}

// write_archive writes the archive into the directory's temporary and puts it in place.
ExportCounts write_archive(const detail::ExportModel& model, OutputDirectory& directory, const Otf2Errors& errors) {
  Archive archive;
  archive.handle = OTF2_Archive_Open(directory.temporary_path().c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                     OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive.handle == nullptr) throw Otf2Failure("OTF2 could not create the archive");
  check(OTF2_Archive_SetFlushCallbacks(archive.handle, &flush_callbacks, nullptr), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive.handle), "collective callbacks");
  check(OTF2_Archive_SetCreator(archive.handle, "moirai export"), "creator");
  // What the reader left out of the trace travels with the archive (otf2-print -A shows it).
  for (const auto& [name, text] : detail::integrity_notes(model.trace)) {
    std::string property = "MOIRAI::" + name;
    std::transform(property.begin(), property.end(), property.begin(), [](unsigned char c) { return std::toupper(c); });
    check(OTF2_Archive_SetProperty(archive.handle, property.c_str(), text.c_str(), true), "integrity property");
  }
  Otf2Writer writer(model, archive.handle);
  writer.write();
  const OTF2_ErrorCode closed = OTF2_Archive_Close(archive.handle);
  archive.handle = nullptr;
  check(closed, "closing the archive");
  if (!errors.first().empty()) throw Otf2Failure(errors.first());
  const std::uint64_t bytes = archive_size(directory.temporary_path());
  directory.commit();
  return ExportCounts{model.graph.nodes.size(), writer.messages(), model.cross_core, model.unresolved, bytes};
}

}  // namespace

ExportCounts export_otf2(const trace::Trace& trace, const std::string& out) {
  // OTF2 writes an archive: a directory with the anchor file, definitions and one event file
  // per location. It is filled beside `out` and renamed into place once whole, so a failed
  // export (a full disk, a file-size limit) leaves no truncated archive; an existing `out` must
  // be an empty directory, so old event files cannot mix in.
  OutputDirectory directory(out);
  const detail::ExportModel model(trace);
  const Otf2Errors errors;
  try {
    return write_archive(model, directory, errors);
  } catch (const Otf2Failure& failure) {
    // A call that failed says what it did; the first error OTF2 reported says why.
    const std::string why = errors.first().empty() || errors.first() == failure.what() ? "" : " (" + errors.first() + ")";
    std::string message = "cannot write " + out + ": " + failure.what() + why;
    // The archive is written into a temporary beside `out`: its files are named as they would be.
    const std::string temporary = directory.temporary_path();
    for (std::size_t at = message.find(temporary); at != std::string::npos; at = message.find(temporary, at + out.size())) {
      message.replace(at, temporary.size(), out);
    }
    throw ExportError(message);
  }
}

}  // namespace moirai::visualize
