// moirai-mpi-gen-ranks: the rank logs (moirai/mpi/rank_log.h) of a synthetic MPI job, as the MPI
// tool would write them, for timing the merge stage at scale (bench/mpi_merge.sh) and for the
// views' test on a merged trace (tools/test/mpi_views.sh). The job: a 1-D halo exchange on a ring
// (irecv left and right, isend left and right, waitall) with an allreduce every 10 steps, the
// ranks' work uneven, clocks consistent (every receive completes after its send began).
//   moirai-mpi-gen-ranks DIR RANKS UNITS [RANKS_PER_NODE]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "moirai/mpi/rank_log.h"

namespace {

using moirai::mpi::MpiOp;
using moirai::mpi::RankRecord;

struct Rank {
  std::ofstream events;
  std::uint64_t records = 0, clock = 0;
  std::vector<RankRecord> buffer;

  void add(MpiOp op, std::uint64_t enter, std::uint64_t exit, std::int32_t peer = moirai::mpi::kNoPeer, std::uint64_t value = 0,
           std::uint32_t site = 0) {
    buffer.push_back({static_cast<std::uint8_t>(op), 0, 0, peer, 0, site, enter, exit, value});
    ++records;
    if (buffer.size() == 4096) flush();
  }
  void flush() {
    events.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(buffer.size() * sizeof(RankRecord)));
    buffer.clear();
  }
};

// work is rank r's compute time at step s (ns): uneven across ranks, steady per rank.
std::uint64_t work(std::uint32_t r, std::uint64_t s) { return 20'000 + (r * 7919 % 13) * 1'000 + (s * 31 + r) % 5 * 200; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::cerr << "usage: moirai-mpi-gen-ranks DIR RANKS UNITS [RANKS_PER_NODE]\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const auto ranks = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const std::uint64_t units = std::strtoull(argv[3], nullptr, 10);
  const auto per_node = static_cast<std::uint32_t>(argc == 5 ? std::strtoul(argv[4], nullptr, 10) : 64);
  if (ranks < 2 || ranks > 65534 || units < ranks || per_node == 0) {
    std::cerr << "moirai-mpi-gen-ranks: RANKS is 2..65534, UNITS at least RANKS, RANKS_PER_NODE above 0\n";
    return 2;
  }
  std::filesystem::create_directories(dir);
  std::vector<std::unique_ptr<Rank>> rs;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    rs.push_back(std::make_unique<Rank>());
    rs[r]->events.open(dir / moirai::mpi::events_file_name(r), std::ios::binary);
    rs[r]->clock = 1'000'000'000;
    rs[r]->add(MpiOp::init, rs[r]->clock, rs[r]->clock + 50'000);
    rs[r]->clock += 50'000;
  }
  // A step is 5 calls (5 units) per rank, every 10th step one more (the allreduce).
  const std::uint64_t per_rank = units / ranks;
  const std::uint64_t steps = std::max<std::uint64_t>(1, per_rank * 10 / 51);
  std::vector<std::uint64_t> post(ranks);
  const std::uint64_t kBytes = 4096;
  for (std::uint64_t s = 0; s < steps; ++s) {
    for (std::uint32_t r = 0; r < ranks; ++r) post[r] = rs[r]->clock + work(r, s);
    for (std::uint32_t r = 0; r < ranks; ++r) {
      Rank& k = *rs[r];
      const auto left = static_cast<std::int32_t>((r + ranks - 1) % ranks), right = static_cast<std::int32_t>((r + 1) % ranks);
      const std::uint64_t p = post[r], first = k.records;
      k.add(MpiOp::irecv, p, p + 100, left, kBytes, 1);
      k.add(MpiOp::irecv, p + 100, p + 200, right, kBytes, 1);
      k.add(MpiOp::isend, p + 200, p + 300, left, kBytes, 2);
      k.add(MpiOp::isend, p + 300, p + 400, right, kBytes, 2);
      const std::uint64_t ready = std::max({p, post[left], post[right]}) + 400;
      k.add(MpiOp::waitall, p + 400, ready + 2'000, moirai::mpi::kNoPeer, 0, 3);
      k.add(MpiOp::completion, kBytes, 0, left, first);
      k.add(MpiOp::completion, kBytes, 0, right, first + 1);
      k.add(MpiOp::completion, 0, 0, moirai::mpi::kNoPeer, first + 2);
      k.add(MpiOp::completion, 0, 0, moirai::mpi::kNoPeer, first + 3);
      k.clock = ready + 2'000;
    }
    if (s % 10 == 9) {
      std::uint64_t last = 0;
      for (std::uint32_t r = 0; r < ranks; ++r) last = std::max(last, rs[r]->clock + 1'000);
      for (std::uint32_t r = 0; r < ranks; ++r) {
        rs[r]->add(MpiOp::allreduce, rs[r]->clock + 1'000, last + 5'000, moirai::mpi::kNoPeer, 8, 4);
        rs[r]->clock = last + 5'000;
      }
    }
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    Rank& k = *rs[r];
    k.add(MpiOp::finalize, k.clock + 1'000, k.clock + 20'000);
    k.flush();
    std::ofstream defs(dir / moirai::mpi::defs_file_name(r));
    defs << moirai::mpi::kRankLogMagic << ' ' << moirai::mpi::kRankLogVersion << "\nrank " << r << ' ' << ranks << "\nhost node"
         << r / per_node << "\ncommand ./halo1d\nclock monotonic 1\n"
         << "site 1 41 halo1d.c exchange\nsite 2 43 halo1d.c exchange\nsite 3 45 halo1d.c exchange\nsite 4 52 halo1d.c main\n"
         << "end " << k.records << ' ' << k.clock + 1'000 << '\n';
    if (!defs || !k.events) {
      std::cerr << "moirai-mpi-gen-ranks: cannot write rank " << r << "'s log into " << dir << '\n';
      return 1;
    }
  }
  std::cout << dir.string() << ": " << ranks << " ranks, " << steps << " steps\n";
  return 0;
}
