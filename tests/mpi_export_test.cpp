// The views and exports of a merged MPI trace, built from rank logs written by hand: a ring on 4
// ranks over 2 nodes (ranks 0 and 2 on node0, 1 and 3 on node1), then an MPI_Allreduce. The SCG
// groups the ranks by node; OTF2 lists each message as MpiSend/MpiRecv between the right ranks;
// Perfetto has one flow per message; SQLite's messages table has one row each. Nothing here is
// told the language: the views read the trace's core_nodes and message_constructs.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "moirai/mpi/merge.h"
#include "moirai/trace/builder.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/export/export.h"
#include "moirai/visualize/views/scg.h"
#include "support/command_output.h"
#include "support/perfetto_trace_reader.h"
#include "support/rank_log_writer.h"

namespace {

using Op = moirai::mpi::MpiOp;
using moirai::test_support::Envelope;
using moirai::test_support::RankLogWriter;
namespace fs = std::filesystem;
namespace visualize = moirai::visualize;

constexpr std::uint32_t kRanks = 4;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("mpi-export-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// ring_and_allreduce: every rank posts a receive from its left, sends 8 x (rank + 1) bytes to its
// right (tag 7), waits for both, then all reduce, sending 16 x (rank + 1) bytes. Rank r's send is message r+1's... in the merge's order;
// the tests below name messages by their (sender, receiver) pair only.
std::uint64_t sent(std::uint32_t rank) { return 8 * (rank + 1); }

RankLogWriter ring_and_allreduce() {
  RankLogWriter w(kRanks);
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    if (r % 2 == 1) w.line(r, "host node1");
    w.line(r, "site 1 10 ring.c main");
    w.line(r, "site 2 20 ring.c main");
    w.line(r, "site 3 30 ring.c main");
    const auto left = static_cast<std::int32_t>((r + kRanks - 1) % kRanks), right = static_cast<std::int32_t>((r + 1) % kRanks);
    w.call(r, Op::init, 1000, 2000);
    const std::uint32_t recv = w.record(r);
    w.call(r, Op::irecv, 3000, 3100, Envelope{.peer = left, .tag = 7, .value = 8, .site = 1});
    const std::uint32_t send = w.record(r);
    w.call(r, Op::isend, 3200 + r * 100, 3300 + r * 100, Envelope{.peer = right, .tag = 7, .value = sent(r), .site = 2});
    w.call(r, Op::waitall, 3800, 5000, Envelope{.site = 3});
    w.completion(r, recv, left, 7, sent(static_cast<std::uint32_t>(left)));
    w.completion(r, send);
    w.call(r, Op::allreduce, 6000 + r * 200, 7000, Envelope{.value = 2 * sent(r), .site = 3});
    w.call(r, Op::finalize, 8000, 9000);
  }
  return w;
}

struct Merged {
  fs::path dir;
  std::string path;
  moirai::trace::Trace trace;
};

Merged merged(const std::string& name) {
  Merged m;
  m.dir = scratch(name);
  ring_and_allreduce().write(m.dir / "ranks");
  moirai::mpi::MergeOptions options;
  options.ranks_dir = (m.dir / "ranks").string();
  options.trace_path = m.path = (m.dir / "run.mtrace").string();
  const moirai::mpi::MergeResult result = moirai::mpi::merge_rank_logs(options);
  EXPECT_EQ(result.messages, 4u);
  EXPECT_EQ(result.nodes, 2u);
  m.trace = moirai::trace::read_trace(m.path);
  return m;
}

// The ring's messages as (sender, receiver) world ranks.
const std::multiset<std::pair<int, int>> kRing = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};


TEST(MpiExport, TheTraceSaysEachRanksNodeAndWhichConstraintsAreMessages) {
  const Merged m = merged("metadata");
  EXPECT_EQ(m.trace.core_nodes, (std::vector<std::string>{"node0", "node1", "node0", "node1"}));
  ASSERT_FALSE(m.trace.message_constructs.empty());
  for (std::uint32_t kind : m.trace.message_constructs) EXPECT_EQ(m.trace.construct_role(kind), moirai::ConstructRole::send);
}

