// The --profile table (instrument::Profile): one row per core whose columns add up to the core's
// time, the runtime's chores in a column of their own, and each construct's requests.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "moirai/instrument/profile.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/ssr/ssr.h"

namespace {

using namespace moirai;

struct Row {
  unsigned long long units = 0;
  double work = 0, comm = 0, lock = 0, handlers = 0, assigner = 0, chores = 0, idle = 0, work_pct = 0;
};

// rows reads the per-core rows of a printed profile, after its header line.
std::vector<Row> rows(const std::string& printed) {
  std::istringstream lines(printed);
  std::vector<Row> out;
  std::string line;
  while (std::getline(lines, line) && line.find("assigner") == std::string::npos) {
  }
  while (std::getline(lines, line)) {
    Row r;
    std::size_t core = 0;
    if (std::sscanf(line.c_str(), "%zu %llu %lf %lf %lf %lf %lf %lf %lf %lf%%", &core, &r.units, &r.work, &r.comm, &r.lock,
                    &r.handlers, &r.assigner, &r.chores, &r.idle, &r.work_pct) != 10) {
      break;
    }
    out.push_back(r);
  }
  return out;
}

// A creator that wakes a parked core pays for it: the profile shows it as a chore of core 0, not
// as its assigner's time, and core 1's idle does not include it.
TEST(Profile, AWakeUpOfAParkedCoreIsACoreZeroChore) {
  if (proto::RealMachine::available_cores() < 2) {
    GTEST_SKIP() << "waking another core needs 2 processing units; this machine has "
                 << proto::RealMachine::available_cores();
  }
  instrument::Profile profile;
  proto::RealMachine machine(2);
  const proto::RunStats stats = ssr::run(
      machine,
      [&machine](ssr::Context& ctx) {
        // 2 ms of work, then core 1 parked: the machine says so, however late a loaded machine
        // started core 1.
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
        while (std::chrono::steady_clock::now() < until || !machine.parked(1)) {
        }
        ctx.create_vp([](ssr::Context&) {}, {.name = "child", .core = 1});
      },
      {.observer = &profile.observer(), .seed_core = 0});
  std::ostringstream printed;
  profile.print(printed);
  const std::vector<Row> table = rows(printed.str());
  ASSERT_EQ(table.size(), 2u) << printed.str();
  EXPECT_EQ(table[0].units + table[1].units, stats.units_animated) << printed.str();
  EXPECT_GT(table[0].chores, 0.0) << "the wake-up (and the VP shell) are core 0's chores\n" << printed.str();
  EXPECT_GT(table[0].work, 1.5) << "the seed spun 2 ms\n" << printed.str();
  EXPECT_NE(printed.str().find("create_vp"), std::string::npos) << printed.str();
}

}  // namespace
