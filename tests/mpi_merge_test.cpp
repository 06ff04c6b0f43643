// The merge stage on rank logs written by hand: the constraints of known patterns exactly (every
// receive freed by its matching send, each collective kind's arcs), what it refuses, cut ranks
// and the clock correction. Arcs are read back from the merged trace by moirai::trace's reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "moirai/mpi/merge.h"
#include "moirai/trace/reader.h"
#include "support/rank_log_writer.h"

namespace {

using moirai::mpi::MergeError;
using moirai::mpi::MergeOptions;
using moirai::mpi::MergeResult;
using Op = moirai::mpi::MpiOp;
using moirai::test_support::Envelope;
using moirai::test_support::RankLogWriter;
namespace fs = std::filesystem;
namespace mpi = moirai::mpi;

// An arc as the tests name it: construct, the freeing call (rank, call index), the freed call.
using ArcT = std::tuple<std::string, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;

fs::path scratch(const std::string& name) {
  static std::atomic<int> next{0};
  const fs::path dir = fs::path(testing::TempDir()) / ("mpi-merge-" + std::to_string(::getpid()) + "-" + std::to_string(next++) + "-" + name);
  fs::remove_all(dir);
  return dir;
}

struct Merged {
  MergeResult result;
  moirai::trace::Trace trace;
  std::multiset<ArcT> arcs;
};

// arcs_of reads the constraint records back as calls: a unit is named by its rank (its VP) and
// its place among the rank's units; the unit ended by call c is the (c-1)-th, the one freed by
// call c the c-th.
std::multiset<ArcT> arcs_of(const moirai::trace::Trace& trace) {
  std::map<std::uint32_t, std::vector<const moirai::trace::Unit*>> by_rank;
  for (const auto& unit : trace.units) by_rank[static_cast<std::uint32_t>(unit.record.vp - 1)].push_back(&unit);
  std::map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> place;
  for (auto& [rank, units] : by_rank) {
    std::sort(units.begin(), units.end(), [](auto* a, auto* b) { return a->record.begin < b->record.begin; });
    for (std::uint32_t i = 0; i < units.size(); ++i) place[units[i]->record.unit] = {rank, i};
  }
  std::multiset<ArcT> arcs;
  for (const auto& c : trace.constraints) {
    const auto from = place.at(c.from);
    const auto to = place.at(c.to);
    arcs.insert({trace.construct_name(c.construct), from.first, from.second + 1, to.first, to.second});
  }
  return arcs;
}

Merged merge(const RankLogWriter& writer, const std::string& name, std::uint64_t eager_limit = 4096) {
  const fs::path dir = scratch(name);
  writer.write(dir / "ranks");
  MergeOptions options;
  options.ranks_dir = (dir / "ranks").string();
  options.trace_path = (dir / "run.mtrace").string();
  options.eager_limit = eager_limit;
  Merged m;
  m.result = moirai::mpi::merge_rank_logs(options);
  m.trace = moirai::trace::read_trace(options.trace_path);
  m.arcs = arcs_of(m.trace);
  return m;
}

std::string merge_error(const RankLogWriter& writer, const std::string& name, const std::string& header = {}) {
  const fs::path dir = scratch(name);
  writer.write(dir / "ranks", header);
  MergeOptions options;
  options.ranks_dir = (dir / "ranks").string();
  options.trace_path = (dir / "run.mtrace").string();
  try {
    moirai::mpi::merge_rank_logs(options);
  } catch (const MergeError& error) {
    return error.what();
  }
  return "merged without an error";
}

Envelope to(std::int32_t peer, std::uint64_t bytes = 8, std::int32_t tag = 0) { return {.peer = peer, .tag = tag, .value = bytes}; }

// init_all gives every rank its MPI_Init (call 0) at 1000..2000 (+ `skew` ns).
void init_all(RankLogWriter& w, std::uint32_t ranks, std::uint64_t skew = 0) {
  for (std::uint32_t r = 0; r < ranks; ++r) w.call(r, Op::init, 1000 + skew, 2000 + skew);
}

// A ring: every rank posts a receive from its left, sends to its right, waits for both.
RankLogWriter ring(std::uint32_t ranks) {
  RankLogWriter w(ranks);
  init_all(w, ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::int32_t left = static_cast<std::int32_t>((r + ranks - 1) % ranks), right = static_cast<std::int32_t>((r + 1) % ranks);
    const std::uint32_t recv = w.record(r);
    w.call(r, Op::irecv, 3000, 3100, to(left));
    const std::uint32_t send = w.record(r);
    w.call(r, Op::isend, 3200 + r * 100, 3300 + r * 100, to(right));
    w.call(r, Op::waitall, 3800, 5000);
    w.completion(r, recv, left, 0, 8);
    w.completion(r, send);
    w.call(r, Op::finalize, 6000, 7000);
  }
  return w;
}

// A 2-D halo exchange on a 2 x 2 grid: the x neighbour (rank ^ 1) by nonblocking calls, the y
// neighbour (rank ^ 2) by MPI_Sendrecv. Rank 1's clock reads `offset1` ns more than the others'.
RankLogWriter halo(std::int64_t offset1 = 0) {
  RankLogWriter w(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    const auto s = static_cast<std::uint64_t>(10'000'000 + (r == 1 ? offset1 : 0));
    const auto x = static_cast<std::int32_t>(r ^ 1), y = static_cast<std::int32_t>(r ^ 2);
    w.call(r, Op::init, 1000 + s, 2000 + s);
    const std::uint32_t recv = w.record(r);
    w.call(r, Op::irecv, 3000 + s, 3100 + s, to(x, 64, 1));
    const std::uint32_t send = w.record(r);
    w.call(r, Op::isend, 3200 + s, 3300 + s, to(x, 64, 1));
    w.call(r, Op::waitall, 3400 + s, 4000 + s);
    w.completion(r, recv, x, 1, 64);
    w.completion(r, send);
    w.call(r, Op::sendrecv, 5000 + s, 6000 + s, to(y, 128, 2));
    w.call(r, Op::sendrecv_recv, 5000 + s, 6000 + s, to(y, 128, 2));
    w.call(r, Op::finalize, 7000 + s, 8000 + s);
  }
  return w;
}

TEST(MpiMerge, RingEveryReceiveIsFreedByItsSend) {
  const Merged m = merge(ring(4), "ring");
  std::multiset<ArcT> expected;
  for (std::uint32_t r = 0; r < 4; ++r) expected.insert({"send", (r + 3) % 4, 2, r, 3});
  EXPECT_EQ(m.arcs, expected);
  EXPECT_EQ(m.result.ranks, 4u);
  EXPECT_EQ(m.result.messages, 4u);
  EXPECT_EQ(m.result.units, 4u * 4u);
  EXPECT_EQ(m.result.clock_violations, 0u);
  EXPECT_EQ(m.trace.metadata.at("language"), "MPI");
  EXPECT_EQ(m.trace.core_count, 4u);
  ASSERT_EQ(m.trace.vps.size(), 4u);
  EXPECT_EQ(m.trace.vps[2].name, "rank 2 on node0");
  EXPECT_EQ(m.trace.vps[2].home_core, 2u);
  EXPECT_EQ(m.trace.language_choices.placement, moirai::LanguagePlacement::last_core);
  ASSERT_NE(m.trace.language_choices.word("vps"), nullptr);
  EXPECT_EQ(*m.trace.language_choices.word("vps"), "ranks");
  ASSERT_NE(m.trace.language_choices.word("cores"), nullptr);
  EXPECT_EQ(*m.trace.language_choices.word("cores"), "ranks");
  // A late sender and a late receiver are both sends: each has its own cure.
  ASSERT_NE(m.trace.language_choices.word("late_cure:send"), nullptr);
  ASSERT_NE(m.trace.language_choices.word("late_cure:rendezvous"), nullptr);
  EXPECT_NE(m.trace.language_choices.word("late_cure:rendezvous")->find("late receiver"), std::string::npos);
}

TEST(MpiMerge, RingUnitsWaitUntilTheirSendAndTheLibraryRestIsTheDecisionSpan) {
  const Merged m = merge(ring(4), "ring-life");
  // Rank 0's waitall (enter 3800, exit 5000) was freed by rank 3's isend, entered at 3500:
  // no idle; rank 3's waitall by rank 2's isend at 3400. Unit 3 of rank 0 starts at 5000.
  for (const auto& unit : m.trace.units) {
    if (unit.record.vp != 1 || unit.record.begin != 5000) continue;
    EXPECT_EQ(unit.record.assign, 3800u);  // freed before it entered: the whole call is the library's
    EXPECT_EQ(unit.record.end, 6000u);
  }
  EXPECT_TRUE(m.trace.idle.empty());
}

TEST(MpiMerge, HaloExchangeOn2x2) {
  const Merged m = merge(halo(), "halo");
  std::multiset<ArcT> expected;
  for (std::uint32_t r = 0; r < 4; ++r) {
    expected.insert({"send", r ^ 1, 2, r, 3});
    expected.insert({"sendrecv", r ^ 2, 4, r, 4});
  }
  EXPECT_EQ(m.arcs, expected);
  EXPECT_EQ(m.result.messages, 8u);
}

TEST(MpiMerge, WaitanyAndWaitsomeCompletionsAndAFailedTest) {
  RankLogWriter w(4);
  init_all(w, 4);
  std::uint32_t posted[4] = {};
  for (std::int32_t s = 1; s < 4; ++s) {
    posted[s] = w.record(0);
    w.call(0, Op::irecv, 3000 + s * 10, 3005 + s * 10, to(s));
  }
  w.call(0, Op::test, 3100, 3110);              // call 4: failed, no completion
  w.call(0, Op::waitany, 3200, 5000);           // call 5
  w.completion(0, posted[2], 2, 0, 8);
  w.call(0, Op::waitsome, 5100, 7000);          // call 6
  w.completion(0, posted[1], 1, 0, 8);
  w.completion(0, posted[3], 3, 0, 8);
  w.call(0, Op::finalize, 8000, 9000);
  for (std::uint32_t s = 1; s < 4; ++s) {
    w.call(s, Op::send, s == 2 ? 4000 : 6000, s == 2 ? 4100 : 6100, to(0));
    w.call(s, Op::finalize, 8000, 9000);
  }
  const Merged m = merge(w, "waitany");
  const std::multiset<ArcT> expected = {{"send", 2, 1, 0, 5}, {"send", 1, 1, 0, 6}, {"send", 3, 1, 0, 6}};
  EXPECT_EQ(m.arcs, expected);
  // The waitany waited from its enter until rank 2's send began.
  bool idle = false;
  for (const auto& span : m.trace.idle) idle |= span.core == 0 && span.begin == 3200 && span.end == 4000;
  EXPECT_TRUE(idle);
}

TEST(MpiMerge, EachCollectiveKindsArcs) {
  // Rank 2 arrives last at every collective; roots as each call says.
  const std::uint64_t arrive[4] = {100, 300, 500, 200};
  struct Kind { Op op; std::int32_t root; };
  const Kind kinds[] = {{Op::barrier, mpi::kNoPeer}, {Op::bcast, 1},     {Op::reduce, 0},       {Op::reduce, 2},
                        {Op::gather, 3},             {Op::scatter, 0},   {Op::allreduce, mpi::kNoPeer},
                        {Op::allgather, mpi::kNoPeer}, {Op::alltoall, mpi::kNoPeer}, {Op::reduce_scatter, mpi::kNoPeer},
                        {Op::scan, mpi::kNoPeer},    {Op::exscan, mpi::kNoPeer}};
  RankLogWriter w(4);
  init_all(w, 4);
  std::uint64_t t = 10000;
  for (const Kind& kind : kinds) {
    for (std::uint32_t r = 0; r < 4; ++r) w.call(r, kind.op, t + arrive[r], t + 900, {.peer = kind.root, .value = 8});
    t += 10000;
  }
  // The nonblocking form: freed where its wait returns.
  for (std::uint32_t r = 0; r < 4; ++r) {
    const std::uint32_t req = w.record(r);
    w.call(r, Op::iallreduce, t + arrive[r], t + arrive[r] + 10, {.value = 8});
    w.call(r, Op::wait, t + 600, t + 900);
    w.completion(r, req);
  }
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::finalize, t + 5000, t + 6000);
  const Merged m = merge(w, "collectives");
  std::multiset<ArcT> expected;
  auto all = [&](const char* name, std::uint32_t c) {
    for (std::uint32_t r : {0u, 1u, 3u}) expected.insert({name, 2, c, r, c});
  };
  all("barrier", 1);
  for (std::uint32_t r : {0u, 2u, 3u}) expected.insert({"bcast", 1, 2, r, 2});
  expected.insert({"reduce", 2, 3, 0, 3});  // the root freed by the last arrival; reduce to root 2 (call 4): none
  expected.insert({"gather", 2, 5, 3, 5});
  for (std::uint32_t r : {1u, 2u, 3u}) expected.insert({"scatter", 0, 6, r, 6});
  all("allreduce", 7);
  all("allgather", 8);
  all("alltoall", 9);
  all("reduce_scatter", 10);
  expected.insert({"scan", 2, 11, 3, 11});  // member i freed by the last of 0..i
  expected.insert({"scan", 0, 12, 1, 12});  // exscan: by the last of 0..i-1
  expected.insert({"scan", 1, 12, 2, 12});
  expected.insert({"scan", 2, 12, 3, 12});
  for (std::uint32_t r : {0u, 1u, 3u}) expected.insert({"allreduce", 2, 13, r, 14});
  EXPECT_EQ(m.arcs, expected);
  EXPECT_EQ(m.result.collectives, 13u);
}

