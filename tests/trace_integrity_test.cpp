// What the reader refuses that a checksum cannot (docs/trace-format.md, "What the reader checks"):
// a crafted trace per invariant, refused with its chunk and byte, or read with the broken part
// left out and said in Trace::integrity; and input that must not exhaust memory.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "moirai/trace/chunk_checksum.h"
#include "moirai/trace/format.h"
#include "moirai/trace/openmp_words.h"
#include "moirai/trace/reader.h"
#include "support/sanitizers.h"
#include "support/trace_builder.h"

namespace {

using namespace moirai;
using Bytes = std::vector<unsigned char>;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "moirai_integrity_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
}

Bytes file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// Chunk is one chunk of a trace in memory: where its header is, and the header.
struct Chunk {
  std::size_t at = 0;
  trace::ChunkHeader header{};
};

std::vector<Chunk> chunks_of(const Bytes& bytes) {
  std::vector<Chunk> chunks;
  for (std::size_t at = sizeof(trace::FileHeader); at + sizeof(trace::ChunkHeader) <= bytes.size();) {
    Chunk chunk{at, {}};
    std::memcpy(&chunk.header, bytes.data() + at, sizeof chunk.header);
    chunks.push_back(chunk);
    at += sizeof(trace::ChunkHeader) + chunk.header.payload_size;
  }
  return chunks;
}

void store_header(Bytes& bytes, const Chunk& chunk) { std::memcpy(bytes.data() + chunk.at, &chunk.header, sizeof chunk.header); }

// checksum_as is the checksum a chunk carries in format 3.`minor`.
std::uint32_t checksum_as(const Bytes& bytes, const Chunk& chunk, std::uint16_t minor) {
  uLong crc = crc32(0L, Z_NULL, 0);
  if (minor >= 3) crc = crc32(crc, reinterpret_cast<const Bytef*>(&chunk.header.type), 8);
  return static_cast<std::uint32_t>(crc32(crc, bytes.data() + chunk.at + sizeof(trace::ChunkHeader), chunk.header.payload_size));
}

// write_two_cores writes a sound trace of two cores, two units and an idle span each, to `path`;
// `choices` none: as a trace from before format 3.6.
void write_two_cores(const std::string& path, std::optional<LanguageChoices> choices = test_support::ssr_options().choices) {
  trace::BuilderOptions options = test_support::ssr_options(2);
  options.choices = std::move(choices);
  test_support::TraceBuilder out(options);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.idle(0, 220, 300);
  out.unit(0, 2, 1, 300, 310, 400, 420, 0, 0);
  out.unit(1, 3, 2, 100, 110, 250, 260, 0, 0);
  out.idle(1, 260, 300);
  out.unit(1, 4, 2, 300, 305, 390, 400, 0, 0);
  out.write(path);
}

trace::Trace read_bytes(const Bytes& bytes) { return trace::parse_trace(bytes.data(), bytes.size()); }

// refused_with is the reader's message for a trace it must refuse.
std::string refused_with(const std::string& path) {
  try {
    trace::read_trace(path);
  } catch (const trace::TraceError& error) {
    return error.what();
  }
  ADD_FAILURE() << path << " was read, but must be refused";
  return "";
}

TEST(TraceIntegrity, ASoundTraceLeavesNothingOut) {
  const std::string path = temp_path("sound");
  write_two_cores(path);
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_TRUE(t.integrity.sound());
  EXPECT_EQ(t.integrity.summary(), "");
  EXPECT_EQ(t.units.size(), 4u);
  EXPECT_EQ(t.version, (std::pair<std::uint16_t, std::uint16_t>{3, trace::kVersionMinor}));
}

TEST(TraceIntegrity, AFlippedCoreIdFailsTheChecksumFromFormat3_3) {
  const std::string path = temp_path("core");
  write_two_cores(path);
  Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  for (Chunk chunk : chunks_of(bytes)) {
    if (chunk.header.type != static_cast<std::uint16_t>(trace::ChunkType::events) || chunk.header.core != 0) continue;
    chunk.header.core = 1;
    store_header(bytes, chunk);
    try {
      read_bytes(bytes);
      FAIL() << "a chunk whose core id was flipped was read";
    } catch (const trace::TraceError& error) {
      EXPECT_EQ(error.offset(), chunk.at);
      EXPECT_NE(std::string(error.what()).find("fails its checksum"), std::string::npos) << error.what();
    }
    return;
  }
  FAIL() << "no events chunk of core 0";
}

