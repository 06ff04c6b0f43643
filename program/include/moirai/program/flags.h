// Flags: the command-line parser every Moirai app shares, so flag validation is written once.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace moirai::program {

// FlagError is bad command-line input; its message names the flag and the offending value.
class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Flags declares an app's flags, binding each to a variable that holds its default, and parses
// `--name value` / `--name=value` into those variables. The declared variables must outlive
// parsing.
class Flags {
 public:
  // Outcome is what parse found: flags to run with, or a request for the help or the version.
  enum class Outcome { run, help, version };

  // Flags starts an empty flag set for the app named `app`; `summary` heads the help text.
  Flags(std::string app, std::string summary);

  // integer declares `--name N` accepting min..max; `value` holds the default. `default_text`
  // replaces the printed default when the real default is computed later (e.g. "all cores").
  template <std::integral T>
  void integer(std::string name, T& value, std::type_identity_t<T> min,
               std::type_identity_t<T> max, std::string help, std::string default_text = {});
  // choice declares `--name WORD` where WORD is one of `choices`; `value` holds the default.
  void choice(std::string name, std::string& value, std::vector<std::string> choices,
              std::string help);
  // text declares `--name VALUE` taking any non-empty text; `value` holds the default.
  void text(std::string name, std::string& value, std::string metavar, std::string help);
  // toggle declares the switch `--name`, which sets `value` to true and takes no value.
  void toggle(std::string name, bool& value, std::string help);

  // check adds a rule parse applies after reading every flag, for limits that depend on other
  // flags or on the machine; `rule` throws FlagError naming the flags and values it rejects.
  void check(std::function<void()> rule);
  // footer adds `text` to the help after the flags (examples, limits), before the exit status.
  void footer(std::string text);

  // parse reads `args` (without the program name; `--name value` or `--name=value`, through
  // CLI11), then applies the checks. Throws FlagError on bad input.
  Outcome parse(std::span<const std::string_view> args);
  // parse_or_exit parses argv; on --help or --version it prints them and exits 0 (1 when stdout
  // cannot take them), on bad input it prints "app: error: ..." and the usage line to stderr and
  // exits 2.
  void parse_or_exit(int argc, const char* const* argv);

  // usage is the one-line synopsis, "usage: app [--flag VALUE]...".
  std::string usage() const;
  // help is the usage line, the summary and every flag with its range or choices and default.
  std::string help() const;
  // app is the program name used in messages.
  const std::string& app() const noexcept { return app_; }

 private:
  struct Flag {
    std::string name;                              // without the leading "--"
    std::string metavar;                           // empty for a toggle
    std::string help;
    std::string default_text;
    std::function<void(std::string_view)> assign;  // throws FlagError on a bad value
  };
  void add(Flag flag);
  void build(CLI::App& cli, std::vector<std::string>& values, std::vector<CLI::Option*>& options) const;
  void print_or_exit(const std::string& text) const;
  const Flag* find(std::string_view name) const;
  void add_integer(std::string name, std::int64_t min, std::int64_t max, std::string help,
                   std::string default_text, std::function<void(std::int64_t)> store);

  std::string app_;
  std::string summary_;
  std::vector<Flag> flags_;
  std::vector<std::function<void()>> checks_;
  std::string footer_;
};

// version is Moirai's version, as the build's project() says ("0.2.0").
std::string version();

// kMaxTasksPerRun bounds the tasks (units of work the program creates: VSs tasks, VPs) the flags
// of one run may ask for, so a typo cannot start a run that would need hours and gigabytes.
inline constexpr std::uint64_t kMaxTasksPerRun = 1'000'000;

// check_task_limit throws FlagError when `count` tasks, what the flags `flags` imply ("--tiles
// 4096 --tile-size 1"), exceed kMaxTasksPerRun; the message names the flags and the count.
void check_task_limit(const std::string& flags, std::uint64_t count);

// parse_integer reads all of `text` as a decimal integer in min..max; `flag` names the flag in
// the FlagError it throws otherwise.
std::int64_t parse_integer(std::string_view flag, std::string_view text, std::int64_t min,
                           std::int64_t max);

template <std::integral T>
void Flags::integer(std::string name, T& value, std::type_identity_t<T> min,
                    std::type_identity_t<T> max, std::string help, std::string default_text) {
  static_assert(!std::same_as<T, bool>, "use toggle for a boolean flag");
  // Bounds go through int64_t, so an unsigned flag is limited to int64_t's maximum.
  constexpr auto kLimit = static_cast<std::uintmax_t>(std::numeric_limits<std::int64_t>::max());
  const auto clamp = [](T bound) {
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<std::int64_t>(
          static_cast<std::uintmax_t>(bound) > kLimit ? kLimit : static_cast<std::uintmax_t>(bound));
    } else {
      return static_cast<std::int64_t>(bound);
    }
  };
  if (default_text.empty()) default_text = std::to_string(value);
  add_integer(std::move(name), clamp(min), clamp(max), std::move(help), std::move(default_text),
              [&value](std::int64_t parsed) { value = static_cast<T>(parsed); });
}

}  // namespace moirai::program
