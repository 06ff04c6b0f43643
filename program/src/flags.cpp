#include "moirai/program/flags.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <system_error>
#include <utility>

#include <CLI/CLI.hpp>

namespace moirai::program {

namespace {

constexpr const char* kExitStatus =
    "Exit status: 0 done; 1 the run failed (a deadlock, a VP that threw, API misuse, out of\n"
    "memory, output that could not be written); 2 bad input (a flag, its value, or a run larger\n"
    "than the limits above).";

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string text;
  for (const std::string& word : words) {
    if (!text.empty()) text += separator;
    text += word;
  }
  return text;
}

}  // namespace

std::int64_t parse_integer(std::string_view flag, std::string_view text, std::int64_t min,
                           std::int64_t max) {
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  std::int64_t value = 0;
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || stop != end ||
      (error != std::errc{} && error != std::errc::result_out_of_range)) {
    throw FlagError("--" + std::string(flag) + ": " + in_quotes(text) + " is not an integer (expected " +
                    range + ")");
  }
  if (error == std::errc::result_out_of_range || value < min || value > max) {
    throw FlagError("--" + std::string(flag) + ": " + std::string(text) +
                    " is out of range (must be " + range + ")");
  }
  return value;
}

void check_task_limit(const std::string& flags, std::uint64_t count) {
  if (count <= kMaxTasksPerRun) return;
  throw FlagError(flags + ": " + std::to_string(count) + " tasks, more than the " + std::to_string(kMaxTasksPerRun) +
                  " one run may ask for");
}

Flags::Flags(std::string app, std::string summary)
    : app_(std::move(app)), summary_(std::move(summary)) {}

void Flags::add(Flag flag) {
  if (flag.name.empty() || flag.name == "help" || find(flag.name) != nullptr) {
    // A programming error in the app, not bad input: fail loudly at start-up.
    throw std::logic_error("flag --" + flag.name + " declared twice or reserved");
  }
  flags_.push_back(std::move(flag));
}

const Flags::Flag* Flags::find(std::string_view name) const {
  const auto it = std::ranges::find(flags_, name, &Flag::name);
  return it == flags_.end() ? nullptr : &*it;
}

void Flags::add_integer(std::string name, std::int64_t min, std::int64_t max, std::string help,
                        std::string default_text, std::function<void(std::int64_t)> store) {
  help += " (" + std::to_string(min) + ".." + std::to_string(max) + ")";
  const std::string flag_name = name;
  add(Flag{std::move(name), "N", std::move(help), std::move(default_text),
           [flag_name, min, max, store = std::move(store)](std::string_view text) {
             store(parse_integer(flag_name, text, min, max));
           }});
}

void Flags::choice(std::string name, std::string& value, std::vector<std::string> choices,
                   std::string help) {
  help += " (one of " + join(choices, ", ") + ")";
  std::string flag_name = name;
  std::string default_text = value;
  add(Flag{std::move(name), "WORD", std::move(help), std::move(default_text),
           [flag_name, &value, choices = std::move(choices)](std::string_view text) {
             if (std::ranges::find(choices, text) == choices.end()) {
               throw FlagError("--" + flag_name + ": " + in_quotes(text) + " is not one of " +
                               join(choices, ", "));
             }
             value = std::string(text);
           }});
}

void Flags::text(std::string name, std::string& value, std::string metavar, std::string help) {
  std::string flag_name = name;
  std::string default_text = value.empty() ? "none" : value;
  add(Flag{std::move(name), std::move(metavar), std::move(help), std::move(default_text),
           [flag_name, &value](std::string_view given) {
             if (given.empty()) throw FlagError("--" + flag_name + ": needs a non-empty value");
             value = std::string(given);
           }});
}

void Flags::toggle(std::string name, bool& value, std::string help) {
  std::string default_text = value ? "on" : "off";
  add(Flag{std::move(name), "", std::move(help), std::move(default_text),
           [&value](std::string_view) { value = true; }});
}

namespace {

// HelpFormatter prints CLI11's option table under the app's own usage line and summary, the
// layout every Moirai program's --help has had: usage, summary, then the flags.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {}
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    // make_groups starts with its own blank line.
    return usage_ + "\n\n" + app->get_description() + "\n" + make_groups(app, mode) + "\n" + make_footer(app);
  }

 private:
  std::string usage_;
};

}  // namespace

std::string version() { return MOIRAI_VERSION_TEXT; }