TEST(TraceIntegrity, AFormat3_2TraceStillReadsWithItsPayloadChecksums) {
  const std::string path = temp_path("old");
  write_two_cores(path, std::nullopt);
  Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  bytes[10] = 2;  // version_minor
  for (Chunk chunk : chunks_of(bytes)) {
    chunk.header.payload_crc32 = checksum_as(bytes, chunk, 2);
    store_header(bytes, chunk);
  }
  const trace::Trace t = read_bytes(bytes);
  EXPECT_EQ(t.version, (std::pair<std::uint16_t, std::uint16_t>{3, 2}));
  EXPECT_EQ(t.units.size(), 4u);
  EXPECT_TRUE(t.integrity.sound());
}

TEST(TraceIntegrity, ARepeatedChunkIsLeftOutWithAWarning) {
  const std::string path = temp_path("repeat");
  write_two_cores(path);
  Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  const std::vector<Chunk> chunks = chunks_of(bytes);
  std::size_t events = 0;
  while (chunks[events].header.type != static_cast<std::uint16_t>(trace::ChunkType::events)) ++events;
  // The events chunk again, right after itself, and every later chunk renumbered.
  const Chunk& original = chunks[events];
  const std::size_t end = original.at + sizeof(trace::ChunkHeader) + original.header.payload_size;
  Bytes repeated(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(end));
  repeated.insert(repeated.end(), bytes.begin() + static_cast<std::ptrdiff_t>(original.at), bytes.begin() + static_cast<std::ptrdiff_t>(end));
  repeated.insert(repeated.end(), bytes.begin() + static_cast<std::ptrdiff_t>(end), bytes.end());
  std::vector<Chunk> now = chunks_of(repeated);
  for (std::size_t i = events + 1; i < now.size(); ++i) {
    now[i].header.sequence = i;
    store_header(repeated, now[i]);
  }
  const trace::Trace t = read_bytes(repeated);
  EXPECT_EQ(t.units.size(), 4u) << "the repeat's units are not read twice";
  EXPECT_EQ(t.integrity.chunks_left_out, 1u);
  ASSERT_EQ(t.integrity.warnings.size(), 1u);
  EXPECT_NE(t.integrity.warnings[0].find("at byte " + std::to_string(end)), std::string::npos) << t.integrity.warnings[0];
  EXPECT_NE(t.integrity.warnings[0].find("repeats chunk " + std::to_string(events)), std::string::npos) << t.integrity.warnings[0];
  EXPECT_NE(t.integrity.summary().find("1 repeated chunk"), std::string::npos) << t.integrity.summary();
}

TEST(TraceIntegrity, ARepeatedUnitIdIsLeftOutWithItsRecords) {
  const std::string path = temp_path("unit_id");
  test_support::TraceBuilder out(2);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.unit(1, 1, 2, 100, 110, 250, 260, 0, 0);  // unit 1 again, on the other core
  out.os_taken(1, 1, 5);
  out.declared_work(1, 1, 77);
  out.unit(1, 2, 2, 260, 270, 280, 290, 0, 0);
  out.write(path);
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.units.size(), 2u);
  EXPECT_EQ(t.units[0].core, 0u);
  EXPECT_EQ(t.units[0].taken, 0u) << "the left-out unit's OS record went with it";
  EXPECT_EQ(t.integrity.units_left_out, 1u);
  ASSERT_EQ(t.integrity.warnings.size(), 1u);
  EXPECT_NE(t.integrity.warnings[0].find("events of core 1"), std::string::npos) << t.integrity.warnings[0];
  EXPECT_NE(t.integrity.warnings[0].find("unit 1 was recorded before"), std::string::npos) << t.integrity.warnings[0];
}

TEST(TraceIntegrity, AnOverlappingUnitIsLeftOutWithAWarning) {
  const std::string path = temp_path("overlap");
  test_support::TraceBuilder out(1);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.unit(0, 2, 1, 150, 230, 240, 250, 0, 0);  // begins inside unit 1
  out.unit(0, 3, 1, 220, 230, 240, 250, 0, 0);
  out.write(path);
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.units.size(), 2u);
  EXPECT_EQ(t.units[1].record.unit, 3u);
  EXPECT_EQ(t.integrity.units_left_out, 1u);
  ASSERT_EQ(t.integrity.warnings.size(), 1u);
  EXPECT_NE(t.integrity.warnings[0].find("unit 2 [150, 250) overlaps"), std::string::npos) << t.integrity.warnings[0];
}

