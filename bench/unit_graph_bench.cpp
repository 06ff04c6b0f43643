// The unit graph and its critical path at scale: a synthetic in-memory trace of 10,000 /
// 100,000 / 1,000,000 units over 40 cores (VPs of 10 units each, each VP's first unit creating
// the next VP, each VP's last unit waiting for a typed send from the previous VP's last unit, a
// lock handoff every 10 units). Reports the time to build the graph and
// find the critical path, and the graph's own bytes per unit (the vectors' capacities); and the
// time to lay out and render the weighted UCC.
// Run: build/release/bench/moirai_unit_graph_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>

#include "moirai/trace/reader.h"
#include "moirai/visualize/views/ucc.h"
#include "moirai/visualize/model/unit_graph.h"

namespace {

using namespace moirai;

constexpr std::uint32_t kCores = 40;
constexpr std::uint64_t kUnitsPerVp = 10;

trace::Trace synthetic(std::uint64_t units) {
  trace::Trace t;
  t.core_count = kCores;
  t.clock_hz = 1e9;
  t.constructs = {"end_vp", "create_vp", "send_from_to", "receive_from_to", "send_of_type_to"};
  t.units.reserve(units);
  // Times are causal: a unit starts once its core is free and what constrains it has ended.
  std::vector<std::uint64_t> clock(kCores, 0);
  const std::uint64_t vps = units / kUnitsPerVp;
  std::uint64_t created = 0, sent = 0;  // end of the last creating unit, of the last typed send
  for (std::uint64_t v = 0; v < vps; ++v) {
    const std::uint32_t core = static_cast<std::uint32_t>(v % kCores);
    std::uint64_t previous = created;
    for (std::uint64_t k = 0; k < kUnitsPerVp; ++k) {
      const std::uint64_t id = v * kUnitsPerVp + k + 1;
      const std::uint64_t ready = k + 1 == kUnitsPerVp && v > 0 ? std::max(previous, sent) : previous;
      const std::uint64_t at = std::max(clock[core], ready);
      trace::Unit unit;
      unit.core = core;
      unit.record = {1, static_cast<std::uint16_t>(k == 0 ? 1 : k + 1 == kUnitsPerVp ? 4 : 0), 1, id, v + 1,
                     at, at + 5, at + 105 + (id % 7) * 10, at + 107 + (id % 7) * 10, at + 108 + (id % 7) * 10,
                     at + 110 + (id % 7) * 10};
      clock[core] = previous = unit.record.handler_end;
      t.units.push_back(unit);
      if (k == 0 && v > 0) t.constraints.push_back({3, 1, 0, (v - 1) * kUnitsPerVp + 1, id, 0, at});
      if (k == 0) created = unit.record.handler_end;
      if (k + 1 == kUnitsPerVp && v > 0) t.constraints.push_back({3, 4, 0, id - kUnitsPerVp, id, 0, at});
      if (k + 1 == kUnitsPerVp) sent = unit.record.handler_end;
      if (id % 10 == 5) t.lock_handoffs.push_back({core, {8, 0, (core + 1) % kCores, at + 105, at + 106}});
    }
  }
  return t;
}

template <class T>
std::size_t bytes(const std::vector<T>& v) { return v.capacity() * sizeof(T); }

void BM_UnitGraphAndCriticalPath(benchmark::State& state) {
  const trace::Trace trace = synthetic(static_cast<std::uint64_t>(state.range(0)));
  double per_unit = 0, parallelism = 0;
  for (auto _ : state) {
    const visualize::UnitGraph graph = visualize::build_unit_graph(trace);
    const visualize::CriticalPath path = visualize::critical_path(graph, trace);
    benchmark::DoNotOptimize(path.work);
    per_unit = static_cast<double>(bytes(graph.nodes) + bytes(graph.arcs) + bytes(graph.in_begin) + bytes(graph.in_arcs) +
                                   bytes(graph.sorted_ids) + bytes(graph.node_of_id) + bytes(graph.dense_node)) /
               static_cast<double>(trace.units.size());
    parallelism = path.parallelism;
  }
  state.counters["graph_bytes_per_unit"] = per_unit;
  state.counters["parallelism"] = parallelism;
  state.counters["units"] = static_cast<double>(trace.units.size());
}
BENCHMARK(BM_UnitGraphAndCriticalPath)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// The UCC of the same traces, laid out and rendered to SVG (into /dev/null): rows beyond 48
// units merge, rows beyond 1,000 are left out, so the drawing stays bounded.
void BM_UccLayoutAndRender(benchmark::State& state) {
  const trace::Trace trace = synthetic(static_cast<std::uint64_t>(state.range(0)));
  double nodes = 0;
  for (auto _ : state) {
    const visualize::UccLayout layout = visualize::layout_ucc(trace, {.weighted = true});
    visualize::render_ucc(layout, "svg", "/dev/null");
    nodes = static_cast<double>(layout.nodes.size());
  }
  state.counters["drawn_nodes"] = nodes;
}
BENCHMARK(BM_UccLayoutAndRender)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
