// The command-line conventions the OpenMP apps share, so they answer like Moirai's other apps:
// CLI11 parses; --help prints the flags; bad input is named on one line with a pointer to --help
// and exits 2; output that could not be written is said and exits 1. Plain C++ and CLI11 only:
// the OpenMP apps are ordinary OpenMP programs and include nothing of Moirai.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace omp_apps {

// kExitStatus is the help's footer: what each exit status means.
inline constexpr const char* kExitStatus =
    "Exit status: 0 done (and checked, with --check); 1 the check failed or output could not be\n"
    "written; 2 bad input (a flag or its value).";

// whole accepts a whole number from `min` to `max`, and names what is wrong with anything else.
inline CLI::Validator whole(std::int64_t min, std::int64_t max) {
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        std::int64_t value = 0;
        const char* const end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || stop != end || error == std::errc::invalid_argument) {
          return "'" + text + "' is not a whole number (expected " + range + ")";
        }
        if (error == std::errc::result_out_of_range || value < min || value > max) {
          return text + " is out of range (must be " + range + ")";
        }
        return {};
      },
      "N in " + range);
}

// between accepts a number from `min` to `max`, and names what is wrong with anything else.
inline CLI::Validator between(double min, double max) {
  std::ostringstream range_text;
  range_text << min << " to " << max;
  const std::string range = range_text.str();
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        double value = 0.0;
        const char* const end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || stop != end || error == std::errc::invalid_argument) {
          return "'" + text + "' is not a number (expected " + range + ")";
        }
        if (error == std::errc::result_out_of_range || !(value >= min && value <= max)) {
          return text + " is out of range (must be " + range + ")";
        }
        return {};
      },
      "X in " + range);
}

// parse_or_exit parses the command line into `cli`, exiting 0 after --help and 2 on bad input.
inline void parse_or_exit(CLI::App& cli, int argc, char** argv) {
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << cli.help() << std::flush;
    std::exit(std::cout ? EXIT_SUCCESS : EXIT_FAILURE);
  } catch (const CLI::ParseError& error) {
    std::cerr << cli.get_name() << ": error: " << error.what() << "\n"
              << "run '" << cli.get_name() << " --help' for the flags\n";
    std::exit(2);
  }
}

// refuse reports a combination of flags that CLI11 cannot judge alone, and exits 2.
[[noreturn]] inline void refuse(const CLI::App& cli, const std::string& why) {
  std::cerr << cli.get_name() << ": error: " << why << "\n";
  std::exit(2);
}

// finish returns `status`, or 1 when standard output could not be written (a full disk).
inline int finish(const CLI::App& cli, int status) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::cerr << cli.get_name() << ": error: cannot write to standard output\n";
    return EXIT_FAILURE;
  }
  return status;
}

}  // namespace omp_apps