TEST(MpiMerge, WildcardReceivesKeepTheRecordedMatchAndAreCounted) {
  RankLogWriter w(4);
  init_all(w, 4);
  const std::uint32_t a = w.record(0);
  w.call(0, Op::irecv, 3000, 3010, {.peer = mpi::kAnySource, .tag = 7, .flags = mpi::kFlagWildcardSource});
  const std::uint32_t b = w.record(0);
  w.call(0, Op::irecv, 3020, 3030, {.peer = mpi::kAnySource, .tag = 7, .flags = mpi::kFlagWildcardSource});
  w.call(0, Op::waitall, 3100, 5000);  // call 3
  w.completion(0, a, 3, 7, 8);
  w.completion(0, b, 1, 7, 8);
  w.call(0, Op::recv, 5100, 6000, {.peer = 2, .tag = 9, .value = 8, .flags = mpi::kFlagWildcardTag});  // call 4
  w.call(0, Op::finalize, 8000, 9000);
  w.call(1, Op::send, 4500, 4600, to(0, 8, 7));
  w.call(3, Op::send, 4000, 4100, to(0, 8, 7));
  w.call(2, Op::send, 5500, 5600, to(0, 8, 9));
  w.call(2, Op::send, 5700, 5800, {.peer = mpi::kProcNull, .value = 8});  // no constraint at all
  for (std::uint32_t r = 1; r < 4; ++r) w.call(r, Op::finalize, 8000, 9000);
  const Merged m = merge(w, "wildcard");
  const std::multiset<ArcT> expected = {{"send", 3, 1, 0, 3}, {"send", 1, 1, 0, 3}, {"send", 2, 1, 0, 4}};
  EXPECT_EQ(m.arcs, expected);
  EXPECT_EQ(m.trace.metadata.at("mpi.wildcard_matches"), "3");
  EXPECT_EQ(m.trace.metadata.at("mpi.wildcard_match_ids").empty(), false);
}