TEST(TraceIntegrity, AnOverlappingIdleSpanIsLeftOut) {
  const std::string path = temp_path("idle");
  test_support::TraceBuilder out(1);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.idle(0, 210, 300);
  out.write(path);
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_TRUE(t.idle.empty());
  EXPECT_EQ(t.integrity.spans_left_out, 1u);
}

TEST(TraceIntegrity, TimeGoingBackwardsOnACoreIsRefused) {
  const std::string path = temp_path("backwards");
  test_support::TraceBuilder out(1);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.unit(0, 2, 1, 50, 60, 70, 80, 0, 0);
  out.write(path);
  const std::string message = refused_with(path);
  std::remove(path.c_str());
  EXPECT_NE(message.find("at byte "), std::string::npos) << message;
  EXPECT_NE(message.find("chunk "), std::string::npos) << message;
  EXPECT_NE(message.find("time goes backwards on the core"), std::string::npos) << message;
}

TEST(TraceIntegrity, AClockRateOutOfRangeIsRefused) {
  for (const double hz : {1.0, 1e12}) {
    const std::string path = temp_path("clock");
    trace::BuilderOptions options = test_support::ssr_options();
    options.clock_hz = hz;
    test_support::TraceBuilder(options).write(path);
    const std::string message = refused_with(path);
    std::remove(path.c_str());
    EXPECT_NE(message.find("impossible clock frequency"), std::string::npos) << message;
  }
}

TEST(TraceIntegrity, AHomeCoreBeyondTheCoresIsRefused) {
  const std::string path = temp_path("home");
  test_support::TraceBuilder out(2);
  out.vp(1, "main", 5, 0);
  out.write(path);
  const std::string message = refused_with(path);
  std::remove(path.c_str());
  EXPECT_NE(message.find("VP 1 has home core 5 in a trace of 2 cores"), std::string::npos) << message;
  EXPECT_NE(message.find("(definitions)"), std::string::npos) << message;
}

TEST(TraceIntegrity, ATimeBeyond2To63IsRefused) {
  const std::string path = temp_path("huge_time");
  test_support::TraceBuilder out(1);
  out.idle(0, 1, (1ull << 63) + 5);
  out.write(path);
  const std::string message = refused_with(path);
  std::remove(path.c_str());
  EXPECT_NE(message.find("beyond 2^63"), std::string::npos) << message;
}

TEST(TraceIntegrity, ManyBrokenPartsMakeTheTraceUnsound) {
  const std::string path = temp_path("many");
  test_support::TraceBuilder out(1);
  out.unit(0, 1, 1, 100, 110, 200, 100000, 0, 0);
  for (std::uint64_t u = 2; u < trace::kMaxLeftOut + 3; ++u) out.unit(0, u, 1, 100 + u, 200 + u, 300 + u, 400 + u, 0, 0);
  out.write(path);
  const std::string message = refused_with(path);
  std::remove(path.c_str());
  EXPECT_NE(message.find("more than 100 parts of the trace are inconsistent"), std::string::npos) << message;
}

// --- The end chunk's totals -----------------------------------------------------------------

// without_chunk is `bytes` without its chunk `gone`, every later chunk renumbered: what is left
// reads chunk by chunk (the sequence is not under the checksum), as a chunk lost whole would.
Bytes without_chunk(const Bytes& bytes, std::size_t gone) {
  const std::vector<Chunk> chunks = chunks_of(bytes);
  const std::size_t from = chunks[gone].at, to = from + sizeof(trace::ChunkHeader) + chunks[gone].header.payload_size;
  Bytes rest(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(from));
  rest.insert(rest.end(), bytes.begin() + static_cast<std::ptrdiff_t>(to), bytes.end());
  std::vector<Chunk> now = chunks_of(rest);
  for (std::size_t i = gone; i < now.size(); ++i) {
    now[i].header.sequence = i;
    store_header(rest, now[i]);
  }
  return rest;
}

// with_end is `bytes` with its end chunk's totals set by `edit`, its checksum made to match.
Bytes with_end(Bytes bytes, const std::function<void(trace::EndPayload&)>& edit) {
  Chunk end = chunks_of(bytes).back();
  EXPECT_EQ(end.header.type, static_cast<std::uint16_t>(trace::ChunkType::end));
  trace::EndPayload totals{};
  unsigned char* payload = bytes.data() + end.at + sizeof(trace::ChunkHeader);
  std::memcpy(&totals, payload, sizeof totals);
  edit(totals);
  std::memcpy(payload, &totals, sizeof totals);
  end.header.payload_crc32 = checksum_as(bytes, end, trace::kVersionMinor);
  store_header(bytes, end);
  return bytes;
}

