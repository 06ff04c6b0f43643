// moirai::trace::TraceBuilder: what it writes reads back exactly, and what the reader would
// refuse it refuses when given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "moirai/trace/builder.h"
#include "moirai/trace/reader.h"
#include "support/trace_builder.h"

namespace {

using namespace moirai;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "moirai_builder_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
}

trace::BuilderOptions options(std::uint32_t cores, std::vector<std::string> counters = {}) {
  trace::BuilderOptions o = test_support::ssr_options(cores, std::move(counters));
  o.command_line = "builder test";
  return o;
}

TEST(TraceBuilder, EveryRecordKindReadsBackExactly) {
  const std::string path = temp_path("kinds");
  {
    trace::TraceBuilder out(path, options(2, {"PAPI_TOT_INS"}));
    out.site(3, "app.cpp", 12, "main");
    out.vp(1, "main", 0, 3);
    out.group(9, 4, "message type 'x'");
    trace::UnitRecord r{};
    r.ended_by = 4;
    r.site = 3;
    r.unit = 5;
    r.vp = 1;
    r.assign = 10;
    r.begin = 12;
    r.end = 20;
    r.locked = 25;
    r.handler = 27;
    r.handler_end = 30;
    const std::uint64_t instructions[] = {777};
    out.unit(0, r, instructions);
    out.lock_handoff(0, 1, 20, 25);
    out.group_member(0, 9, 1, 5);
    out.constraint(0, 4, 5, 6, 29, 1);
    out.idle(1, 0, 31);
    out.unit(1, 6, 2, 31, 32, 40, 44, 0, 3);  // VP 2 is defined for it
    out.chore(1, Chore::wake_up, 31, 32, 1);
    out.finish(44);
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_TRUE(t.complete);
  EXPECT_EQ(t.core_count, 2u);
  EXPECT_EQ(t.metadata.at("command_line"), "builder test");
  EXPECT_EQ(t.construct_name(4), "send_of_type_to");
  EXPECT_EQ(t.site_name(3), "app.cpp:12");
  ASSERT_EQ(t.units.size(), 2u);
  EXPECT_EQ(t.units[0].record.locked, 25u);
  EXPECT_EQ(t.units[0].counters, (std::vector<std::uint64_t>{777}));
  EXPECT_EQ(t.units[1].core, 1u);
  EXPECT_EQ(t.units[1].counters, (std::vector<std::uint64_t>{0}));
  ASSERT_EQ(t.vps.size(), 2u);
  EXPECT_EQ(t.vps[0].name, "main");
  EXPECT_EQ(t.vps[1].id, 2u);
  ASSERT_EQ(t.lock_handoffs.size(), 1u);
  EXPECT_EQ(t.lock_handoffs[0].record.from, 1u);
  ASSERT_EQ(t.group_members.size(), 1u);
  EXPECT_EQ(t.group_members[0].record.group, 9u);
  ASSERT_EQ(t.constraints.size(), 1u);
  EXPECT_EQ(t.constraints[0].match, 1u);
  ASSERT_EQ(t.idle.size(), 1u);
  EXPECT_EQ(t.idle[0].end, 31u);
  ASSERT_EQ(t.chores.size(), 1u);
  EXPECT_EQ(t.chores[0].core, 1u);
  EXPECT_EQ(t.chores[0].record.chore, static_cast<std::uint16_t>(Chore::wake_up));
  EXPECT_EQ(t.chores[0].record.cores, 1u);
  EXPECT_EQ(t.chores[0].record.begin, 31u);
  EXPECT_EQ(t.end.records, 7u);
  EXPECT_EQ(t.end.end_time, 44u);
}

// A lock handoff names the lock domain it waited for (format 3.4), defined once with its name; a
// complete trace that names a domain it never defines is refused, naming the core and the id.
TEST(TraceBuilder, LockHandoffsNameTheirDomains) {
  const std::string path = temp_path("domains");
  {
    trace::TraceBuilder out(path, options(2));
    out.site(3, "app.cpp", 12, "main");
    out.lock_domain(1, 0x51, "the mailbox of VP 20 'worker 3'");
    out.unit(0, 1, 1, 0, 10, 20, 25, 0, 3);
    out.lock_handoff(0, 1, 20, 25, 1);
    out.lock_handoff(1, 0, 26, 30);
    out.finish(30);
  }
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.lock_handoffs.size(), 2u);
  EXPECT_EQ(t.lock_handoffs[0].record.domain, 1u);
  EXPECT_EQ(t.lock_handoffs[1].record.domain, 0u);
  ASSERT_EQ(t.lock_domains.count(1), 1u);
  EXPECT_EQ(t.lock_domains.at(1).key, 0x51u);
  EXPECT_EQ(t.lock_domains.at(1).name, "the mailbox of VP 20 'worker 3'");

  const std::string bad = temp_path("undefined_domain");
  {
    trace::TraceBuilder out(bad, options(2));
    out.lock_handoff(0, 1, 20, 25, 7);
    out.finish(30);
  }
  try {
    trace::read_trace(bad);
    ADD_FAILURE() << "a handoff on an undefined lock domain was read";
  } catch (const trace::TraceError& error) {
    EXPECT_NE(std::string(error.what()).find("names lock domain 7, which the trace never defines"),
              std::string::npos)
        << error.what();
  }
  std::remove(bad.c_str());
  const std::string zero = temp_path("zero");
  EXPECT_THROW(trace::TraceBuilder(zero, options(1)).lock_domain(0, 1, "x"), std::invalid_argument);
  std::remove(zero.c_str());
}