TEST(MpiMerge, CommSplitSubCommunicatorNamesPeersAsWorldRanks) {
  RankLogWriter w(4);
  init_all(w, 4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    w.line(r, r % 2 == 0 ? "comm 2 0 2 0 2" : "comm 2 0 2 1 3");
    w.call(r, Op::comm_split, 3000 + r * 100, 4000, {.value = 2});  // call 1: rank 3 arrives last
  }
  // On the sub-communicators, world rank 0 sends to world rank 2, 1 to 3, then each reduces.
  w.call(0, Op::send, 5000, 5100, {.peer = 2, .tag = 5, .value = 8, .comm = 2});
  w.call(2, Op::recv, 5000, 6000, {.peer = 0, .tag = 5, .value = 8, .comm = 2});
  w.call(1, Op::send, 5000, 5100, {.peer = 3, .tag = 5, .value = 8, .comm = 2});
  w.call(3, Op::recv, 5000, 6000, {.peer = 1, .tag = 5, .value = 8, .comm = 2});
  // The same tag on MPI_COMM_WORLD is another channel: 2 -> 0 there.
  w.call(2, Op::send, 6100, 6200, {.peer = 0, .tag = 5, .value = 8});
  w.call(0, Op::recv, 6100, 7000, {.peer = 2, .tag = 5, .value = 8});
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::allreduce, 8000 + (r >= 2 ? 100 : 0), 9000, {.value = 8, .comm = 2});
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::finalize, 10000, 11000);
  const Merged m = merge(w, "split");
  const std::multiset<ArcT> expected = {{"comm create", 3, 1, 0, 1}, {"comm create", 3, 1, 1, 1}, {"comm create", 3, 1, 2, 1},
                                  {"send", 0, 2, 2, 2},        {"send", 1, 2, 3, 2},        {"send", 2, 3, 0, 3},
                                  {"allreduce", 2, 4, 0, 4},   {"allreduce", 3, 3, 1, 3}};
  EXPECT_EQ(m.arcs, expected);
}

