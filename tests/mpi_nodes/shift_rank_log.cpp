// shift_rank_log DIR RANK NS: takes NS nanoseconds off every time in rank RANK's log in the rank
// folder DIR (its records' enter and exit, its `offset` and `end` lines), as if its clock had read
// NS less. The two-node test uses it to make, from a run recorded with a clock offset injected,
// the same run without the offset, and so checks that the merge's clock correction undoes it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "moirai/mpi/rank_log.h"

namespace {

int fail(const std::string& what) {
  std::cerr << "shift_rank_log: " << what << '\n';
  return 1;
}

std::uint64_t shifted(std::uint64_t t, std::int64_t by) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(t) - by); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return fail("usage: shift_rank_log DIR RANK NS");
  const std::string dir = argv[1];
  const auto rank = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const std::int64_t by = std::strtoll(argv[3], nullptr, 10);

  const std::string events_path = dir + "/" + moirai::mpi::events_file_name(rank);
  std::vector<moirai::mpi::RankRecord> records;
  {
    std::ifstream in(events_path, std::ios::binary);
    if (!in) return fail("cannot read " + events_path);
    moirai::mpi::RankRecord record{};
    while (in.read(reinterpret_cast<char*>(&record), sizeof record)) records.push_back(record);
  }
  for (auto& record : records) {
    // A completion's enter is a byte count and its exit 0: no times to move.
    if (record.op == static_cast<std::uint8_t>(moirai::mpi::MpiOp::completion)) continue;
    record.enter = shifted(record.enter, by);
    record.exit = shifted(record.exit, by);
  }
  std::ofstream(events_path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(records.data()), static_cast<std::streamsize>(records.size() * sizeof records[0]));

  const std::string defs_path = dir + "/" + moirai::mpi::defs_file_name(rank);
  std::ifstream defs(defs_path);
  if (!defs) return fail("cannot read " + defs_path);
  std::ostringstream out;
  for (std::string line; std::getline(defs, line);) {
    std::istringstream words(line);
    std::string key, a;
    std::uint64_t b = 0;
    words >> key >> a >> b;
    if (key == "offset") {  // offset init|finalize <offset> <round trip>
      std::int64_t offset = 0;
      std::istringstream(line.substr(line.find(a) + a.size())) >> offset >> b;
      line = "offset " + a + " " + std::to_string(offset - by) + " " + std::to_string(b);
    } else if (key == "end") {  // end <records> <finalize time>
      line = "end " + a + " " + std::to_string(shifted(b, by));
    }
    out << line << '\n';
  }
  defs.close();
  std::ofstream(defs_path, std::ios::trunc) << out.str();
  return 0;
}
