// VSs names lock domains (a datum; a task's end its data), so on two real cores the handlers of
// tasks of different data run at once. Whatever they interleave, each datum still sees its
// accesses in program order: a stress of chains, fan-ins, whole-matrix accesses, nested
// submissions, taskwait and taskwait_on over a few blocks, checked against the sequential
// order the seed computes as it submits.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "moirai/vss/vss.h"
#include "support/test_support.h"
#include "support/vss_support.h"

namespace moirai::test {
namespace {

using vss::Context;
using vss::in;
using vss::inout;
using vss::out;

class VssDomains : public CoreCountTest {};

// Blocks is a 2 x 2 matrix of logs: each writer of a block appends its index to that block's log.
using Log = std::vector<int>;
using Blocks = std::array<std::array<Log, 2>, 2>;

TEST_P(VssDomains, EveryBlockSeesItsAccessesInProgramOrder) {
  constexpr int kTasks = 3000;
  Blocks m;
  Log whole_log;  // a plain object beside the matrix
  // What the seed expects, built as it submits: each block's writers in program order, and for
  // each reader the length of the logs it must find.
  std::array<std::array<Log, 2>, 2> expected;
  Log expected_whole;
  std::vector<std::size_t> expected_seen(kTasks, 0);
  std::vector<std::size_t> seen(kTasks, ~std::size_t{0});
  std::vector<int> bad_waits;
  run_vss(cores(), [&](Context& ctx) {
    ctx.register_blocks(m, 2, 2, "M");
    unsigned state = 12345;
    const auto next = [&state](unsigned n) {
      state = state * 1103515245u + 12345u;
      return (state >> 16) % n;
    };
    for (int t = 0; t < kTasks; ++t) {
      const std::size_t i = next(2), j = next(2);
      switch (next(10)) {
        case 0:
        case 1:
        case 2:  // a chain link: read and write one block
          expected[i][j].push_back(t);
          ctx.submit([&m, t, i, j](Context&) { m[i][j].push_back(t); },
                     {inout(vss::region(m, i, j))});
          break;
        case 3:  // an overwrite: write one block without reading it
          expected[i][j].push_back(t);
          ctx.submit([&m, t, i, j](Context&) { m[i][j].push_back(t); },
                     {out(vss::region(m, i, j))});
          break;
        case 4:
        case 5:  // a reader: sees every earlier writer of its block, no later one
          expected_seen[t] = expected[i][j].size();
          ctx.submit([&m, &seen, t, i, j](Context&) { seen[t] = m[i][j].size(); },
                     {in(vss::region(m, i, j))});
          break;
        case 6: {  // a fan-in: reads the other three blocks and the plain object, writes one
          const std::size_t other = 1 - i;
          expected[i][j].push_back(t);
          expected_seen[t] = expected[other][j].size() + expected[other][1 - j].size() +
                             expected[i][1 - j].size() + expected_whole.size();
          ctx.submit([&m, &whole_log, &seen, t, i, j, other](Context&) {
            seen[t] = m[other][j].size() + m[other][1 - j].size() + m[i][1 - j].size() +
                      whole_log.size();
            m[i][j].push_back(t);
          },
                     {in(vss::region(m, other, j)), in(vss::region(m, other, 1 - j)),
                      in(vss::region(m, i, 1 - j)), in(whole_log), inout(vss::region(m, i, j))});
          break;
        }
        case 7:  // the plain object, written
          expected_whole.push_back(t);
          ctx.submit([&whole_log, t](Context&) { whole_log.push_back(t); }, {inout(whole_log)});
          break;
        case 8:  // every block at once, as the whole matrix
          if (next(4) == 0) {
            for (auto& row : expected) {
              for (Log& log : row) log.push_back(t);
            }
            ctx.submit([&m, t](Context&) {
              for (auto& row : m) {
                for (Log& log : row) log.push_back(t);
              }
            },
                       {inout(m)});
          } else {  // a task that submits two writers of its block and waits for them
            expected[i][j].push_back(t);
            expected[i][j].push_back(t);
            ctx.submit([&m, t, i, j](Context& me) {
              for (int k = 0; k < 2; ++k) {
                me.submit([&m, t, i, j](Context&) { m[i][j].push_back(t); },
                          {inout(vss::region(m, i, j))});
              }
              me.taskwait();
            },
                       {inout(vss::region(m, i, j))});
          }
          break;
        default:  // the seed waits for its block's last writer and looks
          ctx.taskwait_on(vss::region(m, i, j));
          if (m[i][j] != expected[i][j]) bad_waits.push_back(t);
          break;
      }
    }
    ctx.taskwait();
  });
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      EXPECT_EQ(m[i][j], expected[i][j]) << "block (" << i << "," << j << ")";
    }
  }
  EXPECT_EQ(whole_log, expected_whole);
  for (int t = 0; t < kTasks; ++t) {
    if (seen[t] == ~std::size_t{0}) continue;  // not a reader
    EXPECT_EQ(seen[t], expected_seen[t]) << "task " << t;
  }
  EXPECT_TRUE(bad_waits.empty()) << bad_waits.size() << " taskwait_on saw a block unfinished";
}

MOIRAI_INSTANTIATE_MACHINES(VssDomains);

}  // namespace
}  // namespace moirai::test