TEST(MpiMerge, AnIntercommunicatorIsMergedAsItsTwoGroups) {
  RankLogWriter w(4);
  init_all(w, 4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    w.line(r, r < 2 ? "comm 2 0 2 0 1" : "comm 2 0 2 2 3");
    w.line(r, r < 2 ? "comm 3 2 2 0 1 | 2 3" : "comm 3 2 2 2 3 | 0 1");
    w.call(r, Op::comm_split, 3000, 4000, {.value = 2});                         // call 1: rank 0 frees the others
    w.call(r, Op::intercomm_create, 4100, 4200, {.peer = r < 2 ? 2 : 0, .value = 3, .comm = 2});  // call 2: no arc
  }
  w.call(0, Op::send, 5000, 5100, {.peer = 2, .tag = 1, .value = 8, .comm = 3});
  w.call(2, Op::recv, 5000, 6000, {.peer = 0, .tag = 1, .value = 8, .comm = 3});
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::barrier, 7000 + (r == 3 ? 500 : 0), 8000, {.comm = 3});
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::finalize, 9000, 9100);
  const Merged m = merge(w, "intercomm");
  const std::multiset<ArcT> expected = {{"comm create", 0, 1, 1, 1}, {"comm create", 0, 1, 2, 1}, {"comm create", 0, 1, 3, 1},
                                        {"send", 0, 3, 2, 3},        {"barrier", 3, 3, 0, 4},     {"barrier", 3, 3, 1, 3},
                                        {"barrier", 3, 3, 2, 4}};
  EXPECT_EQ(m.arcs, expected);
}