// The reader refuses the three keys when they do not say what the format says, naming the key.
TEST(MpiExport, TheReaderRefusesNodesAndConstructListsItCannotRead) {
  const fs::path dir = scratch("bad-keys");
  const std::pair<const char*, const char*> bad[] = {{"core_nodes", "node0"},                 // 1 node for 2 cores
                                                     {"core_nodes", "node0,,node1"},          // an empty name
                                                     {"message_constructs", "3,send"},        // not a kind
                                                     {"collective_constructs", "9:gossip"},   // no such operation
                                                     {"collective_constructs", "9"}};         // no operation
  int n = 0;
  for (const auto& [key, value] : bad) {
    const std::string path = (dir / ("bad" + std::to_string(n++) + ".mtrace")).string();
    moirai::trace::BuilderOptions options;
    options.cores = 2;
    options.language = "a test's";
    options.metadata = {{key, value}};
    moirai::trace::TraceBuilder(path, std::move(options)).finish(10);
    try {
      moirai::trace::read_trace(path);
      ADD_FAILURE() << key << "=" << value << " was read";
    } catch (const moirai::trace::TraceError& error) {
      EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
    }
  }
}

TEST(MpiExport, TheScgGroupsTheRanksByNode) {
  const Merged m = merged("scg");
  const std::string svg = (m.dir / "scg.svg").string();
  visualize::render_scg(visualize::layout_scg(m.trace, {}), m.trace, "svg", svg);
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The x of each text Graphviz wrote: the column heads ("core N") and the node bands.
  std::map<std::string, double> x;
  const std::regex label(R"re(<text [^>]*x="([-0-9.]+)"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), label); it != std::sregex_iterator(); ++it) {
    x.emplace((*it)[2].str(), std::stod((*it)[1].str()));
  }
  for (const char* name : {"core 0", "core 1", "core 2", "core 3", "node0", "node1"}) ASSERT_TRUE(x.count(name)) << name;
  // node0's ranks (0, 2) stand together left of node1's (1, 3), each band centred over its own.
  EXPECT_LT(x["core 0"], x["core 2"]);
  EXPECT_LT(x["core 2"], x["core 1"]);
  EXPECT_LT(x["core 1"], x["core 3"]);
  EXPECT_NEAR(x["node0"], (x["core 0"] + x["core 2"]) / 2, 1.0);
  EXPECT_NEAR(x["node1"], (x["core 1"] + x["core 3"]) / 2, 1.0);
  // A gap between nodes wider than the one between columns of one node.
  EXPECT_GT(x["core 1"] - x["core 2"], x["core 2"] - x["core 0"]);
  EXPECT_NE(text.find("class=\"node scgnode\""), std::string::npos);
}