std::string refused_bytes(const Bytes& bytes) {
  try {
    read_bytes(bytes);
  } catch (const trace::TraceError& error) {
    return error.what();
  }
  ADD_FAILURE() << "the trace was read, but must be refused";
  return "";
}

TEST(TraceIntegrity, ACompleteTraceMissingOneCoresEventsChunkIsRefusedNamingTheCoreAndBothCounts) {
  const std::string path = temp_path("missing_chunk");
  write_two_cores(path);
  const Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  const std::vector<Chunk> chunks = chunks_of(bytes);
  std::size_t core1 = 0;
  while (chunks[core1].header.type != static_cast<std::uint16_t>(trace::ChunkType::events) || chunks[core1].header.core != 1) {
    ++core1;
  }
  const Bytes lost = without_chunk(bytes, core1);
  const std::string message = refused_bytes(lost);
  EXPECT_NE(message.find("(end): the end chunk disagrees with the trace"), std::string::npos) << message;
  EXPECT_NE(message.find("it counts 6 records, the trace holds 3 (core 1 holds none: its events are missing)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("it counts " + std::to_string(chunks.size() - 1) + " chunks before it, the file holds " +
                         std::to_string(chunks.size() - 2)),
            std::string::npos)
      << message;
  // A stopped run's trace, cut before its end chunk, is not held to one: it reads as cut.
  const Bytes cut(lost.begin(), lost.begin() + static_cast<std::ptrdiff_t>(chunks_of(lost).back().at));
  const trace::Trace t = read_bytes(cut);
  EXPECT_FALSE(t.complete);
  EXPECT_EQ(t.units.size(), 2u);
}

TEST(TraceIntegrity, EndChunkTotalsTheFormatForbidsAreRefused) {
  const std::string path = temp_path("end_totals");
  write_two_cores(path);
  const Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  EXPECT_NO_THROW(read_bytes(with_end(bytes, [](trace::EndPayload&) {})));
  const std::string records = refused_bytes(with_end(bytes, [](trace::EndPayload& e) { e.records = 1ull << 63; }));
  EXPECT_NE(records.find("it counts 9223372036854775808 records, the trace holds 6"), std::string::npos) << records;
  const std::string dropped = refused_bytes(with_end(bytes, [](trace::EndPayload& e) { e.dropped = 1ull << 63; }));
  EXPECT_NE(dropped.find("it says 9223372036854775808 records were dropped, where the format allows none"), std::string::npos)
      << dropped;
  const std::string waits = refused_bytes(with_end(bytes, [](trace::EndPayload& e) { e.writer_waits = UINT64_MAX; }));
  EXPECT_NE(waits.find("it counts 18446744073709551615 writer waits, the trace holds 0 writer-wait records of 6 records"),
            std::string::npos)
      << waits;
  // All three at once: each is named, in one message.
  const std::string all = refused_bytes(with_end(bytes, [](trace::EndPayload& e) {
    e.records = 1ull << 63;
    e.dropped = 1ull << 63;
    e.writer_waits = UINT64_MAX;
  }));
  for (const char* part : {"records, the trace holds", "were dropped", "writer waits"}) {
    EXPECT_NE(all.find(part), std::string::npos) << all;
  }
}

// A real-clock trace whose run began 26 minutes of ticks after tick 0 (start_ticks), and one unit
// claiming to begin at tick 0: it would stretch the makespan to 26 minutes.
TEST(TraceIntegrity, AUnitBeforeTheRunsStartIsLeftOutWithAWarning) {
  constexpr std::uint64_t kStart = 26ull * 60 * 1'000'000'000;  // 26 minutes at 1 GHz
  trace::BuilderOptions options = test_support::ssr_options(2);
  options.clock_source = "tsc";
  options.metadata = {{"start_ticks", std::to_string(kStart)}};
  test_support::TraceBuilder out(options);
  out.idle(0, 5, 50);
  out.unit(0, 1, 1, kStart + 100, kStart + 110, kStart + 200, kStart + 220, 0, 0);
  out.unit(1, 2, 2, 0, 10, 90, 100, 0, 0);
  out.unit(1, 3, 2, kStart + 100, kStart + 105, kStart + 150, kStart + 160, 0, 0);
  const std::string path = temp_path("before_start");
  out.write(path);
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.units.size(), 2u);
  EXPECT_EQ(t.units[0].record.unit, 1u);
  EXPECT_EQ(t.units[1].record.unit, 3u);
  EXPECT_TRUE(t.idle.empty());
  EXPECT_EQ(t.integrity.units_left_out, 1u);
  EXPECT_EQ(t.integrity.spans_left_out, 1u);
  ASSERT_EQ(t.integrity.warnings.size(), 2u);
  EXPECT_NE(t.integrity.warnings[1].find("(events of core 1)): unit 2 begins at tick 0, 1560 s before the run's start "
                                         "(start_ticks 1560000000000): no record precedes the recording; left out"),
            std::string::npos)
      << t.integrity.warnings[1];
  EXPECT_NE(t.integrity.warnings[0].find("an idle span begins at tick 5"), std::string::npos) << t.integrity.warnings[0];
  // A start that is no clock reading is refused.
  options.metadata = {{"start_ticks", "soon"}};
  test_support::TraceBuilder(options).write(path);
  const std::string message = refused_with(path);
  std::remove(path.c_str());
  EXPECT_NE(message.find("metadata 'start_ticks' is not a clock reading: soon"), std::string::npos) << message;
}