TEST(MpiMerge, AProbeIsFreedByTheMessageItSawAndALargeSendByItsReceive) {
  RankLogWriter w(2);
  init_all(w, 2);
  w.call(0, Op::send, 3000, 9000, to(1, 100000, 4));  // call 1: above the eager limit
  w.call(1, Op::probe, 2500, 3100, {.peer = 0, .tag = 4});  // call 1
  w.call(1, Op::recv, 8000, 9500, to(0, 100000, 4));      // call 2
  for (std::uint32_t r = 0; r < 2; ++r) w.call(r, Op::finalize, 10000, 11000);
  const Merged m = merge(w, "probe");
  const std::multiset<ArcT> expected = {{"send", 0, 1, 1, 1}, {"send", 0, 1, 1, 2}, {"rendezvous", 1, 2, 0, 1}};
  EXPECT_EQ(m.arcs, expected);
  // With an eager limit above its size, the send never waited for the receive.
  const Merged eager = merge(w, "probe-eager", 1 << 20);
  EXPECT_EQ(eager.arcs.count({"rendezvous", 1, 2, 0, 1}), 0u);
}

TEST(MpiMerge, PersistentRequestsMatchPerStart) {
  RankLogWriter w(2);
  init_all(w, 2);
  const std::uint32_t si = w.record(0);
  w.call(0, Op::send_init, 2100, 2200, to(1, 16, 3));
  const std::uint32_t ri = w.record(1);
  w.call(1, Op::recv_init, 2100, 2200, to(0, 16, 3));
  for (int round = 0; round < 2; ++round) {
    const std::uint64_t t = 3000 + round * 2000;
    const std::uint32_t s = w.record(0);
    w.call(0, Op::start, t, t + 10, {.value = si});
    w.call(0, Op::wait, t + 20, t + 30);
    w.completion(0, s);
    const std::uint32_t r = w.record(1);
    w.call(1, Op::start, t, t + 10, {.value = ri});
    w.call(1, Op::wait, t + 20, t + 900);
    w.completion(1, r, 0, 3, 16);
  }
  for (std::uint32_t r = 0; r < 2; ++r) w.call(r, Op::finalize, 10000, 11000);
  const Merged m = merge(w, "persistent");
  const std::multiset<ArcT> expected = {{"send", 0, 2, 1, 3}, {"send", 0, 4, 1, 5}};
  EXPECT_EQ(m.arcs, expected);
}

// The bad inputs: each refused with the file, the record or line, and the problem.
RankLogWriter two_ranks() {
  RankLogWriter w(2);
  init_all(w, 2);
  w.call(0, Op::send, 3000, 3100, to(1));
  w.call(1, Op::recv, 3000, 4000, to(0));
  for (std::uint32_t r = 0; r < 2; ++r) w.call(r, Op::finalize, 5000, 6000);
  return w;
}

TEST(MpiMergeBadInput, AMissingRank) {
  const fs::path dir = scratch("missing");
  two_ranks().write(dir);
  fs::remove(dir / "rank-1.events");
  MergeOptions options;
  options.ranks_dir = dir.string();
  options.trace_path = (dir / "t").string();
  try {
    moirai::mpi::merge_rank_logs(options);
    FAIL() << "merged a job without rank 1's events";
  } catch (const MergeError& error) {
    EXPECT_NE(std::string(error.what()).find("rank-1.events: missing: rank 1 of 2"), std::string::npos) << error.what();
  }
}

TEST(MpiMergeBadInput, BadMagicAndVersion) {
  EXPECT_NE(merge_error(two_ranks(), "magic", "not-a-log 1").find("rank-0.defs:1: not a rank log"), std::string::npos);
  EXPECT_NE(merge_error(two_ranks(), "version", "moirai-mpi-rank-log 9").find("rank-0.defs:1: rank log version 9"), std::string::npos);
}

TEST(MpiMergeBadInput, ATruncatedRecordOfARankThatEnded) {
  RankLogWriter w = two_ranks();
  w.raw_events(1, std::string(12, '\0'));
  EXPECT_NE(merge_error(w, "truncated").find("rank-1.events: record 3 is truncated (12 of 40 bytes)"), std::string::npos);
}

TEST(MpiMergeBadInput, AnUnknownOp) {
  RankLogWriter w = two_ranks();
  w.call(1, static_cast<Op>(200), 7000, 7100);
  EXPECT_NE(merge_error(w, "op").find("rank-1.events: record 3: unknown op 200"), std::string::npos);
}

TEST(MpiMergeBadInput, ACompletionNamingNoPostingRecord) {
  RankLogWriter w = two_ranks();
  w.call(1, Op::wait, 7000, 7100);
  w.completion(1, 1);  // record 1 is a blocking recv
  EXPECT_NE(merge_error(w, "completion").find("rank-1.events: record 4: a completion naming record 1, which posts no request"),
            std::string::npos);
}

TEST(MpiMergeBadInput, TimesGoingBackwards) {
  RankLogWriter w(2);
  init_all(w, 2);
  w.call(0, Op::barrier, 3000, 3100);
  w.call(0, Op::barrier, 2500, 2600);
  w.call(1, Op::barrier, 3000, 3100);
  w.call(1, Op::barrier, 3200, 3300);
  EXPECT_NE(merge_error(w, "backwards").find("rank-0.events: record 2: enters at 2500, before the previous call's exit at 3100"),
            std::string::npos);
}

