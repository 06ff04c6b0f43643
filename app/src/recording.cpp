#include "moirai/apps/recording.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "moirai/instrument/profile.h"
#include "moirai/instrument/trace_recorder.h"

namespace moirai::apps {

namespace {

// The paper's counters: instructions, cycles and cache misses (hardware events; a machine
// without a PMU reports them missing).
constexpr const char* kDefaultCounters = "PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM";

std::vector<std::string> parse_counters(const std::string& list) {
  std::vector<std::string> names;
  if (list == "none") return names;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) throw FlagError("--counters: empty event name in '" + list + "'");
    names.push_back(name);
  }
  return names;
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
             std::string("PAPI events to record with --trace, comma-separated, or 'none' "
                         "(default: $MOIRAI_COUNTERS, else ") + kDefaultCounters + ")");
  flags.toggle("profile", profile_, "print per-core and per-construct times at exit");
}

Recording::~Recording() = default;

instrument::RuntimeObserver* Recording::start(int argc, const char* const* argv, std::ostream& log,
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
    const std::vector<std::string> counters =
        simulated ? std::vector<std::string>{}
                  : parse_counters(counters_.empty() ? kDefaultCounters : counters_);
    try {
      sinks_->trace = std::make_unique<instrument::TraceRecorder>(
          instrument::RecorderOptions{trace_path_, counters, command});
    } catch (const std::runtime_error& error) {
      throw FlagError(std::string("--trace: ") + error.what());
    }
    for (const instrument::CounterStatus& counter : sinks_->trace->counters()) {
      if (!counter.present) {
        log << "moirai: counter " << counter.name << " is not recorded: " << counter.reason << '\n';
      }
    }
  } else if (!counters_.empty() && std::getenv("MOIRAI_COUNTERS") == nullptr) {
    throw FlagError("--counters " + counters_ + ": only has an effect with --trace FILE");
  }
  if (profile_) sinks_->profile = std::make_unique<instrument::Profile>();
  if (sinks_->trace && sinks_->profile) {
    sinks_->both = std::make_unique<instrument::ObserverTee>(*sinks_->trace, *sinks_->profile);
    return sinks_->both.get();
  }
  if (sinks_->trace) return sinks_->trace.get();
  return sinks_->profile.get();
}

void Recording::finish(std::ostream& out) {
  if (sinks_->trace) {
    const instrument::RecorderStats stats = sinks_->trace->finish();
    out << "trace: " << trace_path_ << " (" << stats.records << " records, " << stats.chunks
        << " chunks, " << stats.bytes << " bytes, " << stats.dropped << " dropped)\n";
  }
  if (sinks_->profile) sinks_->profile->print(out);
}

}  // namespace moirai::apps
