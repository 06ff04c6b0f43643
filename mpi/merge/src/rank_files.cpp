#include "rank_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "moirai/mpi/merge.h"
#include "record_kinds.h"

namespace moirai::mpi {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& where, const std::string& problem) { throw MergeError(where + ": " + problem); }

// at_init_or_finalize is the reading a line names by `when` (`init` or `finalize`) of a `key` line.
template <class Reading>
std::optional<Reading>& at_init_or_finalize(const std::string& when, std::optional<Reading>& init, std::optional<Reading>& finalize,
                                            const std::string& where, const std::string& key) {
  if (when == "init") return init;
  if (when == "finalize") return finalize;
  fail(where, "a line '" + key + "' is 'init' or 'finalize', not '" + when + "'");
}

// words splits a line at single spaces.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// number reads a whole decimal field of `line` or fails naming it.
template <typename T>
T number(const std::string& text, const std::string& where, const char* what) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return static_cast<T>(value);
  } catch (const std::exception&) {
    fail(where, std::string(what) + " '" + text + "' is not a number");
  }
}

// rest is the text of `line` after its first `skip` words (a text field that may hold spaces).
std::string rest(const std::string& line, int skip) {
  std::size_t at = 0;
  for (int i = 0; i < skip && at != std::string::npos; ++i) {
    at = line.find(' ', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? std::string() : line.substr(at);
}

void read_defs(RankLog& log) {
  std::ifstream in(log.defs_path);
  if (!in) fail(log.defs_path, std::string("cannot be read: ") + std::strerror(errno));
  std::string line;
  std::size_t number_of_line = 0;
  bool seen_rank = false;
  while (std::getline(in, line)) {
    ++number_of_line;
    const std::string where = log.defs_path + ":" + std::to_string(number_of_line);
    const std::vector<std::string> w = words(line);
    if (number_of_line == 1) {
      if (w.size() != 2 || w[0] != kRankLogMagic) fail(where, "not a rank log (its first line is not '" + std::string(kRankLogMagic) + " 1')");
      if (w[1] != std::to_string(kRankLogVersion)) {
        fail(where, "rank log version " + w[1] + ", this merge reads version " + std::to_string(kRankLogVersion));
      }
      continue;
    }
    if (w.empty()) continue;
    const std::string& key = w[0];
    auto need = [&](std::size_t n) {
      if (w.size() < n) fail(where, "a '" + key + "' line has " + std::to_string(w.size() - 1) + " fields, not " + std::to_string(n - 1));
    };
    if (key == "rank") {
      need(3);
      const auto rank = number<std::uint32_t>(w[1], where, "rank");
      if (rank != log.rank) fail(where, "says rank " + w[1] + " in the file of rank " + std::to_string(log.rank));
      log.world_size = number<std::uint32_t>(w[2], where, "world size");
      seen_rank = true;
    } else if (key == "host") {
      log.host = rest(line, 1);
    } else if (key == "command") {
      log.command = rest(line, 1);
    } else if (key == "offset") {
      need(4);
      at_init_or_finalize(w[1], log.offset_init, log.offset_finalize, where, key) =
          Offset{number<std::int64_t>(w[2], where, "offset"), number<std::uint64_t>(w[3], where, "round trip")};
    } else if (key == "run_queue_wait") {
      need(4);
      at_init_or_finalize(w[1], log.wait_init, log.wait_finalize, where, key) =
          RankLog::RunQueueWait{number<std::uint64_t>(w[2], where, "wait"), number<std::uint64_t>(w[3], where, "time")};
    } else if (key == "site") {
      need(4);
      SiteDef site{number<std::uint32_t>(w[2], where, "line"), w[3], rest(line, 4)};
      log.sites[number<std::uint32_t>(w[1], where, "site id")] = std::move(site);
    } else if (key == "comm") {
      need(4);
      CommDef c;
      c.local = number<std::uint16_t>(w[1], where, "communicator id");
      c.parent = number<std::uint16_t>(w[2], where, "parent communicator id");
      const auto size = number<std::size_t>(w[3], where, "size");
      for (std::size_t i = 4; i < w.size(); ++i) {
        if (w[i] == "|") {
          c.inter = true;
          continue;
        }
        const auto member = number<std::int32_t>(w[i], where, "member");
        if (member < 0) fail(where, "member " + w[i] + " is no world rank");
        (c.inter ? c.remote : c.members).push_back(member);
      }
      if (c.members.size() != size) {
        fail(where, "communicator " + w[1] + " says size " + w[3] + " and lists " + std::to_string(c.members.size()) + " members");
      }
      // The tool names MPI_COMM_WORLD and MPI_COMM_SELF too; they must be what their ids say.
      if (c.local == kWorldComm || c.local == kSelfComm) {
        std::vector<std::int32_t> expected;
        if (c.local == kSelfComm) expected.push_back(static_cast<std::int32_t>(log.rank));
        for (std::uint32_t r = 0; c.local == kWorldComm && r < log.world_size; ++r) expected.push_back(static_cast<std::int32_t>(r));
        if (c.inter || c.members != expected) {
          fail(where, std::string("communicator ") + (c.local == kWorldComm ? "0 is MPI_COMM_WORLD" : "1 is MPI_COMM_SELF") +
                          ": its members must be " + (c.local == kWorldComm ? "every world rank in order" : "this rank alone"));
        }
        continue;
      }
      log.comms[c.local] = std::move(c);
    } else if (key == "warning") {
      log.warnings.push_back("rank " + std::to_string(log.rank) + ": " + rest(line, 1));
    } else if (key == "signal") {
      need(3);
      log.cut_why = "ended by signal " + w[1] + " (" + rest(line, 2) + ")";
    } else if (key == "end") {
      need(3);
      log.ended = true;
      log.finalize_time = number<std::uint64_t>(w[2], where, "finalize time");
      const auto count = number<std::uint64_t>(w[1], where, "record count");
      log.records.resize(count);  // checked against the events file after it is read
    } else if (key == "pid" || key == "clock" || key == "thread_level" || key == "library" || key.rfind("x-", 0) == 0) {
      // Kept by the tool for a reader of the logs; the merge needs none of them.
    } else {
      fail(where, "unknown line '" + key + "'");
    }
  }
  if (number_of_line == 0) fail(log.defs_path + ":1", "empty (not a rank log)");
  if (!seen_rank) fail(log.defs_path, "has no 'rank' line");
}

void read_events(RankLog& log) {
  const std::uint64_t expected = log.records.size();
  std::ifstream in(log.events_path, std::ios::binary);
  if (!in) fail(log.events_path, std::string("cannot be read: ") + std::strerror(errno));
  std::error_code error;
  const std::uintmax_t bytes = fs::file_size(log.events_path, error);
  if (error) fail(log.events_path, "cannot be read: " + error.message());
  const std::uint64_t whole = bytes / sizeof(RankRecord);
  if (bytes % sizeof(RankRecord) != 0) {
    const std::string problem = "record " + std::to_string(whole) + " is truncated (" + std::to_string(bytes % sizeof(RankRecord)) +
                                " of " + std::to_string(sizeof(RankRecord)) + " bytes)";
    if (log.ended) fail(log.events_path, problem);
    log.warnings.push_back(log.events_path + ": " + problem + ": the rank is kept up to record " + std::to_string(whole));
  }
  if (log.ended && whole != expected) {
    fail(log.events_path, "holds " + std::to_string(whole) + " records, its .defs 'end' line says " + std::to_string(expected));
  }
  log.records.resize(whole);
  if (whole > 0 && !in.read(reinterpret_cast<char*>(log.records.data()), static_cast<std::streamsize>(whole * sizeof(RankRecord)))) {
    fail(log.events_path, "read failed");
  }
}

// check_records refuses what the format does not allow, naming the record's index.
void check_records(RankLog& log) {
  const auto& r = log.records;
  std::uint64_t last_exit = 0;
  std::int64_t completing = -1;  // the call completions may follow
  bool half = false;              // a sendrecv_recv must follow
  for (std::size_t i = 0; i < r.size(); ++i) {
    const RankRecord& rec = r[i];
    const std::string where = log.events_path + ": record " + std::to_string(i);
    if (!op_known(rec.op)) fail(where, "unknown op " + std::to_string(rec.op));
    const auto op = static_cast<MpiOp>(rec.op);
    if (i == 0 && op != MpiOp::init) fail(where, "the first record is not MPI_Init (op " + std::to_string(rec.op) + ")");
    if (half != (op == MpiOp::sendrecv_recv)) {
      fail(where, half ? "a sendrecv's receive half (op 16) should follow its send half" : "a sendrecv's receive half with no send half before it");
    }
    half = op == MpiOp::sendrecv && (rec.flags & kFlagNested) == 0;
    if (op == MpiOp::completion) {
      if (completing < 0) fail(where, "a completion that follows no wait or test call");
      if (rec.value >= i) fail(where, "a completion naming record " + std::to_string(rec.value) + ", which does not come before it");
      const RankRecord& posted = r[rec.value];
      if (!is_request(static_cast<MpiOp>(posted.op))) {
        fail(where, "a completion naming record " + std::to_string(rec.value) + ", which posts no request (op " +
                        std::to_string(posted.op) + ")");
      }
      continue;
    }
    if (op == MpiOp::sendrecv_recv) continue;
    if (rec.exit < rec.enter) fail(where, "its exit comes before its enter (time going backwards)");
    if ((rec.flags & kFlagNested) != 0) {
      completing = is_completing(op) ? static_cast<std::int64_t>(i) : -1;  // its completions are not the program's
      continue;
    }
    if (rec.enter < last_exit) {
      fail(where, "enters at " + std::to_string(rec.enter) + ", before the previous call's exit at " + std::to_string(last_exit) +
                      " (time going backwards)");
    }
    last_exit = rec.exit;
    completing = is_completing(op) ? static_cast<std::int64_t>(i) : -1;
    if (op == MpiOp::start && (rec.value >= i || (r[rec.value].op != static_cast<std::uint8_t>(MpiOp::send_init) &&
                                                   r[rec.value].op != static_cast<std::uint8_t>(MpiOp::recv_init)))) {
      fail(where, "an MPI_Start naming record " + std::to_string(rec.value) + ", which is no send_init or recv_init before it");
    }
    if (op == MpiOp::abort) log.cut_why = "MPI_Abort";
  }
  if (!log.ended && log.cut_why.empty()) log.cut_why = "killed or cut (no end line)";
}

}  // namespace

std::vector<RankLog> read_rank_logs(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw MergeError(dir + ": not a folder of rank logs");
  const std::string first = (fs::path(dir) / defs_file_name(0)).string();
  if (!fs::exists(first, error)) throw MergeError(dir + ": no " + defs_file_name(0) + " (not a folder the MPI tool wrote, or rank 0 wrote nothing)");
  std::vector<RankLog> logs;
  std::uint32_t size = 1;
  for (std::uint32_t rank = 0; rank < size; ++rank) {
    RankLog log;
    log.rank = rank;
    log.defs_path = (fs::path(dir) / defs_file_name(rank)).string();
    log.events_path = (fs::path(dir) / events_file_name(rank)).string();
    for (const std::string* path : {&log.defs_path, &log.events_path}) {
      if (!fs::exists(*path, error)) {
        throw MergeError(*path + ": missing: rank " + std::to_string(rank) + " of " + std::to_string(size) + " wrote no log");
      }
    }
    read_defs(log);
    if (rank == 0) {
      size = log.world_size;
      if (size == 0) throw MergeError(log.defs_path + ": world size 0");
    } else if (log.world_size != size) {
      throw MergeError(log.defs_path + ": world size " + std::to_string(log.world_size) + ", rank 0 says " + std::to_string(size));
    }
    read_events(log);
    check_records(log);
    logs.push_back(std::move(log));
  }
  const std::string extra = (fs::path(dir) / defs_file_name(size)).string();
  if (fs::exists(extra, error)) throw MergeError(extra + ": a rank beyond the world size " + std::to_string(size));
  return logs;
}

}  // namespace moirai::mpi