TEST(MpiMergeBadInput, SizesThatDisagreeAndAReceiveNoSendMatches) {
  RankLogWriter w(2);
  init_all(w, 2);
  w.call(0, Op::send, 3000, 3100, to(1, 8));
  w.call(1, Op::recv, 3000, 4000, to(0, 16));
  EXPECT_NE(merge_error(w, "sizes").find("received 16 bytes; its send"), std::string::npos);
  RankLogWriter u(2);
  init_all(u, 2);
  u.call(1, Op::recv, 3000, 4000, to(0, 8, 3));
  EXPECT_NE(merge_error(u, "unmatched").find("rank-1.events: record 1: a receive from rank 0 (tag 3, MPI_COMM_WORLD) that no send matches"),
            std::string::npos);
}

TEST(MpiMerge, ACutRankIsKeptToItsLastWholeRecordAndNamed) {
  RankLogWriter w(3);
  init_all(w, 3);
  for (std::uint32_t r = 0; r < 3; ++r) w.call(r, Op::barrier, 3000 + r * 10, 3100);
  w.call(0, Op::send, 4000, 4100, to(2));
  w.call(1, Op::send, 4000, 4100, to(0));
  w.call(0, Op::recv, 4200, 4300, to(1));
  w.call(1, Op::finalize, 6000, 7000);
  w.call(0, Op::finalize, 6000, 7000);
  w.cut(2);
  w.raw_events(2, std::string(20, '\1'));  // a torn block
  const Merged m = merge(w, "cut");
  ASSERT_EQ(m.result.cut.size(), 1u);
  EXPECT_EQ(m.result.cut[0].rank, 2u);
  EXPECT_EQ(m.result.cut[0].records, 2u);
  EXPECT_NE(m.trace.metadata.at("cores_cut").find("rank 2 (killed or cut (no end line)"), std::string::npos);
  EXPECT_EQ(m.trace.metadata.at("mpi.unreceived_sends"), "1");
  EXPECT_EQ(m.arcs.count({"send", 1, 2, 0, 3}), 1u);
}

TEST(MpiMerge, ClockOffsetsAreCountedAndCorrected) {
  const Merged plain = merge(halo(), "clock-plain");
  for (const std::int64_t offset : {5'000'000LL, -5'000'000LL}) {
    // Rank 1's clock runs `offset` ahead, and nothing measured it: violations, all corrected.
    RankLogWriter w = halo(offset);
    const Merged m = merge(w, "clock");
    EXPECT_GT(m.result.clock_violations, 0u) << offset;
    EXPECT_EQ(m.result.clock_violations_left, 0u) << offset;
    EXPECT_EQ(m.trace.metadata.at("clock_violations_left"), "0");
    EXPECT_EQ(m.arcs, plain.arcs) << offset;
    // Measured at init and finalize (offset lines): put on rank 0's clock before any check.
    RankLogWriter measured = halo(offset);
    measured.line(1, "offset init " + std::to_string(offset) + " 2000");
    measured.line(1, "offset finalize " + std::to_string(offset) + " 2000");
    const Merged aligned = merge(measured, "clock-measured");
    EXPECT_EQ(aligned.result.clock_violations, 0u) << offset;
    EXPECT_EQ(aligned.arcs, plain.arcs) << offset;
  }
}

TEST(MpiMerge, RanksOnTwoNodesAreNamed) {
  RankLogWriter w = ring(4);
  w.line(2, "host node1");
  w.line(3, "host node1");
  const Merged m = merge(w, "nodes");
  EXPECT_EQ(m.result.nodes, 2u);
  EXPECT_EQ(m.trace.metadata.at("mpi.nodes"), "2");
  EXPECT_EQ(m.trace.metadata.at("mpi.rank_hosts"), "node0,node0,node1,node1");
  EXPECT_EQ(m.trace.core_nodes, (std::vector<std::string>{"node0", "node0", "node1", "node1"}));  // what the views read
  EXPECT_EQ(m.trace.vps[3].name, "rank 3 on node1");
}

// Each rank's wait for a CPU between the recording's start and MPI_Finalize is the OS's share of
// its core over the run; a rank with no reading leaves the whole trace without one.
TEST(MpiMerge, EachRanksWaitForACpuIsTheOsShareOfItsCore) {
  RankLogWriter w = ring(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    w.line(r, "run_queue_wait init " + std::to_string(1000 * r) + " 2000");
    w.line(r, "run_queue_wait finalize " + std::to_string(1000 * r + 250 * r) + " 9000");
  }
  const Merged m = merge(w, "run-queue");
  EXPECT_EQ(m.trace.metadata.at("os_core_run_queue_wait_ns"), "0,250,500,750");
  EXPECT_EQ(m.trace.metadata.at("os_time").rfind("each rank's wait for a CPU", 0), 0u);

  RankLogWriter partial = ring(4);
  partial.line(0, "run_queue_wait init 0 2000");
  const Merged none = merge(partial, "run-queue-partial");
  EXPECT_EQ(none.trace.metadata.count("os_core_run_queue_wait_ns"), 0u);
  EXPECT_EQ(none.trace.metadata.at("os_time").rfind("none: ", 0), 0u);
}

}  // namespace

