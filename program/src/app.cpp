#include "moirai/program/app.h"

#include <iostream>
#include <new>
#include <utility>

#include "moirai/program/app_main.h"

namespace moirai::program {

App::App(std::string name, std::string summary, bool declares_work)
    : flags_(std::move(name), std::move(summary)),
      cores_(available_cores()),
      machine_(flags_, cores_, declares_work),
      recording_(flags_) {}

void App::finish() {
  if (!started_ || finished_) return;
  finished_ = true;
  recording_.finish(std::cout);
  machine_.report(std::cout);
}

int App::main(int argc, const char* const* argv, const std::function<int()>& body) {
  try {
    flags_.parse_or_exit(argc, argv);
  } catch (const std::bad_alloc& error) {
    std::cerr << flags_.app() << ": error: out of memory: " << error.what() << '\n';
    return 1;
  }
  const int exit_code = run_app(flags_.app(), [&] {
    // Inside run_app: a trace file that cannot be written is bad input (exit 2).
    observer_ = recording_.start(argc, argv, std::cerr, machine_.simulated());
    started_ = true;
    const int code = body();
    finish();
    return code;
  });
  if (started_ && !finished_) {
    // The body failed (out of memory, a deadlock, a failed VP; said above): its trace is finished
    // now that the run has unwound and given back its memory, and holds the run until then.
    finished_ = true;
    recording_.finish_failed(std::cerr);
  }
  return exit_code;
}

}  // namespace moirai::program