// --- Bounded input --------------------------------------------------------------------------

long peak_rss_kib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(TraceInput, DevZeroIsRefusedAtOnce) {
  try {
    trace::read_trace("/dev/zero");
    FAIL() << "/dev/zero was read as a trace";
  } catch (const trace::TraceError& error) {
    EXPECT_NE(std::string(error.what()).find("not a Moirai trace"), std::string::npos) << error.what();
  }
}

TEST(TraceInput, ADirectoryIsRefused) {
  EXPECT_THROW(trace::read_trace(::testing::TempDir()), trace::TraceError);
}

// A huge length field in a short file: a cut trace, found without allocating the 64 MiB claimed.
TEST(TraceInput, AHugeChunkLengthInAShortFileAllocatesNothing) {
  const std::string path = temp_path("huge_length");
  write_two_cores(path);
  Bytes bytes = file_bytes(path);
  std::vector<Chunk> chunks = chunks_of(bytes);
  Chunk last = chunks.back();
  last.header.payload_size = trace::kMaxChunkPayload;
  store_header(bytes, last);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const long before = peak_rss_kib();
  const trace::Trace t = trace::read_trace(path);
  std::remove(path.c_str());
  EXPECT_FALSE(t.complete);
  EXPECT_LT(peak_rss_kib() - before, 16 * 1024) << "KiB of peak RSS grew while reading";
  last.header.payload_size = trace::kMaxChunkPayload + 1;
  store_header(bytes, last);
  EXPECT_THROW(read_bytes(bytes), trace::TraceError);
}

// PipeFeeder writes bytes into a pipe, then zeros until the reader closes it: an endless stream.
class PipeFeeder {
 public:
  explicit PipeFeeder(Bytes head) {
    if (::pipe(fds_) != 0) throw std::runtime_error("pipe failed");
    writer_ = std::thread([this, head = std::move(head)] {
      const Bytes zeros(1 << 16, 0);
      bool ok = ::write(fds_[1], head.data(), head.size()) == static_cast<ssize_t>(head.size());
      while (ok) ok = ::write(fds_[1], zeros.data(), zeros.size()) > 0;
      ::close(fds_[1]);
    });
  }
  ~PipeFeeder() {
    ::close(fds_[0]);  // the writer's next write fails with EPIPE (ignored below) and it ends
    writer_.join();
  }
  std::string path() const { return "/dev/fd/" + std::to_string(fds_[0]); }

 private:
  int fds_[2] = {-1, -1};
  std::thread writer_;
};

TEST(TraceInput, AnEndlessPipeIsRefusedAtTheLimitWithBoundedMemory) {
  std::signal(SIGPIPE, SIG_IGN);
  const std::string path = temp_path("pipe_head");
  write_two_cores(path);
  Bytes head = file_bytes(path);
  std::remove(path.c_str());
  // The trace without its end chunk, then a definitions chunk header claiming 64 MiB of zeros.
  const std::vector<Chunk> chunks = chunks_of(head);
  head.resize(chunks.back().at);
  trace::ChunkHeader endless{trace::kChunkMagic, static_cast<std::uint16_t>(trace::ChunkType::definitions), trace::kNoCore,
                             trace::kMaxChunkPayload, 0, chunks.back().header.sequence};
  const auto* raw = reinterpret_cast<const unsigned char*>(&endless);
  head.insert(head.end(), raw, raw + sizeof endless);
  const long before = peak_rss_kib();
  {
    PipeFeeder feeder(head);
    try {
      trace::read_trace(feeder.path(), 8u << 20);
      FAIL() << "an endless pipe was read";
    } catch (const trace::TraceError& error) {
      EXPECT_NE(std::string(error.what()).find("trace size limit"), std::string::npos) << error.what();
    }
  }
  EXPECT_LT(peak_rss_kib() - before, 32 * 1024) << "KiB of peak RSS grew while reading";
}

