#include "command.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "trace_input.h"

namespace moirai::cli {

namespace {

constexpr const char* kExitStatus =
    "Exit status: 0 done; 1 the output could not be written (a full disk, a closed pipe) or\n"
    "memory ran out; 2 bad input (flags or their values, a missing, empty or corrupt trace, an\n"
    "output that names the input or lies in a missing directory).";

// HelpFormatter prints CLI11's option table under the command's own usage lines and prose.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {}
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string groups = make_groups(app, mode);
    groups.erase(0, groups.find_first_not_of('\n'));  // its leading blank lines vary with the positionals
    return usage_ + app->get_description() + "\n\n" + groups + "\n" + make_footer(app);
  }

 private:
  std::string usage_;
};

}  // namespace

Command::Command(std::string command, std::string usage_text, const std::string& prose, const std::string& footer)
    : name(std::move(command)), usage(std::move(usage_text)), cli(prose, "moirai " + name) {
  cli.allow_extras();  // reported in this tool's words by parse
  cli.set_help_flag("-h,--help", "print this help and exit");
  cli.formatter(std::make_shared<HelpFormatter>(usage));
  cli.get_formatter()->column_width(24);
  cli.footer(footer.empty() ? std::string(kExitStatus) : footer + "\n\n" + kExitStatus);
  cli.add_option("TRACE", trace, "the trace file (APP --trace FILE)");
}

CLI::Option* Command::output_option(const std::string& help) {
  return cli.add_option("-o,--output", output, help)->type_name("FILE");
}

void Command::json_option(const std::string& help) { cli.add_flag("--json", json, help); }

bool Command::parse(const std::vector<std::string_view>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    cli.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << cli.help();
    return false;
  } catch (const CLI::ParseError& error) {
    throw BadInput(error.what());
  }
  if (!cli.remaining().empty()) {
    const std::string extra = cli.remaining().front();
    if (extra.starts_with("-") && extra != "-") throw BadInput("unknown option '" + extra + "'");
    throw BadInput("one trace at a time ('" + trace + "' and '" + extra + "')");
  }
  if (trace.empty()) throw BadInput("no trace file given");
  // An option given an empty value (--cores '') would read as one not given, and
  // the command would quietly do its default: the value is refused instead.
  for (const CLI::Option* option : cli.get_options()) {
    if (!option->nonpositional() || option->get_items_expected_max() == 0 || option->count() == 0) continue;
    const std::vector<std::string>& given = option->results();
    if (std::any_of(given.begin(), given.end(), [](const std::string& value) { return value.empty(); })) {
      throw BadInput(option->get_name() + ": an empty " + option->get_type_name() +
                     " (leave the option out for its default)");
    }
  }
  return true;
}

trace::Trace read_trace_input(const std::string& path) { return tools::read_checked_trace(path, "moirai", std::cerr); }

void print_text(const Command& command, const std::function<void(std::ostream&)>& print) {
  OutputTarget target("-o", command.output.empty() ? "-" : command.output, OutputTarget::Kind::file, {command.trace});
  if (target.to_stdout()) {
    print(std::cout);
    check_stdout();
    return;
  }
  {
    std::ofstream out(target.path(), std::ios::binary | std::ios::trunc);
    print(out);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + target.shown());
  }
  target.commit();
}

void print_summary(const Command& command, const OutputTarget& target, const std::string& line, nlohmann::json fields) {
  // The summary goes to stdout, unless the output itself went there.
  std::ostream& out = target.to_stdout() ? std::cerr : std::cout;
  if (command.json) {
    fields["output"] = target.to_stdout() ? "-" : command.output;
    out << fields.dump() << '\n';
  } else {
    out << target.shown() << ": " << line << '\n';
  }
}

}  // namespace moirai::cli
