#include "analyses/integrity.h"

#include "output/text_format.h"

namespace moirai::visualize::detail {

namespace {

// metadata is the value of `key` in the trace's metadata ("" when absent).
std::string metadata(const trace::Trace& trace, const std::string& key) {
  const auto found = trace.metadata.find(key);
  return found == trace.metadata.end() ? std::string() : found->second;
}

}  // namespace

std::string clock_order_text(const trace::Trace& trace) {
  const std::string before = metadata(trace, "clock_violations");
  if (before.empty()) return "";
  const std::string left = metadata(trace, "clock_violations_left"), how = metadata(trace, "clock_correction");
  return before + (before == "1" ? " message or collective" : " messages and collectives") +
         " out of clock order across hosts before correction, " + (left.empty() ? "?" : left) + " left" +
         (how.empty() ? std::string() : " (" + how + ")");
}

std::vector<IntegrityRow> integrity_table(const trace::Trace& trace) {
  using Json = nlohmann::ordered_json;
  constexpr IntegritySeverity info = IntegritySeverity::info, data_loss = IntegritySeverity::data_loss;
  const trace::Integrity& left = trace.integrity;
  Json left_out = Json::object();  // named by the reader's own table, so every output keys them alike
  for (const trace::IntegrityCounter& counter : trace::kIntegrityCounters) left_out[counter.key] = left.*counter.count;
  return {
      {"complete", trace.complete, data_loss, "the trace ends with the recorder's end chunk (false: cut short)"},
      {"chunks", trace.chunks, info, "complete chunks read"},
      {"bytes", trace.bytes, info, "the file's size"},
      {"records", trace.complete ? trace.end.records : 0, info, "records the recorder wrote (known from the end chunk)"},
      {"dropped", trace.end.dropped, data_loss, "events the recorder dropped (its buffers were full)"},
      {"writer_waits", trace.end.writer_waits, info, "times a core waited for the writer thread"},
      {"cut", trace.cut, data_loss, "where and why a trace cut short ends"},
      {"ends_at_ms", rounded(trace.ms_from_start(trace.latest), 3), info, "the latest reading, ms from the recording's start"},
      {"interrupted", trace.interrupted.empty() ? Json(nullptr) : Json(trace.interrupted), data_loss,
       "the signal that ended the run"},
      {"left_out", std::move(left_out), data_loss, "parts the reader left out because they broke the trace's invariants"},
      {"warnings", left.warnings, data_loss, "why the reader left each part out"},
      {"cores_cut", metadata(trace, "cores_cut").empty() ? Json(nullptr) : Json(metadata(trace, "cores_cut")), data_loss,
       "cores whose records end before the run did (a merged job's ranks that were killed or aborted), and where"},
      {"clock_order", clock_order_text(trace).empty() ? Json(nullptr) : Json(clock_order_text(trace)), info,
       "messages and collectives out of clock order across hosts, before and after the merge corrected them"},
      {"outside_span", metadata(trace, "outside_span").empty() ? Json(nullptr) : Json(metadata(trace, "outside_span")), info,
       "the runtime's start-up and teardown that the front-end left before and after the trace's span"},
  };
}

nlohmann::ordered_json integrity_json(const trace::Trace& trace) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (IntegrityRow& counter : integrity_table(trace)) json[counter.name] = std::move(counter.value);
  return json;
}

void print_integrity(std::ostream& out, const trace::Trace& trace) {
  out << "integrity:    " << trace.chunks << " chunks, " << trace.bytes << " bytes, ";
  if (trace.complete) {
    out << trace.end.records << " records, " << trace.end.dropped << " events dropped, " << trace.end.writer_waits
        << " writer waits\n";
  } else {
    out << "INCOMPLETE: " << trace.cut << '\n';
  }
  if (!trace.integrity.sound()) out << "left out:     " << trace.integrity.summary() << '\n';
  for (const std::string& warning : trace.integrity.warnings) out << "  " << warning << '\n';
  if (!trace.interrupted.empty()) out << "interrupted:  " << trace.interruption() << '\n';
  if (const std::string cut = metadata(trace, "cores_cut"); !cut.empty()) out << "cores cut:    " << cut << '\n';
  if (const std::string clocks = clock_order_text(trace); !clocks.empty()) out << "clock order:  " << clocks << '\n';
  if (const std::string outside = metadata(trace, "outside_span"); !outside.empty()) out << "outside span: " << outside << '\n';
}

std::vector<IntegrityNote> integrity_notes(const trace::Trace& trace) {
  std::vector<IntegrityNote> notes;
  if (!trace.complete) notes.emplace_back("cut", trace.cut);
  if (!trace.integrity.sound()) notes.emplace_back("integrity", trace.integrity.summary());
  if (const std::string cut = metadata(trace, "cores_cut"); !cut.empty()) notes.emplace_back("cores_cut", "cut short: " + cut);
  const std::string left = metadata(trace, "clock_violations_left");
  if (!left.empty() && left != "0") notes.emplace_back("clock_order", clock_order_text(trace));
  if (const std::string outside = metadata(trace, "outside_span"); !outside.empty()) notes.emplace_back("outside_span", outside);
  return notes;
}

std::string integrity_note(const trace::Trace& trace, const std::string& name) {
  for (const auto& [key, text] : integrity_notes(trace)) {
    if (key == name) return text;
  }
  return "";
}

}  // namespace moirai::visualize::detail
