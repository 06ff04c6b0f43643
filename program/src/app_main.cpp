#include "moirai/program/app_main.h"

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/real_machine.h"

namespace moirai::program {

std::size_t available_cores() { return proto::RealMachine::available_cores(); }

namespace {

int report(std::string_view app, std::string_view kind, const std::exception& error, int code) {
  std::cout.flush();
  std::cerr << app << ": " << kind << ": " << error.what() << '\n';
  return code;
}

// stdout_failed flushes what the program printed and says whether any of it was lost (a full
// disk, /dev/full, a closed pipe): printf and std::cout share stdout's buffer.
bool stdout_failed() {
  std::cout.flush();
  return std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
}

// out_of_memory says whether `cause` (a failed VP's) is std::bad_alloc.
bool out_of_memory(const std::exception_ptr& cause) {
  try {
    if (cause) std::rethrow_exception(cause);
  } catch (const std::bad_alloc&) {
    return true;
  } catch (...) {
  }
  return false;
}

}  // namespace

int run_app(std::string_view app, const std::function<int()>& body) noexcept {
  try {
    try {
      const int code = body();
      if (stdout_failed()) {
        std::cerr << app << ": error: cannot write to standard output: its output is incomplete\n";
        return code == 0 ? 1 : code;
      }
      return code;
    } catch (const proto::ConfigError& error) {
      return report(app, "error", error, 2);
    } catch (const FlagError& error) {
      return report(app, "error", error, 2);
    } catch (const proto::DeadlockError& error) {
      // The message already starts with "deadlock:" and lists every blocked VP and call site.
      return report(app, "error", error, 1);
    } catch (const proto::VpFailure& error) {
      return report(app, out_of_memory(error.cause()) ? "error: out of memory" : "error", error, 1);
    } catch (const proto::UsageError& error) {
      return report(app, "error: SSR API misuse", error, 1);
    } catch (const std::bad_alloc& error) {
      return report(app, "error: out of memory", error, 1);
    } catch (const std::exception& error) {
      return report(app, "error", error, 1);
    } catch (...) {
      std::cerr << app << ": error: an exception of unknown type\n";
      return 1;
    }
  } catch (...) {
    // Writing the message itself failed (e.g. a closed stderr); the exit code still tells.
    return 1;
  }
}

}  // namespace moirai::program