TEST(TraceInput, APipeHoldingATraceReadsWhole) {
  const std::string path = temp_path("pipe_whole");
  write_two_cores(path);
  const Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    [[maybe_unused]] const ssize_t wrote = ::write(fds[1], bytes.data(), bytes.size());
    ::close(fds[1]);
  });
  const trace::Trace t = trace::read_trace("/dev/fd/" + std::to_string(fds[0]));
  writer.join();
  ::close(fds[0]);
  EXPECT_TRUE(t.complete);
  EXPECT_EQ(t.units.size(), 4u);
  EXPECT_EQ(t.bytes, bytes.size());
}

// vm_bytes is this process's virtual memory size (/proc/self/statm, in pages).
[[maybe_unused]] std::uint64_t vm_bytes() {  // unused where ASan owns the address space
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Reading more than memory holds is a TraceError, never std::bad_alloc escaping (SIGABRT): a child
// process reads a 300,000-unit trace with room for a fraction of it (RLIMIT_AS).
TEST(TraceInput, RunningOutOfMemoryIsATraceError) {
#if defined(MOIRAI_TEST_ASAN)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: RLIMIT_AS cannot bound it";
#else
  const std::string path = temp_path("oom");
  {
    test_support::TraceBuilder out(1);
    for (std::uint64_t u = 1; u <= 300000; ++u) out.unit(0, u, 1, 10 * u, 10 * u + 1, 10 * u + 5, 10 * u + 10, 0, 0);
    out.write(path);
  }
  const pid_t child = ::fork();
  if (child == 0) {
    const rlim_t room = vm_bytes() + (16u << 20);
    const rlimit limit{room, room};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(3);
    try {
      trace::read_trace(path);
      std::_Exit(4);  // it fitted after all: the test cannot tell
    } catch (const trace::TraceOutOfMemory& error) {
      std::_Exit(std::string(error.what()).find("out of memory reading " + path) != std::string::npos ? 0 : 1);
    } catch (...) {
      std::_Exit(2);
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  std::remove(path.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "the reader died by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: another TraceError, 2: another exception, 3: no limit, 4: it fitted";
#endif
}

TEST(TraceInput, AFileOverTheLimitIsRefusedBeforeItIsRead) {
  const std::string path = temp_path("limit");
  write_two_cores(path);
  try {
    trace::read_trace(path, 100);
    ADD_FAILURE() << "a file over the limit was read";
  } catch (const trace::TraceError& error) {
    EXPECT_NE(std::string(error.what()).find("over the trace size limit of 100 bytes"), std::string::npos) << error.what();
  }
  ::setenv("MOIRAI_TRACE_MAX_BYTES", "1K", 1);
  EXPECT_EQ(trace::max_trace_bytes(), 1024u);
  EXPECT_THROW(trace::read_trace(path), trace::TraceError);
  ::setenv("MOIRAI_TRACE_MAX_BYTES", "lots", 1);
  EXPECT_THROW(trace::max_trace_bytes(), trace::TraceError);
  ::unsetenv("MOIRAI_TRACE_MAX_BYTES");
  EXPECT_EQ(trace::max_trace_bytes(), trace::kDefaultMaxTraceBytes);
  std::remove(path.c_str());
}

// language_trace is the bytes of a one-unit trace of `language` whose language gives `choices`
// (none: a trace from before format 3.6, whose header then says 3.5).
Bytes language_trace(const std::string& language, const std::optional<LanguageChoices>& choices) {
  trace::BuilderOptions options;
  options.language = language;
  options.choices = choices;
  test_support::TraceBuilder out(options);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  const std::string path = temp_path("language");
  out.write(path);
  Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  if (!choices) {
    const std::uint16_t minor = trace::kLanguageChoicesMinor - 1;
    std::memcpy(bytes.data() + 10, &minor, sizeof minor);  // "MOIRAITR", u16 major, u16 minor
  }
  return bytes;
}

// A trace from before format 3.6 named its language only: the reader's format history gives it
// the placement and words its language had then, by that name; whatever a 3.6 trace names its
// language, its own choices stand.
TEST(TraceLanguageChoices, AnOlderTraceGetsItsLanguagesFromTheFormatHistory) {
  const LanguageChoices own{LanguagePlacement::last_core, {{"vp", "strand"}}};
  struct Case {
    std::string language;
    LanguagePlacement placement;
    std::vector<LanguageWord> words;
  };
  for (const Case& c : {Case{"SSR", LanguagePlacement::last_core, {}}, Case{"OpenMP", LanguagePlacement::any_core, trace::kFormat35OpenMpWords},
                        Case{"VSs", LanguagePlacement::any_core, {}}, Case{"Weave", LanguagePlacement::any_core, {}}}) {
    const trace::Trace now = read_bytes(language_trace(c.language, own));
    EXPECT_EQ(now.language_choices.placement, own.placement) << c.language;
    EXPECT_EQ(now.language_choices.words, own.words) << c.language;
    const trace::Trace old = read_bytes(language_trace(c.language, std::nullopt));
    EXPECT_EQ(old.version, (std::pair<std::uint16_t, std::uint16_t>{3, 5}));
    EXPECT_EQ(old.language_choices.placement, c.placement) << c.language;
    EXPECT_EQ(old.language_choices.words, c.words) << c.language;
  }
}

TEST(TraceLanguageChoices, ChoicesAnOlderTraceCannotHoldOrTheFormatDoesNotKnowAreRefused) {
  Bytes bytes = language_trace("Weave", LanguageChoices{LanguagePlacement::any_core, {{"vp", "strand"}}});
  Bytes old = bytes;
  const std::uint16_t minor = 5;
  std::memcpy(old.data() + 10, &minor, sizeof minor);  // the chunk checksums do not cover the file header
  try {
    read_bytes(old);
    ADD_FAILURE() << "a 3.5 trace held a placement";
  } catch (const trace::TraceError& error) {
    EXPECT_NE(std::string(error.what()).find("a placement definition is format 3.6; this trace says 3.5"), std::string::npos)
        << error.what();
  }
  for (Chunk chunk : chunks_of(bytes)) {
    if (chunk.header.type != static_cast<std::uint16_t>(trace::ChunkType::definitions)) continue;
    unsigned char* payload = bytes.data() + chunk.at + sizeof(trace::ChunkHeader);
    for (std::size_t at = 0; at < chunk.header.payload_size;) {
      trace::Definition entry{};
      std::memcpy(&entry, payload + at, sizeof entry);
      if (entry.type == static_cast<std::uint16_t>(trace::DefinitionType::placement)) {
        entry.b = 3;
        std::memcpy(payload + at, &entry, sizeof entry);
        chunk.header.payload_crc32 = trace::chunk_checksum(chunk.header, payload, chunk.header.payload_size);
        store_header(bytes, chunk);
        try {
          read_bytes(bytes);
          ADD_FAILURE() << "a placement the format does not know was read";
        } catch (const trace::TraceError& error) {
          EXPECT_EQ(error.offset(), chunk.at + sizeof(trace::ChunkHeader) + at);
          EXPECT_NE(std::string(error.what()).find("unknown placement 3 (1 any core, 2 last core)"), std::string::npos) << error.what();
        }
        return;
      }
      at += sizeof entry + ((entry.text_size + 7u) & ~std::size_t{7});
    }
  }
  FAIL() << "the builder wrote no placement";
}


// message_trace is a sound trace of two cores with one message (match 1, core 0 to core 1) and one
// collective call (unit 2), then what `extra` adds, as bytes.
Bytes message_trace(const std::function<void(test_support::TraceBuilder&)>& extra = {}) {
  const std::string path = temp_path("messages");
  test_support::TraceBuilder out(2);
  out.communicator(0, 2, "MPI_COMM_WORLD");
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.constraint(0, 0, 1, 3, 200, 1);
  out.message(0, 1, 4096, 7, 0, trace::kMessageAnyTag);
  out.unit(0, 2, 1, 300, 310, 400, 420, 0, 0);
  out.collective_call(0, 2, 64, 0);
  out.unit(1, 3, 2, 250, 260, 390, 400, 0, 0);
  if (extra) extra(out);
  out.write(path);
  Bytes bytes = file_bytes(path);
  std::remove(path.c_str());
  return bytes;
}

TEST(TraceMessages, AMessageRecordIsReadByItsMatchAndACollectiveCallByItsUnit) {
  const trace::Trace t = read_bytes(message_trace());
  EXPECT_TRUE(t.integrity.sound()) << t.integrity.summary();
  const trace::MessageRecord* m = t.message(1);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->bytes, 4096u);
  EXPECT_EQ(m->tag, 7);
  EXPECT_EQ(m->flags, trace::kMessageAnyTag);
  EXPECT_EQ(t.communicator_name(m->comm), "MPI_COMM_WORLD");
  EXPECT_EQ(t.communicators.at(0).size, 2u);
  EXPECT_EQ(t.message(2), nullptr);
  ASSERT_EQ(t.collective_calls.count(2), 1u);
  EXPECT_EQ(t.collective_calls.at(2).bytes, 64u);
}

TEST(TraceMessages, AStrayOrRepeatedMessageRecordIsLeftOutWithAWarning) {
  const trace::Trace t = read_bytes(message_trace([](test_support::TraceBuilder& out) {
    out.message(1, 1, 8, 7, 0);   // match 1 again
    out.message(1, 9, 8, 7, 0);   // no constraint holds match 9
  }));
  EXPECT_EQ(t.integrity.messages_left_out, 2u);
  ASSERT_EQ(t.integrity.warnings.size(), 2u);
  EXPECT_NE(t.integrity.warnings[0].find("events of core 1"), std::string::npos) << t.integrity.warnings[0];
  EXPECT_NE(t.integrity.warnings[0].find("a second message record for match 1"), std::string::npos) << t.integrity.warnings[0];
  EXPECT_NE(t.integrity.warnings[1].find("a message record for match 9, which no constraint holds; left out"), std::string::npos)
      << t.integrity.warnings[1];
  EXPECT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.message(1)->bytes, 4096u) << "the first record stands";
  EXPECT_NE(t.integrity.summary().find("2 message records"), std::string::npos) << t.integrity.summary();
}

TEST(TraceMessages, BrokenMessageRecordsAreRefused) {
  // A communicator the complete trace never defines.
  const auto undefined = [](test_support::TraceBuilder& out) {
    out.constraint(1, 0, 3, 2, 390, 2);
    out.message(1, 2, 8, 7, 5);
  };
  EXPECT_NE(refused_bytes(message_trace(undefined)).find("names communicator 5 (match 2), which the trace never defines"), std::string::npos);
  // A collective call's record that does not follow its unit on its core.
  EXPECT_NE(refused_bytes(message_trace([](test_support::TraceBuilder& out) { out.collective_call(1, 1, 8, 0); }))
                .find("message record for unit 1, which is not the unit recorded before it on core 1"),
            std::string::npos);
  // A record whose flags the format does not know (the builder refuses to write one: patched).
  Bytes bytes = message_trace();
  for (Chunk chunk : chunks_of(bytes)) {
    if (chunk.header.type != static_cast<std::uint16_t>(trace::ChunkType::events) || chunk.header.core != 0) continue;
    unsigned char* payload = bytes.data() + chunk.at + sizeof(trace::ChunkHeader);
    const std::size_t at = 72 + sizeof(trace::ConstraintRecord);  // the message record, after unit 1 and its constraint
    trace::MessageRecord record{};
    std::memcpy(&record, payload + at, sizeof record);
    ASSERT_EQ(record.kind, static_cast<std::uint16_t>(trace::RecordKind::message));
    record.flags = 8;
    std::memcpy(payload + at, &record, sizeof record);
    chunk.header.payload_crc32 = trace::chunk_checksum(chunk.header, payload, chunk.header.payload_size);
    store_header(bytes, chunk);
  }
  EXPECT_NE(refused_bytes(bytes).find("a message record with flags 8"), std::string::npos);
}

TEST(TraceMessages, AnOlderTraceCannotHoldMessageRecords) {
  Bytes bytes = message_trace();
  const std::uint16_t minor = 6;
  std::memcpy(bytes.data() + 10, &minor, sizeof minor);  // the chunk checksums do not cover the file header
  EXPECT_NE(refused_bytes(bytes).find("a communicator definition is format 3.7; this trace says 3.6"), std::string::npos);
  const std::string path = temp_path("old_message");
  test_support::TraceBuilder out(2);
  out.unit(0, 1, 1, 100, 110, 200, 220, 0, 0);
  out.constraint(0, 0, 1, 2, 200, 1);
  out.message(0, 1, 8, 7, 0);
  out.unit(1, 2, 2, 250, 260, 390, 400, 0, 0);
  out.write(path);
  Bytes record_only = file_bytes(path);
  std::remove(path.c_str());
  std::memcpy(record_only.data() + 10, &minor, sizeof minor);
  EXPECT_NE(refused_bytes(record_only).find("events of core 0): a message record is format 3.7; this trace says 3.6"), std::string::npos);
}


}  // namespace