// The tool names MPI_COMM_WORLD and MPI_COMM_SELF in every rank's .defs: taken when they say what
// their ids mean, refused when not.
TEST(MpiMerge, TheWorldAndSelfCommunicatorLinesAreChecked) {
  RankLogWriter w = ring(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    w.line(r, "comm 0 0 4 0 1 2 3");
    w.line(r, "comm 1 1 1 " + std::to_string(r));
  }
  EXPECT_EQ(merge(w, "world-lines").result.messages, 4u);
  RankLogWriter bad = ring(4);
  bad.line(2, "comm 1 1 1 0");
  EXPECT_NE(merge_error(bad, "self-line").find("rank-2.defs"), std::string::npos);
  EXPECT_NE(merge_error(bad, "self-line").find("communicator 1 is MPI_COMM_SELF"), std::string::npos);
}

// On a loaded machine one ping-pong can take far longer than the other, and its offset is off by
// up to half that: the merge keeps the one measured with the short round trip.
TEST(MpiMerge, AnOffsetMeasuredWithALongRoundTripIsDropped) {
  const Merged plain = merge(halo(), "trip-plain");
  for (const std::int64_t offset : {5'000'000LL, -5'000'000LL}) {
    RankLogWriter w = halo(offset);
    w.line(1, "offset init " + std::to_string(offset + 6'000'000) + " 28000000");  // waited for a core
    w.line(1, "offset finalize " + std::to_string(offset) + " 2000");
    const Merged m = merge(w, "trip");
    EXPECT_EQ(m.result.clock_violations, 0u) << offset;
    EXPECT_EQ(m.arcs, plain.arcs) << offset;
  }
}

// Messages both ways between two ranks whose clocks disagree by more than either message took: no
// shift of a whole rank orders both, so the merge leaves the clocks as measured (never worse).
TEST(MpiMerge, AClockErrorNoShiftCanOrderIsLeftAsMeasured) {
  RankLogWriter w(2);
  init_all(w, 2);
  w.call(0, Op::send, 3000, 3100, to(1));  // rank 1's receive ends before this send began: 1 is behind
  w.call(1, Op::recv, 2500, 2900, to(0));
  w.call(1, Op::send, 4000, 4100, to(0));  // and rank 0's ends before rank 1's send: 0 is behind
  w.call(0, Op::recv, 3500, 3900, to(1));
  for (std::uint32_t r = 0; r < 2; ++r) w.call(r, Op::finalize, 6000, 7000);
  const Merged m = merge(w, "clock-cycle");
  EXPECT_EQ(m.result.clock_violations, 2u);
  EXPECT_LE(m.result.clock_violations_left, m.result.clock_violations);
  EXPECT_EQ(m.trace.metadata.at("clock_shifts_ns"), "");
}

namespace {

// A message as the tests name its envelope: sender, receiver, bytes, tag, communicator, flags.
using EnvelopeT = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::int32_t, std::string, std::uint16_t>;

// envelopes_of reads back the message record of every message a send constraint holds.
std::multiset<EnvelopeT> envelopes_of(const moirai::trace::Trace& trace) {
  std::map<std::uint64_t, std::uint32_t> rank_of;
  for (const auto& unit : trace.units) rank_of[unit.record.unit] = static_cast<std::uint32_t>(unit.record.vp - 1);
  std::multiset<EnvelopeT> envelopes;
  std::set<std::uint64_t> seen;
  for (const auto& c : trace.constraints) {
    if (trace.construct_name(c.construct) != "send" || !seen.insert(c.match).second) continue;
    const moirai::trace::MessageRecord* m = trace.message(c.match);
    if (m == nullptr) {
      ADD_FAILURE() << "no message record for match " << c.match;
      continue;
    }
    envelopes.insert({rank_of.at(c.from), rank_of.at(c.to), m->bytes, m->tag, trace.communicator_name(m->comm), m->flags});
  }
  return envelopes;
}

}  // namespace

