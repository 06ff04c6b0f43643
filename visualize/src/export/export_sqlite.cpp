// SQLite for queries (docs/export.md has the schema and example queries): a table per entity of
// the trace (cores, VPs, units with their life-line segments, counter deltas, constraints, idle
// spans, user events), the report's idle causes and hints, and the run's metadata. Rows are
// inserted through prepared statements in one transaction; SQLite spills its pages to the file
// as its cache fills, and the indexes are built once at the end.
#include "moirai/visualize/export/export.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "analyses/integrity.h"
#include "export/export_common.h"
#include "moirai/visualize/analyses/report.h"
#include "moirai/visualize/analyses/run_summary.h"
#include "moirai/visualize/output/output_file.h"
#include "output/text_format.h"

namespace moirai::visualize {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE constructs (kind INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE call_sites (site INTEGER PRIMARY KEY, file TEXT, line INTEGER, function TEXT, name TEXT NOT NULL);
CREATE TABLE cores (core INTEGER PRIMARY KEY, units INTEGER, work_ns INTEGER, decision_ns INTEGER,
  communication_ns INTEGER, lock_wait_ns INTEGER, constraint_update_ns INTEGER, idle_ns INTEGER, os_taken_ns INTEGER,
  wake_up_ns INTEGER, vp_shell_ns INTEGER);
CREATE TABLE vps (vp INTEGER PRIMARY KEY, name TEXT, home_core INTEGER, creation_site INTEGER);
CREATE TABLE counters (counter INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE units (unit INTEGER PRIMARY KEY, vp INTEGER NOT NULL, core INTEGER NOT NULL,
  ended_by INTEGER NOT NULL, site INTEGER NOT NULL, began_by_site INTEGER,
  assign_ns INTEGER NOT NULL, begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, locked_ns INTEGER NOT NULL,
  handler_ns INTEGER NOT NULL, handler_end_ns INTEGER NOT NULL,
  decision_ns INTEGER NOT NULL, work_ns INTEGER NOT NULL, communication_ns INTEGER NOT NULL,
  lock_wait_ns INTEGER NOT NULL, constraint_update_ns INTEGER NOT NULL, critical INTEGER NOT NULL,
  os_taken_ns INTEGER NOT NULL, switches INTEGER NOT NULL, migrations INTEGER NOT NULL);
CREATE TABLE unit_counters (unit INTEGER NOT NULL, counter INTEGER NOT NULL, delta INTEGER NOT NULL,
  PRIMARY KEY (unit, counter)) WITHOUT ROWID;
CREATE TABLE constraints (id INTEGER PRIMARY KEY, construct INTEGER NOT NULL, from_unit INTEGER NOT NULL,
  to_unit INTEGER NOT NULL, match_id INTEGER, time_ns INTEGER NOT NULL, cross_core INTEGER, resolved INTEGER NOT NULL);
CREATE TABLE messages (message INTEGER PRIMARY KEY, construct INTEGER NOT NULL, from_core INTEGER NOT NULL,
  to_core INTEGER NOT NULL, from_unit INTEGER NOT NULL, to_unit INTEGER NOT NULL, send_ns INTEGER NOT NULL,
  receive_ns INTEGER NOT NULL, send_site INTEGER NOT NULL, receive_site INTEGER, bytes INTEGER, tag INTEGER,
  communicator INTEGER, any_source INTEGER, any_tag INTEGER);
CREATE TABLE communicators (communicator INTEGER PRIMARY KEY, size INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE collective_calls (unit INTEGER PRIMARY KEY, communicator INTEGER NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE idle_causes (cause INTEGER PRIMARY KEY, construct TEXT NOT NULL, site TEXT, idle_ns INTEGER,
  periods INTEGER, cores TEXT);
CREATE TABLE idle (id INTEGER PRIMARY KEY, core INTEGER NOT NULL, begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  idle_ns INTEGER NOT NULL, kind TEXT NOT NULL, cause INTEGER);
CREATE TABLE hints (rank INTEGER PRIMARY KEY, rule TEXT NOT NULL, message TEXT, cores TEXT, begin_ns INTEGER,
  end_ns INTEGER, site TEXT, lost_ns INTEGER);
CREATE TABLE user_events (id INTEGER PRIMARY KEY, core INTEGER NOT NULL, unit INTEGER, name TEXT, phase TEXT,
  time_ns INTEGER NOT NULL);
CREATE TABLE chores (id INTEGER PRIMARY KEY, core INTEGER NOT NULL, chore TEXT NOT NULL, cores INTEGER NOT NULL,
  begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);
)sql";

// Built after the rows are in: one sort each instead of a B-tree update per row.
constexpr const char* kIndexes = R"sql(
CREATE INDEX units_by_core ON units (core, begin_ns);
CREATE INDEX units_by_vp ON units (vp, begin_ns);
CREATE INDEX units_by_site ON units (site);
CREATE INDEX constraints_by_from ON constraints (from_unit);
CREATE INDEX constraints_by_to ON constraints (to_unit);
CREATE INDEX idle_by_cause ON idle (cause);
CREATE INDEX idle_by_core ON idle (core, begin_ns);
)sql";

// Database owns the connection and runs statements, every failure an ExportError.
class Database {
 public:
  // Database opens `file` (the temporary), naming `path` (the target) in its errors.
  Database(const std::string& file, const std::string& path) : path_(path) {
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw ExportError("cannot write " + path + ": " + message);
    }
  }
  ~Database() {
    for (sqlite3_stmt* statement : statements_) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }
  // close finalizes the statements and closes the file, checking that SQLite wrote it whole.
  void close() {
    for (sqlite3_stmt* statement : statements_) sqlite3_finalize(statement);
    statements_.clear();
    if (sqlite3_close(db_) != SQLITE_OK) fail();
    db_ = nullptr;
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const char* sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
      sqlite3_free(error);
      fail();
    }
  }

  // Insert is a prepared INSERT whose values are bound in order, then run by row().
  class Insert {
   public:
    Insert(Database& db, sqlite3_stmt* statement) : db_(db), statement_(statement) {}
    Insert& operator()(std::int64_t value) { return check(sqlite3_bind_int64(statement_, ++column_, value)); }
    Insert& operator()(const std::string& text) {
      return check(sqlite3_bind_text(statement_, ++column_, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
    }
    Insert& null() { return check(sqlite3_bind_null(statement_, ++column_)); }
    void row() {
      if (sqlite3_step(statement_) != SQLITE_DONE) db_.fail();
      sqlite3_reset(statement_);
      column_ = 0;
    }

   private:
    Insert& check(int code) {
      if (code != SQLITE_OK) db_.fail();
      return *this;
    }
    Database& db_;
    sqlite3_stmt* statement_;
    int column_ = 0;
  };

  Insert insert(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) fail();
    statements_.push_back(statement);
    return Insert(*this, statement);
  }

  // fail names SQLite's error and, for a failed system call (a full disk, a file-size limit), the system's reason.
  [[noreturn]] void fail() {
    const int system = sqlite3_system_errno(db_);
    throw ExportError("cannot write " + path_ + ": " + sqlite3_errmsg(db_) + (system != 0 ? std::string(" (") + std::strerror(system) + ")" : ""));
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> statements_;
};

std::int64_t as_int(std::uint64_t value) { return static_cast<std::int64_t>(value); }

// write_report_tables is the one place that reads the report (report.h): the idle spans with
// their causes, the causes, the hints and the report's headline figures.
void write_report_tables(Database& db, const trace::Trace& trace, const detail::ExportModel& model) {
  const Report report = build_report(trace);
  const auto ns = [&](std::uint64_t ticks) { return model.duration_ns(model.origin, model.origin + ticks); };
  // Every idle period the report counts, the cores' time before their first record and after
  // their last included, so the table's sums agree with idle_causes and the report.
  auto idle = db.insert("INSERT INTO idle VALUES (?, ?, ?, ?, ?, ?, ?)");
  std::vector<std::int64_t> cause_ns(report.idle_causes.size(), 0);
  for (std::uint32_t i = 0; i < report.idle_periods.size(); ++i) {
    const IdlePeriod& period = report.idle_periods[i];
    idle(i)(period.core)(model.ns(period.begin))(model.ns(period.end))(ns(period.ticks))(std::string(idle_kind_name(period.kind)));
    (period.cause != Report::kNoCause ? idle(period.cause) : idle.null()).row();
    if (period.cause != Report::kNoCause) cause_ns[period.cause] += ns(period.ticks);
  }
  // A cause's time is the sum of its rows, each rounded to the nanosecond on its own, so the two
  // tables agree exactly whatever the clock rate.
  auto cause = db.insert("INSERT INTO idle_causes VALUES (?, ?, ?, ?, ?, ?)");
  for (std::uint32_t c = 0; c < report.idle_causes.size(); ++c) {
    const IdleCause& found = report.idle_causes[c];
    cause(c)(found.construct)(found.site)(cause_ns[c])(as_int(found.periods))(detail::core_set(found.cores)).row();
  }
  auto hint = db.insert("INSERT INTO hints VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (std::uint32_t h = 0; h < report.hints.size(); ++h) {
    const Hint& found = report.hints[h];
    hint(h + 1)(found.rule)(found.message)(detail::core_set(found.cores))(ns(found.begin))(ns(found.end))(found.site)(ns(found.lost)).row();
  }
  auto metadata = db.insert("INSERT INTO metadata VALUES (?, ?)");
  metadata(std::string("critical_path_work_ns"))(std::to_string(ns(report.critical_path_work))).row();
  metadata(std::string("parallelism"))(detail::fixed(report.parallelism, 3)).row();
  metadata(std::string("unit_size_verdict"))(report.unit_size_verdict).row();
}

void write_definitions(Database& db, const trace::Trace& trace, const detail::ExportModel& model) {
  auto metadata = db.insert("INSERT INTO metadata VALUES (?, ?)");
  for (const auto& [key, value] : trace.metadata) metadata(key)(value).row();
  metadata(std::string("time_unit"))(std::string("ns since the run's first reading (*_ns columns)")).row();
  metadata(std::string("makespan_ns"))(std::to_string(model.duration_ns(model.origin, model.origin + model.graph.makespan))).row();
  metadata(std::string("complete"))(std::string(trace.complete ? "1" : "0")).row();
  for (const auto& [name, text] : detail::integrity_notes(trace)) {
    if (!trace.metadata.contains(name)) metadata(name)(text).row();  // a merged trace's notes are its keys already
  }
  auto construct = db.insert("INSERT INTO constructs VALUES (?, ?)");
  for (std::uint32_t kind = 0; kind < trace.constructs.size(); ++kind) construct(kind)(trace.construct_name(kind)).row();
  auto site = db.insert("INSERT INTO call_sites VALUES (?, ?, ?, ?, ?)");
  for (const auto& [id, where] : trace.sites) site(id)(where.file)(where.line)(where.function)(trace.site_name(id)).row();
  auto core = db.insert("INSERT INTO cores VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const RunSummary summary = summarize(trace);
  const auto ns = [&](std::uint64_t ticks) { return model.duration_ns(model.origin, model.origin + ticks); };
  for (std::uint32_t c = 0; c < summary.cores.size(); ++c) {
    const CoreTime& t = summary.cores[c];
    core(c)(as_int(t.units))(ns(t.work))(ns(t.decision))(ns(t.communication))(ns(t.lock_wait))(ns(t.constraint_update))(ns(t.idle))(ns(t.os_taken))(ns(t.wake_ups))(ns(t.vp_shells)).row();
  }
  auto vp = db.insert("INSERT INTO vps VALUES (?, ?, ?, ?)");
  for (const trace::Trace::Vp& v : trace.vps) {
    vp(as_int(v.id))(v.name);
    (v.home_core == UINT32_MAX ? vp.null() : vp(v.home_core))(v.site).row();
  }
  auto counter = db.insert("INSERT INTO counters VALUES (?, ?)");
  for (std::uint32_t c = 0; c < trace.counters.size(); ++c) counter(c)(trace.counters[c]).row();
}

void write_units(Database& db, const trace::Trace& trace, const detail::ExportModel& model) {
  // The critical path of the program's dependencies (unit_graph.h), as a flag per node.
  std::vector<bool> critical(model.graph.nodes.size());
  for (std::uint32_t node : critical_path(model.graph, trace).nodes) critical[node] = true;
  auto unit = db.insert("INSERT INTO units VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto delta = db.insert("INSERT INTO unit_counters VALUES (?, ?, ?)");
  // Rows in unit id order: the table's key, so every insert appends to its B-tree.
  const UnitGraph& graph = model.graph;
  const std::size_t ids = graph.dense_node.empty() ? graph.node_of_id.size() : graph.dense_node.size();
  for (std::size_t i = 0; i < ids; ++i) {
    const std::uint32_t n = graph.dense_node.empty() ? graph.node_of_id[i] : graph.dense_node[i];
    if (n == UINT32_MAX) continue;
    const trace::Unit& u = model.unit(n);
    const trace::UnitRecord& r = u.record;
    const std::uint32_t previous = model.previous_of_vp(n);
    unit(as_int(r.unit))(as_int(r.vp))(u.core)(r.ended_by)(r.site);
    (previous == UINT32_MAX ? unit.null() : unit(model.unit(previous).record.site));
    unit(model.ns(r.assign))(model.ns(r.begin))(model.ns(r.end))(model.ns(r.locked))(model.ns(r.handler))(model.ns(r.handler_end));
    // Work is the work span less what the OS took from it (trace::Unit::work), as in the cores table.
    const std::int64_t span_ns = model.duration_ns(r.begin, r.end), taken_ns = std::min(span_ns, model.duration_ns(r.begin, r.begin + u.taken));
    unit(model.duration_ns(r.assign, r.begin))(span_ns - taken_ns)(model.duration_ns(r.locked, r.handler));
    unit(model.duration_ns(r.end, r.locked))(model.duration_ns(r.handler, r.handler_end))(critical[n] ? 1 : 0);
    unit(taken_ns)(u.switches)(u.migrations).row();
    for (std::uint32_t c = 0; c < u.counters.size(); ++c) delta(as_int(r.unit))(c)(as_int(u.counters[c])).row();
  }
  auto constraint = db.insert("INSERT INTO constraints VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  std::vector<std::int8_t> cross(trace.constraints.size(), -1);  // -1: unresolved
  for (const detail::ExportModel::Arc& arc : model.arcs) cross[arc.constraint] = arc.cross_core ? 1 : 0;
  for (std::uint32_t c = 0; c < trace.constraints.size(); ++c) {
    const trace::ConstraintRecord& k = trace.constraints[c];
    constraint(c)(k.construct)(as_int(k.from))(as_int(k.to));
    (k.match == 0 ? constraint.null() : constraint(as_int(k.match)))(model.ns(k.time));
    (cross[c] < 0 ? constraint.null() : constraint(cross[c]))(cross[c] >= 0 ? 1 : 0).row();
  }
  // A message is sent when its sender's call begins (the constraint's time) and received when the
  // receiver's call returns (the freed unit's begin), at the call site that began that unit.
  auto message = db.insert("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const detail::ExportModel::Arc& arc : model.arcs) {
    if (!arc.message) continue;
    const trace::ConstraintRecord& k = trace.constraints[arc.constraint];
    const trace::UnitRecord& to = model.unit(arc.to).record;
    const std::uint32_t receive_call = model.previous_of_vp(arc.to);
    message(as_int(k.match))(k.construct)(model.graph.nodes[arc.from].core)(model.graph.nodes[arc.to].core);
    message(as_int(k.from))(as_int(k.to))(model.ns(k.time))(model.ns(to.begin))(model.unit(arc.from).record.site);
    (receive_call == UINT32_MAX ? message.null() : message(model.unit(receive_call).record.site));
    // What the message carried, when the trace says (format 3.7); NULL otherwise.
    if (const trace::MessageRecord* m = trace.message(k.match)) {
      message(as_int(m->bytes))(m->tag)(m->comm)((m->flags & trace::kMessageAnySource) != 0 ? 1 : 0);
      message((m->flags & trace::kMessageAnyTag) != 0 ? 1 : 0).row();
    } else {
      message.null().null().null().null().null().row();
    }
  }
  auto communicator = db.insert("INSERT INTO communicators VALUES (?, ?, ?)");
  for (const auto& [id, comm] : trace.communicators) communicator(id)(as_int(comm.size))(comm.name).row();
  auto collective = db.insert("INSERT INTO collective_calls VALUES (?, ?, ?)");
  for (const auto& [ended, call] : trace.collective_calls) collective(as_int(ended))(call.comm)(as_int(call.bytes)).row();
  auto event = db.insert("INSERT INTO user_events VALUES (?, ?, ?, ?, ?, ?)");
  for (std::uint32_t e = 0; e < trace.user_events.size(); ++e) {
    const trace::Trace::UserEvent& ue = trace.user_events[e];
    auto name = trace.user_event_names.find(ue.record.name);
    event(e)(ue.core)(as_int(ue.record.unit))(name != trace.user_event_names.end() ? name->second : std::to_string(ue.record.name));
    event(std::string(ue.record.phase == 1 ? "begin" : "end"))(model.ns(ue.record.time)).row();
  }
  auto chore = db.insert("INSERT INTO chores VALUES (?, ?, ?, ?, ?, ?)");
  for (std::uint32_t c = 0; c < trace.chores.size(); ++c) {
    const trace::Trace::ChoreSpan& span = trace.chores[c];
    chore(c)(span.core)(std::string(chore_name(static_cast<Chore>(span.record.chore))))(span.record.cores);
    chore(model.ns(span.record.begin))(model.ns(span.record.end)).row();
  }
}

}  // namespace

ExportCounts export_sqlite(const trace::Trace& trace, const std::string& out) {
  // The database is built in a temporary beside `out` and renamed over it only once whole, so a
  // failed export leaves whatever `out` was (a file, a device, the input trace) untouched.
  OutputFile file(out);
  const detail::ExportModel model(trace);
  Database db(file.temporary_path(), out);
  // An export is rebuilt from the trace when anything goes wrong, so no journal and no syncs.
  db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384; BEGIN");
  db.exec(kSchema);
  write_definitions(db, trace, model);
  write_units(db, trace, model);
  write_report_tables(db, trace, model);
  db.exec(kIndexes);
  db.exec("COMMIT");
  db.close();
  std::error_code error;
  const std::uint64_t bytes = std::filesystem::file_size(file.temporary_path(), error);
  file.commit();
  return ExportCounts{model.graph.nodes.size(), trace.constraints.size(), model.cross_core, model.unresolved, error ? 0 : bytes};
}

}  // namespace moirai::visualize