TEST(MpiExport, Otf2ListsEachMessageAsMpiSendAndMpiRecvBetweenTheRightRanks) {
  const Merged m = merged("otf2");
  const std::string out = (m.dir / "otf2").string();
  visualize::export_otf2(m.trace, out);
  const std::string printed = moirai::test_support::command_output(std::string(OTF2_PRINT) + " " + out + "/traces.otf2");
  // otf2-print: "MPI_SEND  <location>  <time>  Receiver: R, Communicator: ..., Tag: T, Length: ..."
  std::multiset<std::pair<int, int>> sends, receives;
  const std::regex send(R"re(^MPI_SEND\s+(\d+)\s+\d+\s+Receiver: (\d+).*Tag: (\d+), Length: (\d+))re");
  const std::regex receive(R"re(^MPI_RECV\s+(\d+)\s+\d+\s+Sender: (\d+).*Tag: (\d+), Length: (\d+))re");
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    std::smatch found;
    const bool is_send = std::regex_search(line, found, send);
    if (!is_send && !std::regex_search(line, found, receive)) continue;
    const int from = std::stoi(found[is_send ? 1 : 2]), to = std::stoi(found[is_send ? 2 : 1]);
    (is_send ? sends : receives).insert({from, to});
    // The message's own tag and length, from the trace's message record.
    EXPECT_EQ(found[3].str(), "7") << line;
    EXPECT_EQ(std::stoull(found[4].str()), sent(static_cast<std::uint32_t>(from))) << line;
  }
  EXPECT_EQ(sends, kRing) << printed.substr(0, 4000);
  EXPECT_EQ(receives, kRing) << printed.substr(0, 4000);
  // The collective's arcs are not messages; its calls are one collective each, on every rank.
  EXPECT_EQ(sends.size(), 4u);
  std::set<int> begun, ended;
  std::istringstream again(printed);
  for (std::string line; std::getline(again, line);) {
    std::smatch found;
    if (std::regex_search(line, found, std::regex(R"re(^MPI_COLLECTIVE_BEGIN\s+(\d+))re"))) begun.insert(std::stoi(found[1]));
    if (std::regex_search(line, found, std::regex(R"re(^MPI_COLLECTIVE_END\s+(\d+).*ALLREDUCE.*Sent: (\d+))re"))) {
      ended.insert(std::stoi(found[1]));
      EXPECT_EQ(std::stoull(found[2].str()), 2 * sent(static_cast<std::uint32_t>(std::stoi(found[1])))) << line;
    }
  }
  EXPECT_EQ(begun, (std::set<int>{0, 1, 2, 3})) << printed.substr(0, 4000);
  EXPECT_EQ(ended, (std::set<int>{0, 1, 2, 3}));
  // Each rank a process under its node in the system tree.
  const std::string defs = moirai::test_support::command_output(std::string(OTF2_PRINT) + " -G " + out + "/traces.otf2");
  std::map<int, std::string> node_of;
  const std::regex group(R"re(LOCATION_GROUP\s+(\d+)\s+Name: "core \d+" <\d+>, Type: PROCESS, Parent: "node::([^"]+)")re");
  for (auto it = std::sregex_iterator(defs.begin(), defs.end(), group); it != std::sregex_iterator(); ++it) {
    node_of[std::stoi((*it)[1].str())] = (*it)[2].str();
  }
  EXPECT_EQ(node_of, (std::map<int, std::string>{{0, "node0"}, {1, "node1"}, {2, "node0"}, {3, "node1"}})) << defs;
}

TEST(MpiExport, PerfettoHasOneFlowPerMessageFromTheSendersUnitToTheReceivers) {
  const Merged m = merged("perfetto");
  const std::string out = (m.dir / "run.json").string();
  visualize::export_perfetto(m.trace, out);
  std::ifstream in(out);
  const nlohmann::json json = nlohmann::json::parse(in);
  std::map<std::int64_t, std::pair<int, int>> messages;  // message number: (from core, to core)
  std::map<std::int64_t, int> starts;
  for (const auto& event : json.at("traceEvents")) {
    if (!event.contains("args") || !event.at("args").contains("message")) continue;
    const std::int64_t number = event.at("args").at("message");
    const std::string phase = event.at("ph");
    auto& pair = messages[number];
    (phase == "s" ? pair.first : pair.second) = event.at("tid").get<int>();
    starts[number] += phase == "s";
    if (phase == "s") {
      EXPECT_EQ(event.at("args").at("bytes").get<std::uint64_t>(), sent(event.at("tid").get<std::uint32_t>())) << event;
    }
  }
  std::multiset<std::pair<int, int>> pairs;
  for (const auto& [number, pair] : messages) {
    pairs.insert(pair);
    EXPECT_EQ(starts[number], 1) << number;
  }
  EXPECT_EQ(pairs, kRing);
}

// The protobuf form has no per-flow arguments: a message's flow is the one that leaves the
// sender's unit (ended by the send: the slice's `ended_by`), bound to that unit's slice and to the receiver's.
TEST(MpiExport, PerfettoProtobufHasAFlowPerMessageBetweenTheRightCores) {
  const Merged m = merged("perfetto-proto");
  const std::string out = (m.dir / "run.pftrace").string();
  visualize::export_perfetto_proto(m.trace, out);
  std::ifstream in(out, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const moirai::test_support::PerfettoTrace read = moirai::test_support::read_perfetto_trace(bytes);
  for (const std::string& error : read.errors) ADD_FAILURE() << error;
  std::map<std::uint64_t, int> core_of_track;
  for (const auto& [uuid, name] : read.tracks) {
    for (int core = 0; core < static_cast<int>(kRanks); ++core) {
      if (name == "core " + std::to_string(core) && !read.counter_tracks.at(uuid)) core_of_track[uuid] = core;
    }
  }
  std::multiset<std::pair<int, int>> pairs;
  for (const auto& [id, flow] : read.flows) {
    ASSERT_NE(flow.from, SIZE_MAX);
    ASSERT_NE(flow.to, SIZE_MAX);
    const auto &from = read.slices[flow.from], &to = read.slices[flow.to];
    EXPECT_TRUE(moirai::test_support::binds_units(read, flow)) << id;
    if (from.args.count("ended_by") && from.args.at("ended_by").rfind("send at ", 0) == 0) {  // "send at ring.c:20"
      pairs.insert({core_of_track.at(from.track), core_of_track.at(to.track)});
    }
  }
  EXPECT_EQ(pairs, kRing);
}

TEST(MpiExport, SqliteHasAMessagesTable) {
  const Merged m = merged("sqlite");
  const std::string out = (m.dir / "run.sqlite").string();
  visualize::export_sqlite(m.trace, out);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(out.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  const char* query =
      "SELECT m.from_core, m.to_core, m.send_ns, m.receive_ns, c.name, s.line, r.line FROM messages m "
      "JOIN constructs c ON c.kind = m.construct JOIN call_sites s ON s.site = m.send_site "
      "JOIN call_sites r ON r.site = m.receive_site ORDER BY m.from_core";
  ASSERT_EQ(sqlite3_prepare_v2(db, query, -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::multiset<std::pair<int, int>> pairs;
  int rows = 0;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    const int from = sqlite3_column_int(statement, 0), to = sqlite3_column_int(statement, 1);
    pairs.insert({from, to});
    // Times from the trace's start (the first return from MPI_Init, at 2000 ns): the send began at
    // its isend (3200 + 100 x rank), the receive returned from the waitall at 5000.
    EXPECT_EQ(sqlite3_column_int64(statement, 2), 1200 + 100 * from);
    EXPECT_EQ(sqlite3_column_int64(statement, 3), 3000);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, 4))), "send");
    EXPECT_EQ(sqlite3_column_int(statement, 5), 20);  // the isend's line
    EXPECT_EQ(sqlite3_column_int(statement, 6), 30);  // the waitall's
    ++rows;
  }
  sqlite3_finalize(statement);
  // What each message carried, from the trace's message records; the communicator by name.
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT m.from_core, m.bytes, m.tag, m.any_source, m.any_tag, k.name, k.size FROM messages m "
                               "JOIN communicators k ON k.communicator = m.communicator ORDER BY m.from_core",
                               -1, &statement, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  int carried = 0;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    const auto from = static_cast<std::uint32_t>(sqlite3_column_int(statement, 0));
    EXPECT_EQ(static_cast<std::uint64_t>(sqlite3_column_int64(statement, 1)), sent(from));
    EXPECT_EQ(sqlite3_column_int(statement, 2), 7);
    EXPECT_EQ(sqlite3_column_int(statement, 3), 0);
    EXPECT_EQ(sqlite3_column_int(statement, 4), 0);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, 5))), "MPI_COMM_WORLD");
    EXPECT_EQ(sqlite3_column_int(statement, 6), 4);
    ++carried;
  }
  sqlite3_finalize(statement);
  EXPECT_EQ(carried, 4);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT sum(bytes), count(*) FROM collective_calls", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(statement, 0), 16 + 32 + 48 + 64);
  EXPECT_EQ(sqlite3_column_int(statement, 1), 4);
  sqlite3_finalize(statement);
  // What the trace's span leaves out is one metadata row (a key and a note of the same name).
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT value FROM metadata WHERE key = 'outside_span'", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))),
            "MPI_Init before the first unit (longest 0.001 ms, rank 0) and MPI_Finalize after the last (longest 0.001 ms, rank 0)");
  EXPECT_EQ(sqlite3_step(statement), SQLITE_DONE);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  EXPECT_EQ(rows, 4);
  EXPECT_EQ(pairs, kRing);
}

}  // namespace
