// TraceBuilder for tests: moirai::trace::TraceBuilder (moirai/trace/builder.h) writing to a
// scratch file that write() finishes and moves to its final name, so a test builds first and
// names the file last. Times are clock ticks at 1 GHz.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "moirai/trace/builder.h"
#include "moirai/trace/ssr_constructs.h"

namespace moirai::test_support {

// ssr_options is what a hand-built SSR trace of `cores` cores says: its language and SSR's
// constructs (the reader's table for SSR, which trace_recording_test holds equal to what SSR
// records), with `counters` in every unit record.
inline trace::BuilderOptions ssr_options(std::uint32_t cores = 1, std::vector<std::string> counters = {}) {
  trace::BuilderOptions options;
  options.cores = cores;
  options.language = "SSR";
  options.constructs = trace::kFormat2SsrConstructs;
  options.choices = LanguageChoices{.placement = LanguagePlacement::last_core, .words = {}};
  options.counters = std::move(counters);
  return options;
}

// TraceBuilder writes an SSR trace unless given the options of another language.
class TraceBuilder : public trace::TraceBuilder {
 public:
  // TraceBuilder starts a trace of `cores` cores whose unit records carry `counters`.
  explicit TraceBuilder(std::uint32_t cores, std::vector<std::string> counters = {})
      : TraceBuilder(scratch_path(), cores, std::move(counters)) {}
  // TraceBuilder starts a trace whose metadata and constructs `options` give (another language's).
  explicit TraceBuilder(trace::BuilderOptions options)
      : trace::TraceBuilder(scratch_path_once(), std::move(options)), scratch_(last_scratch()) {}

  // member puts `unit` into group `group` (role 1 source, 2 sink).
  void member(std::uint32_t core, std::uint64_t group, std::uint16_t role, std::uint64_t unit) {
    group_member(core, group, role, unit);
  }

  // write finishes the trace and moves it to `path`.
  void write(const std::string& path) {
    finish();
    if (std::rename(scratch_.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot move " + scratch_ + " to " + path);
  }

 private:
  TraceBuilder(std::string scratch, std::uint32_t cores, std::vector<std::string> counters)
      : trace::TraceBuilder(scratch, ssr_options(cores, std::move(counters))), scratch_(std::move(scratch)) {}

  static std::string scratch_path() {
    static std::atomic<int> next{0};
    return "/tmp/moirai_trace_builder_" + std::to_string(::getpid()) + "_" + std::to_string(next++) + ".mtrace";
  }
  // The base is built before the members: the path it was given is kept here for scratch_.
  static std::string& last_scratch() {
    thread_local std::string path;
    return path;
  }
  static std::string scratch_path_once() { return last_scratch() = scratch_path(); }

  std::string scratch_;
};

}  // namespace moirai::test_support