// Every message keeps its bytes, its tag (a receive for any tag: the one it matched), its
// communicator as the merge unified it (a Comm_split's sub-communicators named by their ranks) and
// whether its receive was a wildcard; each collective call keeps what its rank sent.
TEST(MpiMerge, MessagesKeepTheirBytesTagCommunicatorAndWildcards) {
  RankLogWriter w(4);
  init_all(w, 4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    w.line(r, r % 2 == 0 ? "comm 2 0 2 0 2" : "comm 2 0 2 1 3");
    w.call(r, Op::comm_split, 3000 + r * 100, 4000, {.value = 2});
  }
  const std::uint32_t any = w.record(0);
  w.call(0, Op::irecv, 4100, 4110, {.peer = mpi::kAnySource, .tag = 7, .flags = mpi::kFlagWildcardSource});
  w.call(0, Op::waitall, 4200, 6000);
  w.completion(0, any, 3, 7, 16);
  w.call(0, Op::recv, 6100, 7000, {.peer = 2, .tag = 9, .value = 32, .flags = mpi::kFlagWildcardTag});  // the status's tag
  w.call(0, Op::send, 7100, 7200, {.peer = 2, .tag = 5, .value = 100, .comm = 2});
  w.call(1, Op::send, 7100, 7200, {.peer = 3, .tag = 5, .value = 200, .comm = 2});
  w.call(2, Op::send, 6500, 6600, to(0, 32, 9));
  w.call(2, Op::recv, 7000, 7500, {.peer = 0, .tag = 5, .value = 100, .comm = 2});
  w.call(3, Op::send, 4500, 4600, to(0, 16, 7));
  w.call(3, Op::recv, 7000, 7500, {.peer = 1, .tag = 5, .value = 200, .comm = 2});
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::allreduce, 8000 + (r >= 2 ? 100 : 0), 9000, {.value = 8 * (r + 1), .comm = 2});
  for (std::uint32_t r = 0; r < 4; ++r) w.call(r, Op::finalize, 10000, 11000);
  const Merged m = merge(w, "envelopes");
  const std::string even = "communicator 2 of MPI_COMM_WORLD: ranks 0,2", odd = "communicator 4 of MPI_COMM_WORLD: ranks 1,3";
  const std::multiset<EnvelopeT> expected = {{3, 0, 16, 7, "MPI_COMM_WORLD", moirai::trace::kMessageAnySource},
                                             {2, 0, 32, 9, "MPI_COMM_WORLD", moirai::trace::kMessageAnyTag},
                                             {0, 2, 100, 5, even, 0},
                                             {1, 3, 200, 5, odd, 0}};
  EXPECT_EQ(envelopes_of(m.trace), expected);
  EXPECT_EQ(m.trace.messages.size(), 4u);
  EXPECT_TRUE(m.trace.integrity.sound()) << m.trace.integrity.summary();
  EXPECT_EQ(m.trace.communicators.size(), 3u) << "only the communicators a record names are defined";
  EXPECT_EQ(m.trace.communicators.at(2).size, 2u);
  // The allreduce on each sub-communicator: what each rank sent, by the unit its call ended (the
  // Comm_split, whose value is a communicator, is no transfer).
  std::map<std::uint32_t, std::pair<std::uint64_t, std::string>> sent;
  for (const auto& unit : m.trace.units) {
    const auto call = m.trace.collective_calls.find(unit.record.unit);
    if (call == m.trace.collective_calls.end()) continue;
    EXPECT_EQ(m.trace.construct_name(unit.record.ended_by), "allreduce");
    sent[static_cast<std::uint32_t>(unit.record.vp - 1)] = {call->second.bytes, m.trace.communicator_name(call->second.comm)};
  }
  const std::map<std::uint32_t, std::pair<std::uint64_t, std::string>> expected_sent = {
      {0, {8, even}}, {1, {16, odd}}, {2, {24, even}}, {3, {32, odd}}};
  EXPECT_EQ(sent, expected_sent);
}

// A blocking send waits for its receive above Open MPI's eager limit for the transport between
// the two ranks: 4 KiB in one node's shared memory, 64 KiB over TCP between nodes.
TEST(MpiMerge, TheEagerLimitIsTheTransportsBetweenTheTwoRanks) {
  RankLogWriter w(2);
  init_all(w, 2);
  w.call(0, Op::send, 3000, 9000, to(1, 32768, 4));     // call 1: above 4 KiB, below 64 KiB
  w.call(1, Op::recv, 8000, 9500, to(0, 32768, 4));
  w.call(0, Op::send, 9600, 12000, to(1, 100000, 4));   // call 2: above both
  w.call(1, Op::recv, 11000, 12500, to(0, 100000, 4));
  for (std::uint32_t r = 0; r < 2; ++r) w.call(r, Op::finalize, 13000, 14000);
  const Merged one_node = merge(w, "eager-one-node");
  EXPECT_EQ(one_node.arcs.count({"rendezvous", 1, 1, 0, 1}), 1u);
  EXPECT_EQ(one_node.arcs.count({"rendezvous", 1, 2, 0, 2}), 1u);
  w.line(1, "host node1");
  const Merged two_nodes = merge(w, "eager-two-nodes");
  EXPECT_EQ(two_nodes.arcs.count({"rendezvous", 1, 1, 0, 1}), 0u) << "32 KiB goes eagerly over TCP";
  EXPECT_EQ(two_nodes.arcs.count({"rendezvous", 1, 2, 0, 2}), 1u);
  EXPECT_EQ(two_nodes.trace.metadata.at("mpi.eager_limit"), "4096");
  EXPECT_EQ(two_nodes.trace.metadata.at("mpi.eager_limit_across_nodes"), "65536");
  // The message records hold both sizes either way.
  EXPECT_EQ(two_nodes.trace.message(1)->bytes + two_nodes.trace.message(2)->bytes, 32768u + 100000u);
}
