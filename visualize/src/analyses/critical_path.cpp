#include "moirai/visualize/analyses/critical_path.h"

#include <cstdio>

#include "moirai/visualize/model/unit_graph.h"
#include "output/text_format.h"

namespace moirai::visualize {

CriticalPathListing list_critical_path(const trace::Trace& trace) {
  const UnitGraph graph = build_unit_graph(trace);
  const CriticalPath path = critical_path(graph, trace);
  CriticalPathListing listing;
  listing.makespan = graph.makespan;
  listing.clock_hz = trace.clock_hz;
  for (std::size_t i = 0; i < path.nodes.size(); ++i) {
    const std::uint32_t n = path.nodes[i];
    const UnitNode& node = graph.nodes[n];
    const trace::Unit& unit = trace.units[node.trace_index];
    CriticalUnit step{node.unit, node.vp, node.core, unit.work(), "", "", "", trace.construct_name(unit.record.ended_by),
                      trace.site_name(unit.record.site)};
    if (i > 0) {
      const UnitArc& arc = graph.arcs[path.arcs[i - 1]];
      step.arrived_by = arc.kind == ArcKind::same_vp ? "same VP" : trace.construct_name(arc.construct);
    }
    // The unit began where its VP's previous unit called the runtime, or where the VP was created.
    const trace::UnitRecord* previous = nullptr;
    for (std::uint32_t a = graph.in_begin[n]; a < graph.in_begin[n + 1]; ++a) {
      const UnitArc& arc = graph.arcs[graph.in_arcs[a]];
      if (arc.kind == ArcKind::same_vp) previous = &trace.units[graph.nodes[arc.from].trace_index].record;
    }
    if (previous != nullptr) {
      step.began_by = trace.construct_name(previous->ended_by);
      step.began_at = trace.site_name(previous->site);
    } else {
      step.began_by = "created";
      step.began_at = "the run's start";  // the seed VP: no call created it
      for (const trace::Trace::Vp& vp : trace.vps) {
        if (vp.id == node.vp && trace.sites.count(vp.site)) step.began_at = trace.site_name(vp.site);
      }
    }
    listing.work += step.work;
    listing.units.push_back(std::move(step));
  }
  return listing;
}

void print_critical_path(std::ostream& out, const CriticalPathListing& listing) {
  const double ms_per_tick = listing.clock_hz > 0 ? 1e3 / listing.clock_hz : 0;
  out << "critical path: " << detail::plural(listing.units.size(), "unit") << ", work " << listing.work << " ticks ("
      << detail::fixed(static_cast<double>(listing.work) * ms_per_tick, 3) << " ms), "
      << detail::fixed(listing.makespan ? 100.0 * static_cast<double>(listing.work) / static_cast<double>(listing.makespan) : 0, 1)
      << "% of the makespan\n";
  if (listing.units.empty()) return;
  out << "the run cannot be shorter than this chain of program dependencies: split its biggest units\n";
  char line[160];
  std::snprintf(line, sizeof line, "%4s %8s %6s %5s %12s %7s  %-16s  %s\n", "#", "unit", "VP", "core", "work ticks", "work %",
                "arrived by", "began by .. ended by");
  out << line;
  for (std::size_t i = 0; i < listing.units.size(); ++i) {
    const CriticalUnit& u = listing.units[i];
    const double share = listing.work ? 100.0 * static_cast<double>(u.work) / static_cast<double>(listing.work) : 0;
    std::snprintf(line, sizeof line, "%4zu %8llu %6llu %5u %12llu %6.1f%%  %-16s  ", i + 1, static_cast<unsigned long long>(u.unit),
                  static_cast<unsigned long long>(u.vp), u.core, static_cast<unsigned long long>(u.work), share,
                  u.arrived_by.empty() ? "-" : u.arrived_by.c_str());
    out << line << u.began_by << " at " << u.began_at << " .. " << u.ended_by << " at " << u.ended_at << '\n';
  }
}

void print_critical_path_json(std::ostream& out, const CriticalPathListing& listing) {
  using Json = nlohmann::ordered_json;
  Json units = Json::array();
  for (const CriticalUnit& u : listing.units) {
    units.push_back(Json{{"unit", u.unit},
                         {"vp", u.vp},
                         {"core", u.core},
                         {"work", u.work},
                         {"arrived_by", u.arrived_by.empty() ? Json(nullptr) : Json(u.arrived_by)},
                         {"began_by", u.began_by},
                         {"began_at", u.began_at},
                         {"ended_by", u.ended_by},
                         {"ended_at", u.ended_at}});
  }
  Json json;
  json["critical_path"] = Json{{"work", listing.work}, {"makespan", listing.makespan}, {"clock_hz", detail::whole_number(listing.clock_hz)}, {"units", units}};
  out << detail::dump_json(std::move(json)) << '\n';
}

}  // namespace moirai::visualize