// Records beyond a chunk's worth go out in several chunks, all read back, in order.
TEST(TraceBuilder, ManyRecordsSpanSeveralChunks) {
  const std::string path = temp_path("many");
  constexpr std::uint64_t kUnits = 40000;  // 72 bytes each: about 3 MiB on one core
  {
    trace::TraceBuilder out(path, options(1));
    for (std::uint64_t u = 1; u <= kUnits; ++u) out.unit(0, u, 1, u * 10, u * 10 + 1, u * 10 + 8, u * 10 + 10, 4, 1);
  }  // the destructor finishes the trace
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_TRUE(t.complete);
  EXPECT_GT(t.chunks, 4u);
  ASSERT_EQ(t.units.size(), kUnits);
  for (std::uint64_t u = 0; u < kUnits; ++u) ASSERT_EQ(t.units[u].record.unit, u + 1);
}

// The reader knows the chores the format defines and refuses any other, naming it and the offset.
TEST(TraceBuilder, TheReaderRefusesAnUnknownChore) {
  const std::string path = temp_path("chore");
  {
    trace::TraceBuilder out(path, options(1));
    out.chore(0, static_cast<Chore>(7), 1, 2);
  }
  try {
    (void)trace::read_trace(path);
    ADD_FAILURE() << "read a chore of kind 7";
  } catch (const trace::TraceError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown chore 7"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("at byte "), std::string::npos) << error.what();
  }
  std::remove(path.c_str());
}

// Format 3.5's estimated chore (the runtime's work a front-end took out of a unit) reads back as
// written, at the end of its unit's decision span; a trace that says 3.4 cannot hold one.
TEST(TraceBuilder, AnEstimatedChoreReadsBackAndOnlyFromFormat35) {
  const std::string path = temp_path("estimated");
  {
    trace::BuilderOptions older = options(1);
    older.choices.reset();  // nothing of format 3.6, so that the header may say 3.4 below
    trace::TraceBuilder out(path, older);
    out.vp(1, "task", 0, 0);
    out.chore(0, Chore::estimated, 14, 20);
    out.unit(0, 1, 1, 10, 20, 30, 33, 1, 0);
  }
  const trace::Trace t = trace::read_trace(path);
  EXPECT_EQ(t.version, (std::pair<std::uint16_t, std::uint16_t>{3, trace::kVersionMinor}));
  ASSERT_EQ(t.chores.size(), 1u);
  EXPECT_EQ(t.chores[0].record.chore, static_cast<std::uint16_t>(Chore::estimated));
  EXPECT_EQ(t.chores[0].record.begin, 14u);
  EXPECT_EQ(t.chores[0].record.end, t.units.at(0).record.begin);
  EXPECT_EQ(chore_name(Chore::estimated), "runtime work (estimated)");
  // The same bytes under a 3.4 header: the chunk checksums do not cover the file header.
  std::FILE* file = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(file, nullptr);
  const std::uint16_t minor = 4;
  ASSERT_EQ(std::fseek(file, 10, SEEK_SET), 0);  // "MOIRAITR", u16 major, u16 minor
  ASSERT_EQ(std::fwrite(&minor, sizeof minor, 1, file), 1u);
  std::fclose(file);
  try {
    (void)trace::read_trace(path);
    ADD_FAILURE() << "a 3.4 trace read an estimated chore";
  } catch (const trace::TraceError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown chore 3 (estimated runtime work is format 3.5; this trace says 3.4)"),
              std::string::npos)
        << error.what();
  }
  std::remove(path.c_str());
}

TEST(TraceBuilder, RefusesWhatTheReaderWouldRefuse) {
  const std::string path = temp_path("refuse");
  trace::TraceBuilder out(path, options(2, {"c"}));
  EXPECT_THROW(out.idle(2, 0, 1), std::invalid_argument);               // no core 2
  EXPECT_THROW(out.idle(0, 5, 1), std::invalid_argument);               // ends before it begins
  EXPECT_THROW(out.unit(0, 1, 1, 5, 4, 6, 7, 0, 1), std::invalid_argument);  // begin before assign
  EXPECT_THROW(out.unit(0, 0, 1, 0, 1, 2, 3, 0, 1), std::invalid_argument);  // unit id 0
  trace::UnitRecord r{};
  r.unit = r.vp = 1;
  EXPECT_THROW(out.unit(0, r), std::invalid_argument);                   // no counter delta
  EXPECT_THROW(out.constraint(0, 1, 0, 2, 0), std::invalid_argument);    // unit 0
  EXPECT_THROW(out.group_member(0, 1, 3, 1), std::invalid_argument);     // role 3
  EXPECT_THROW(out.lock_handoff(0, 5, 0, 1), std::invalid_argument);     // no core 5
  EXPECT_THROW(out.chore(0, Chore::wake_up, 5, 4), std::invalid_argument);  // ends before it begins
  out.finish();
  EXPECT_THROW(out.idle(0, 0, 1), std::logic_error);
  std::remove(path.c_str());
  EXPECT_THROW(trace::TraceBuilder("/nonexistent-dir/x.mtrace", options(1)), std::runtime_error);
  EXPECT_THROW(trace::TraceBuilder(path, options(0)), std::invalid_argument);
}

// The builder assumes no language: a trace whose options name none is refused, saying so.
TEST(TraceBuilder, RefusesATraceThatNamesNoLanguage) {
  const std::string path = temp_path("no_language");
  trace::BuilderOptions nameless = options(1);
  nameless.language.clear();
  try {
    trace::TraceBuilder out(path, nameless);
    ADD_FAILURE() << "a trace naming no language was built";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("language is empty"), std::string::npos) << error.what();
  }
  std::remove(path.c_str());
}

}  // namespace
