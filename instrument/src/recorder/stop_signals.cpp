// The stop signals: SIGINT and SIGTERM, where the application left them at their default, are
// caught while the run records, and the writer turns one into a whole trace marked interrupted
// before the signal ends the process; SIGXFSZ is ignored, so that a file-size limit stops the
// recording (write_chunk) rather than the program.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

namespace {

// The stop signal caught, 0 before one is. A signal handler may do little more than this store
// (it is async-signal-safe because the atomic is lock-free); the writer thread does the rest.
std::atomic<int> caught_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signal) { caught_signal.store(signal, std::memory_order_relaxed); }

}  // namespace

const char* detail::signal_name(int signal) { return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal"; }

// catch_stop_signals installs on_stop_signal for each stop signal whose action is the default:
// an application's own handler, or an ignored signal, stays as it is.
void TraceRecorder::Impl::catch_stop_signals() {
  bool cleared = false;
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    struct sigaction current {};
    if (::sigaction(kStopSignals[i], nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction ours {};
    ours.sa_handler = on_stop_signal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_RESTART;  // the application's system calls go on as if nothing happened
    if (!cleared) caught_signal.store(0, std::memory_order_relaxed);  // a finished recorder's signal is no concern here
    cleared = true;
    catching[i] = ::sigaction(kStopSignals[i], &ours, nullptr) == 0;
  }
}

// ignore_file_size_signal makes a file-size limit (ulimit -f) fail the trace's writes with EFBIG,
// which stop the recording, instead of letting SIGXFSZ end the process; unless the application
// set the signal's action itself.
void TraceRecorder::Impl::ignore_file_size_signal() {
  struct sigaction current {};
  if (::sigaction(SIGXFSZ, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  catching_xfsz = ::sigaction(SIGXFSZ, &ignore, nullptr) == 0;
}

// restore_file_size_signal gives SIGXFSZ back its default action, unless the application changed it since.
void TraceRecorder::Impl::restore_file_size_signal() {
  if (!catching_xfsz) return;
  catching_xfsz = false;
  struct sigaction current {};
  if (::sigaction(SIGXFSZ, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN) {
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(SIGXFSZ, &fallback, nullptr);
  }
}

// release_stop_signals gives the signals this recorder caught back their default action,
// unless the application installed a handler of its own since.
void TraceRecorder::Impl::release_stop_signals() {
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    if (!catching[i]) continue;
    catching[i] = false;
    struct sigaction current {};
    if (::sigaction(kStopSignals[i], nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == on_stop_signal) {
      struct sigaction fallback {};
      fallback.sa_handler = SIG_DFL;
      sigemptyset(&fallback.sa_mask);
      ::sigaction(kStopSignals[i], &fallback, nullptr);
    }
  }
}

// stop_signal is the stop signal caught by this recorder's handler, 0 if none.
int TraceRecorder::Impl::stop_signal() const {
  const int signal = caught_signal.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    if (catching[i] && kStopSignals[i] == signal) return signal;
  }
  return 0;
}

// end_by_signal finishes the trace as interrupted and ends the process as `signal` would have
// (exit status 128 + signal from a shell). The cores keep running meanwhile; what they commit
// after the flush is lost with the process, as it would be without the recorder.
void TraceRecorder::Impl::end_by_signal(int signal, std::uint64_t end_time) {
  try {
    flush_all();
    write_ending(signal, end_time);
  } catch (const std::exception& error) {
    // A trace that cannot be written is said so; the signal still ends the process.
    const std::string message = std::string("moirai: the interrupted trace could not be finished: ") + error.what() + "\n";
    [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, message.data(), message.size());
  }
  release_stop_signals();
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(signal);
  std::_Exit(128 + signal);  // not reached: the default action of SIGINT and SIGTERM ends the process
}

// end_if_caught ends the process through end_by_signal when a stop signal reached this recorder's
// handler; run by finish, which then gives the signals their default action back first: a
// signal caught until then ends the process here, after the trace is written and marked
// interrupted; one after acts as it would without the recorder.
void TraceRecorder::Impl::end_if_caught(std::uint64_t end_time) {
  const bool was_catching = std::find(std::begin(catching), std::end(catching), true) != std::end(catching);
  release_stop_signals();
  if (const int signal = was_catching ? caught_signal.load(std::memory_order_relaxed) : 0) {
    end_by_signal(signal, end_time);
  }
}

}  // namespace moirai::instrument
