// Hand-built traces whose graph, critical path and UCC are worked out by hand in the comments,
// shared by the unit-graph and UCC tests. Construct kinds are TraceBuilder's: 0 end_vp,
// 1 create_vp, 2 send_from_to, 3 receive_from_to, 4 send_of_type_to, 5 receive_of_type_to,
// 8 singleton, 9 singleton end.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

#include "moirai/trace/reader.h"
#include "support/trace_builder.h"

namespace moirai::test_support {

// write_rendezvous_trace: VP 1 (core 0) runs u1 -> u2 -> u4, VP 2 (core 1) runs u3 -> u5.
// u1 creates VP 2 (u1 -> u3); u2's receive_from_to and u3's send_from_to meet (match 1):
// u2 -> u5 and u3 -> u4. Core 0 waits for the runtime lock core 1 releases during u5.
// Work: u1 100, u2 200, u3 300, u4 50, u5 10 (660 in all). Critical path u1 -> u3 -> u4:
// work 450, cycles 120 + 320 + 70 = 510, parallelism 660 / 450. Makespan 520.
inline void write_rendezvous_trace(const std::string& path) {
  TraceBuilder b(2);
  b.site(1, "known.cpp", 10);
  b.unit(0, 1, 1, 0, 10, 110, 120, 1, 1);
  b.constraint(0, 1, 1, 3, 115);
  b.unit(0, 2, 1, 120, 130, 330, 340, 3, 1);
  b.idle(0, 340, 450);
  b.unit(0, 4, 1, 450, 455, 505, 520, 0, 1);
  b.lock_handoff(0, 1, 505, 508);
  b.idle(1, 0, 120);
  b.unit(1, 3, 2, 120, 130, 430, 440, 2, 1);
  b.constraint(1, 3, 2, 5, 435, 1);
  b.constraint(1, 2, 3, 4, 435, 1);
  b.unit(1, 5, 2, 440, 450, 460, 510, 0, 1);
  b.idle(1, 510, 520);
  b.write(path);
}

// write_late_and_early_trace: core 0 runs u1 [0, 120), which creates VP 2, and u2 [120, 240),
// idles [240, 300) (a VP shell [250, 260) in it) and records nothing after; core 1 records
// nothing before u3 [130, 400). Makespan 400: each core has idle time no span records.
inline void write_late_and_early_trace(const std::string& path) {
  TraceBuilder b(2);
  b.site(1, "edges.cpp", 10);
  b.unit(0, 1, 1, 0, 10, 110, 120, 1, 1);
  b.constraint(0, 1, 1, 3, 115);
  b.unit(0, 2, 1, 120, 130, 230, 240, 0, 1);
  b.idle(0, 240, 300);
  b.chore(0, Chore::vp_shell, 250, 260);
  b.unit(1, 3, 2, 130, 140, 390, 400, 0, 1);
  b.write(path);
}

// write_typed_send_trace: main (VP 1, core 0) u1 -> u3 -> u5 -> u7 -> u9 creates VP 2 (u1 -> u2)
// and VP 3 (u3 -> u4), then receives twice by type. VP 2 (u2 -> u6) and VP 3 (u4 -> u8) each
// send one message of that type: group 1 has sources u2, u4 and sinks u5, u7 (the receives).
// Matches: u2 -> u7 and u5 -> u6 (1), u4 -> u9 and u7 -> u8 (2).
// Rows (units above): u1 0; u2, u3 1; u4, u5 2; u6, u7 3; u8, u9 4.
// Work: u2 100, u4 200, u9 50, the others 10 (410 in all). Critical path u1 -> u3 -> u4 -> u9
// (same VP, create_vp, send_of_type_to): work 270, parallelism 410 / 270.
// With `instructions`, each unit carries PAPI_TOT_INS = 7 x its work + 1.
inline void write_typed_send_trace(const std::string& path, bool instructions = false) {
  TraceBuilder b(2, instructions ? std::vector<std::string>{"PAPI_TOT_INS"} : std::vector<std::string>{});
  b.site(1, "known.cpp", 20);
  const auto unit = [&](std::uint32_t core, std::uint64_t id, std::uint64_t vp, std::uint64_t assign, std::uint64_t work,
                        std::uint64_t handler_end, std::uint16_t ended_by) {
    const std::vector<std::uint64_t> deltas = instructions ? std::vector<std::uint64_t>{7 * work + 1} : std::vector<std::uint64_t>{};
    b.unit(core, id, vp, assign, assign + 10, assign + 10 + work, handler_end, ended_by, 1, deltas);
  };
  b.group(1, 4, "'done' to main");
  unit(0, 1, 1, 0, 10, 30, 1);
  b.constraint(0, 1, 1, 2, 25);
  unit(0, 3, 1, 30, 10, 60, 1);
  b.constraint(0, 1, 3, 4, 55);
  unit(0, 5, 1, 60, 10, 90, 5);
  b.member(0, 1, 2, 5);
  unit(0, 4, 3, 90, 200, 310, 4);
  b.member(0, 1, 1, 4);
  unit(0, 7, 1, 310, 10, 340, 5);
  b.member(0, 1, 2, 7);
  b.constraint(0, 4, 4, 9, 335, 2);
  b.constraint(0, 5, 7, 8, 335, 2);
  unit(0, 9, 1, 340, 50, 410, 0);
  b.idle(1, 0, 30);
  unit(1, 2, 2, 30, 100, 150, 4);
  b.member(1, 1, 1, 2);
  b.constraint(1, 4, 2, 7, 145, 1);
  b.constraint(1, 5, 5, 6, 145, 1);
  unit(1, 6, 2, 150, 10, 180, 0);
  b.idle(1, 180, 340);
  unit(1, 8, 3, 340, 10, 370, 0);
  b.idle(1, 370, 410);
  b.write(path);
}

// write_singleton_trace: VP 1 (core 0) reaches singleton 'setup' first (u1, granted: u1 -> u2),
// runs its body in u2 and ends it (u2 frees the waiting VP 2: u2 -> u5), then goes on in u3.
// VP 2 (core 1) reached it in u4 while the body ran and waited; VP 3 (core 2) reached it in u6
// after the body had finished (at 130, the body ended at 100) and never waited, though its
// handler still records u2 -> u7. Group 1: sources u1, u4, u6; sinks u3, u5, u7.
// Rows with the diamond between sources and sinks: u1, u4, u6 0; the diamond in the gap above
// row 1; u2 1; u3, u5, u7 2. Work: u1 40, u2 30, u3 30, u4 30, u5 35, u6 120, u7 25; critical
// path u6 -> u7 (same VP), work 145.
inline void write_singleton_trace(const std::string& path) {
  TraceBuilder b(3);
  b.site(1, "known.cpp", 30);
  b.group(1, 8, "singleton 'setup'");
  b.unit(0, 1, 1, 0, 10, 50, 60, 8, 1);
  b.member(0, 1, 1, 1);
  b.constraint(0, 8, 1, 2, 55);
  b.unit(0, 2, 1, 60, 70, 100, 110, 9, 1);
  b.constraint(0, 9, 2, 5, 105);
  b.member(0, 1, 2, 5);
  b.member(0, 1, 2, 3);
  b.unit(0, 3, 1, 110, 120, 150, 160, 0, 1);
  b.unit(1, 4, 2, 0, 10, 40, 50, 8, 1);
  b.member(1, 1, 1, 4);
  b.idle(1, 50, 110);
  b.unit(1, 5, 2, 110, 115, 150, 160, 0, 1);
  b.unit(2, 6, 3, 0, 10, 130, 140, 8, 1);
  b.member(2, 1, 1, 6);
  b.constraint(2, 9, 2, 7, 135);
  b.member(2, 1, 2, 7);
  b.unit(2, 7, 3, 140, 145, 170, 180, 0, 1);
  b.write(path);
}

// read_written writes a trace with `write` into a temporary file and reads it back.
template <class Write>
trace::Trace read_written(Write write, const std::string& name) {
  const std::string path = ::testing::TempDir() + "moirai_known_" + name + "_" + std::to_string(::getpid()) + ".mtrace";
  write(path);
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

}  // namespace moirai::test_support
