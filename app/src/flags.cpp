#include "moirai/apps/flags.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <system_error>
#include <utility>

namespace moirai::apps {

namespace {

constexpr std::string_view kHelpLine = "  -h, --help";

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

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
    throw FlagError("--" + std::string(flag) + ": " + quoted(text) + " is not an integer (expected " +
                    range + ")");
  }
  if (error == std::errc::result_out_of_range || value < min || value > max) {
    throw FlagError("--" + std::string(flag) + ": " + std::string(text) +
                    " is out of range (must be " + range + ")");
  }
  return value;
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
               throw FlagError("--" + flag_name + ": " + quoted(text) + " is not one of " +
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

Flags::Outcome Flags::parse(std::span<const std::string_view> args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "-h" || arg == "--help") return Outcome::help;
    if (arg == "-" || arg == "--" || !arg.starts_with("-")) {
      throw FlagError("unexpected argument " + quoted(arg) + " (this app takes only --flags)");
    }
    if (!arg.starts_with("--")) {
      throw FlagError("unknown flag " + quoted(arg) + " (flags are spelled --name)");
    }
    const std::string_view body = arg.substr(2);
    const std::size_t equals = body.find('=');
    const std::string_view name = body.substr(0, equals);
    const Flag* flag = find(name);
    if (flag == nullptr) throw FlagError("unknown flag " + quoted("--" + std::string(name)));

    if (flag->metavar.empty()) {
      if (equals != std::string_view::npos) {
        throw FlagError("--" + flag->name + " is a switch and takes no value (got " +
                        quoted(body.substr(equals + 1)) + ")");
      }
      flag->assign({});
      continue;
    }
    std::string_view value;
    if (equals != std::string_view::npos) {
      value = body.substr(equals + 1);
    } else if (i + 1 < args.size() && !args[i + 1].starts_with("--")) {
      value = args[++i];
    } else {
      throw FlagError("--" + flag->name + " needs a value (" + flag->metavar + ")");
    }
    flag->assign(value);
  }
  for (const auto& rule : checks_) rule();
  return Outcome::run;
}

void Flags::check(std::function<void()> rule) { checks_.push_back(std::move(rule)); }

void Flags::parse_or_exit(int argc, const char* const* argv) {
  const std::vector<std::string_view> args(argv + std::min(argc, 1), argv + std::max(argc, 1));
  try {
    if (parse(args) == Outcome::help) {
      std::cout << help();
      std::exit(EXIT_SUCCESS);
    }
  } catch (const FlagError& error) {
    std::cout.flush();
    std::cerr << app_ << ": error: " << error.what() << '\n' << usage() << '\n';
    std::exit(2);
  }
}

std::string Flags::usage() const {
  std::string text = "usage: " + app_;
  for (const Flag& flag : flags_) {
    text += " [--" + flag.name + (flag.metavar.empty() ? "" : " " + flag.metavar) + "]";
  }
  return text + " [--help]";
}

std::string Flags::help() const {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Flag& flag : flags_) {
    rows.emplace_back("  --" + flag.name + (flag.metavar.empty() ? "" : " " + flag.metavar),
                      flag.help + "; default: " + flag.default_text);
  }
  rows.emplace_back(std::string(kHelpLine), "print this help and exit");
  std::size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());

  std::string text = usage() + "\n\n" + summary_ + "\n\nflags:\n";
  for (const auto& [left, right] : rows) {
    text += left + std::string(width - left.size() + 2, ' ') + right + "\n";
  }
  return text;
}

}  // namespace moirai::apps
