#include "moirai/program/recording.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "moirai/instrument/counters.h"
#include "moirai/instrument/profile.h"
#include "moirai/instrument/trace_recorder.h"

namespace moirai::program {

namespace {

// The paper's counters: instructions, cycles and cache misses (hardware events; a machine
// without a PMU reports them missing).
constexpr const char* kDefaultCounters = "PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM";

// parse_counters reads a counter list; `source` names where it came from ("--counters" or
// "MOIRAI_COUNTERS") in the FlagError for an empty or unknown name.
std::vector<std::string> parse_counters(const std::string& list, const std::string& source) {
  std::vector<std::string> names;
  if (list == "none") return names;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) throw FlagError(source + ": empty event name in '" + list + "'");
    if (const std::string unknown = instrument::unknown_counter(name); !unknown.empty()) {
      throw FlagError(source + " " + list + ": " + unknown);
    }
    names.push_back(name);
  }
  if (list.ends_with(',')) throw FlagError(source + ": empty event name in '" + list + "'");
  return names;
}

// print_counter_list answers `--counters list`: every counter name Moirai knows, and whether this
// machine counts it, through which backend, or why not.
void print_counter_list(std::ostream& out) {
  out << "counters on this machine: " << instrument::counter_machine_summary() << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-26s %-11s %s\n", "name", "counted by", "how, or why not");
  out << line;
  std::snprintf(line, sizeof line, "%-26s %-11s %s\n", "----", "----------", "---------------");
  out << line;
  const std::vector<instrument::CounterStatus> counters = instrument::available_counters();
  // PAPI's reason is usually the same for every event (said once, in the first line), so each
  // row shows only what differs: the kernel's reason, and what a preset maps to.
  const std::string kernel_part = ". perf_event: ";
  for (const instrument::CounterStatus& counter : counters) {
    std::string detail = counter.present ? counter.note : counter.reason;
    if (!counter.present && detail.find(kernel_part) != std::string::npos) {
      detail = "PAPI no; kernel: " + detail.substr(detail.find(kernel_part) + kernel_part.size());
    }
    if (!counter.present && !counter.note.empty()) {
      detail += "; maps to" + counter.note.substr(counter.note.find(" the kernel's"));
    }
    std::snprintf(line, sizeof line, "%-26s %-11s ", counter.name.c_str(),
                  counter.present ? counter.backend.c_str() : "-");
    out << line << detail << '\n';
  }
  out << "\nRecord any of them with --trace FILE --counters NAME,NAME (at most 8).\n";
}

}  // namespace

struct Recording::Sinks {
  std::unique_ptr<instrument::TraceRecorder> trace;
  std::unique_ptr<instrument::Profile> profile;
  std::unique_ptr<instrument::ObserverTee> both;
};

Recording::Recording(Flags& flags) : sinks_(std::make_unique<Sinks>()) {
  if (const char* from_env = std::getenv("MOIRAI_COUNTERS")) counters_ = from_env;
  flags.text("trace", trace_path_, "FILE",
             "record the run into this trace file (read it with 'moirai stats FILE')");
  flags.text("counters", counters_, "LIST",
             std::string("counters to record with --trace, comma-separated: PAPI presets or "
                         "perf::NAME; 'none'; or 'list' to show what this machine can count "
                         "(default: $MOIRAI_COUNTERS, else ") + kDefaultCounters + ")");
  flags.check([this] {
    if (counters_ != "list") return;
    print_counter_list(std::cout);
    std::exit(0);
  });
  flags.toggle("no-os-time", no_os_time_,
               "with --trace, do not measure what the OS took from each unit (a CPU-id read per unit, and "
               "a thread CPU-time read after a unit or gap of 100 us or more; measured by default on real cores)");
  flags.toggle("profile", profile_, "print per-core and per-construct times at exit");
}

Recording::~Recording() = default;

RuntimeObserver* Recording::start(int argc, const char* const* argv, std::ostream& log,
                                              bool simulated) {
  if (simulated && !counters_.empty() && counters_ != "none") {
    const char* from_env = std::getenv("MOIRAI_COUNTERS");
    if (from_env == nullptr || counters_ != from_env) {
      throw FlagError("--counters " + counters_ + ": a simulated machine has no hardware counters");
    }
    log << "moirai: MOIRAI_COUNTERS is ignored: a simulated machine has no hardware counters\n";
  }
  if (!trace_path_.empty()) {
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    const char* from_env = std::getenv("MOIRAI_COUNTERS");
    const std::vector<std::string> counters =
        simulated ? std::vector<std::string>{}
                  : parse_counters(counters_.empty() ? kDefaultCounters : counters_,
                                   from_env != nullptr && counters_ == from_env ? "MOIRAI_COUNTERS" : "--counters");
    instrument::RecorderOptions options{trace_path_, counters, command};
    options.os_time = !no_os_time_;
    try {
      sinks_->trace = std::make_unique<instrument::TraceRecorder>(options);
    } catch (const std::runtime_error& error) {
      throw FlagError(std::string("--trace: ") + error.what());
    }
    for (const instrument::CounterStatus& counter : sinks_->trace->counters()) {
      if (!counter.present) {
        log << "moirai: counter " << counter.name << " is not recorded: " << counter.reason << '\n';
      } else if (counter.backend != "papi") {
        log << "moirai: counter " << counter.name << " is counted by " << counter.backend
            << (counter.note.empty() ? "" : ", " + counter.note) << '\n';
      }
    }
  } else if (!counters_.empty() && std::getenv("MOIRAI_COUNTERS") == nullptr) {
    throw FlagError("--counters " + counters_ + ": only has an effect with --trace FILE");
  } else if (no_os_time_) {
    throw FlagError("--no-os-time: only has an effect with --trace FILE");
  }
  if (profile_) sinks_->profile = std::make_unique<instrument::Profile>();
  if (sinks_->trace && sinks_->profile) {
    sinks_->both = std::make_unique<instrument::ObserverTee>(*sinks_->trace, sinks_->profile->observer());
    return sinks_->both.get();
  }
  if (sinks_->trace) return sinks_->trace.get();
  return sinks_->profile ? &sinks_->profile->observer() : nullptr;
}

namespace {

// written says what a trace holds: "(N records, N chunks, N bytes, N dropped)".
std::string written(const instrument::RecorderStats& stats) {
  return "(" + std::to_string(stats.records) + " records, " + std::to_string(stats.chunks) + " chunks, " +
         std::to_string(stats.bytes) + " bytes, " + std::to_string(stats.dropped) + " dropped)";
}

}  // namespace

void Recording::finish(std::ostream& out) {
  if (sinks_->trace) {
    const instrument::RecorderStats stats = sinks_->trace->finish();
    out << "trace: " << trace_path_ << (stats.stopped.empty() ? "" : " INCOMPLETE, the recording stopped: " + stats.stopped)
        << " " << written(stats) << "\n";
  }
  if (sinks_->profile) sinks_->profile->print(out);
}

void Recording::finish_failed(std::ostream& log) noexcept {
  if (!sinks_->trace) return;
  try {
    const instrument::RecorderStats stats = sinks_->trace->finish();
    log << "trace: " << trace_path_ << " holds the run until it failed"
        << (stats.stopped.empty() ? "" : " (INCOMPLETE, the recording stopped: " + stats.stopped + ")") << " "
        << written(stats) << '\n';
  } catch (...) {
    // The recorder's destructor makes the last attempt; the trace reads as cut if it fails too.
  }
}

}  // namespace moirai::program