void Flags::build(CLI::App& cli, std::vector<std::string>& values, std::vector<CLI::Option*>& options) const {
  cli.description(summary_);
  cli.name(app_);
  cli.allow_extras();  // reported below in the words every Moirai program uses
  cli.option_defaults()->group("flags");
  cli.set_help_flag("-h,--help", "print this help and exit")->group("flags");
  cli.set_version_flag("--version", app_ + " (Moirai) " + version(), "print the version and exit");
  cli.formatter(std::make_shared<HelpFormatter>(usage()));
  cli.get_formatter()->column_width(26);
  cli.footer(footer_.empty() ? std::string(kExitStatus) : footer_ + "\n\n" + kExitStatus);
  values.assign(flags_.size(), {});
  options.clear();
  for (std::size_t i = 0; i < flags_.size(); ++i) {
    const Flag& flag = flags_[i];
    const std::string description = flag.help + "; default: " + flag.default_text;
    if (flag.metavar.empty()) {
      options.push_back(cli.add_flag("--" + flag.name, description)->disable_flag_override());
    } else {
      // expected(0, 1): a flag given without its value reaches the check below, which names it.
      // A string (not a vector) takes one value, so a stray word after it is left over, not taken.
      options.push_back(cli.add_option("--" + flag.name, values[i], description)
                            ->expected(0, 1)
                            ->type_name(flag.metavar)
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast));
    }
  }
}

Flags::Outcome Flags::parse(std::span<const std::string_view> args) {
  // A switch given a value (--check=yes) is refused in its own words: CLI11's names no value.
  for (const std::string_view arg : args) {
    if (arg == "--") break;
    const std::size_t equals = arg.find('=');
    if (!arg.starts_with("--") || equals == std::string_view::npos) continue;
    const Flag* flag = find(arg.substr(2, equals - 2));
    if (flag != nullptr && flag->metavar.empty()) {
      throw FlagError("--" + flag->name + " is a switch and takes no value (got " +
                      in_quotes(arg.substr(equals + 1)) + ")");
    }
  }
  CLI::App cli;
  std::vector<std::string> values;
  std::vector<CLI::Option*> options;
  build(cli, values, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    cli.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return Outcome::help;
  } catch (const CLI::CallForVersion&) {
    return Outcome::version;
  } catch (const CLI::ParseError& error) {
    throw FlagError(error.what());
  }
  if (!cli.remaining().empty()) {
    const std::string extra = cli.remaining().front();
    if (extra == "-" || !extra.starts_with("-")) {
      throw FlagError("unexpected argument " + in_quotes(extra) + " (this app takes only --flags)");
    }
    if (!extra.starts_with("--")) {
      throw FlagError("unknown flag " + in_quotes(extra) + " (flags are spelled --name)");
    }
    throw FlagError("unknown flag " + in_quotes(extra.substr(0, extra.find('='))));
  }
  for (std::size_t i = 0; i < flags_.size(); ++i) {
    if (options[i]->count() == 0) continue;
    const Flag& flag = flags_[i];
    // `--name` without a value leaves the value empty, as `--name=` does: only the first lacks
    // a value, the second gave an empty one.
    const bool given_empty = std::ranges::find(args, "--" + flag.name + "=") != args.end();
    if (!flag.metavar.empty() && values[i].empty() && !given_empty) {
      throw FlagError("--" + flag.name + " needs a value (" + flag.metavar + ")");
    }
    flag.assign(values[i]);
  }
  for (const auto& rule : checks_) rule();
  return Outcome::run;
}

void Flags::check(std::function<void()> rule) { checks_.push_back(std::move(rule)); }

void Flags::footer(std::string text) { footer_ = std::move(text); }

void Flags::parse_or_exit(int argc, const char* const* argv) {
  const std::vector<std::string_view> args(argv + std::min(argc, 1), argv + std::max(argc, 1));
  try {
    switch (parse(args)) {
      case Outcome::help:
        print_or_exit(help());
        std::exit(EXIT_SUCCESS);
      case Outcome::version:
        print_or_exit(app_ + " (Moirai) " + version() + "\n");
        std::exit(EXIT_SUCCESS);
      case Outcome::run:
        break;
    }
  } catch (const FlagError& error) {
    std::cout.flush();
    std::cerr << app_ << ": error: " << error.what() << '\n' << usage() << '\n';
    std::exit(2);
  }
}

void Flags::print_or_exit(const std::string& text) const {
  std::cout << text << std::flush;
  if (!std::cout) {
    std::cerr << app_ << ": error: cannot write to standard output\n";
    std::exit(1);
  }
}

std::string Flags::usage() const {
  std::string text = "usage: " + app_;
  for (const Flag& flag : flags_) {
    text += " [--" + flag.name + (flag.metavar.empty() ? "" : " " + flag.metavar) + "]";
  }
  return text + " [--help] [--version]";
}

std::string Flags::help() const {
  CLI::App cli;
  std::vector<std::string> values;
  std::vector<CLI::Option*> options;
  build(cli, values, options);
  return cli.help();
}

}  // namespace moirai::program
