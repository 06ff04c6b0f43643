// TraceBuilder for tests: moirai::trace::TraceBuilder (moirai/trace/builder.h) writing to a
// scratch file that write() finishes and moves to its final name, so a test builds first and
// names the file last. Times are clock ticks at 1 GHz.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "moirai/trace/builder.h"

namespace moirai::test_support {

class TraceBuilder : public trace::TraceBuilder {
 public:
  explicit TraceBuilder(std::uint32_t cores) : TraceBuilder(scratch_path(), cores) {}

  // write finishes the trace and moves it to `path`.
  void write(const std::string& path) {
    finish();
    if (std::rename(scratch_.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot move " + scratch_ + " to " + path);
  }

 private:
  TraceBuilder(std::string scratch, std::uint32_t cores)
      : trace::TraceBuilder(scratch, options(cores)), scratch_(std::move(scratch)) {}

  static trace::BuilderOptions options(std::uint32_t cores) {
    trace::BuilderOptions options;
    options.cores = cores;
    return options;
  }

  static std::string scratch_path() {
    static std::atomic<int> next{0};
    return "/tmp/moirai_trace_builder_" + std::to_string(::getpid()) + "_" + std::to_string(next++) + ".mtrace";
  }

  std::string scratch_;
};

}  // namespace moirai::test_support
