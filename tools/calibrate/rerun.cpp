#include "rerun.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "child_process.h"

namespace moirai::calibrate {

namespace {

// split_words splits a recorded command line at spaces (Moirai's apps record it unquoted).
std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

std::vector<std::string> sim_command(const std::string& trace_path, const trace::Trace& real, const std::string& rerun_dir,
                                     const std::string& into) {
  const auto line = real.metadata.find("command_line");
  std::vector<std::string> words = split_words(line == real.metadata.end() ? std::string() : line->second);
  if (words.empty()) {
    throw std::runtime_error(trace_path + ": the trace records no command line to re-run");
  }
  static const std::vector<std::string> kWithValue = {"--cores", "--machine", "--trace", "--counters",
                                                     "--cost-model", "--sim-work", "--sim-factor"};
  static const std::vector<std::string> kToggles = {"--check", "--progress", "--profile", "--no-os-time"};
  std::vector<std::string> argv;
  std::filesystem::path program(words[0]);
  if (program.is_relative() && words[0].find('/') != std::string::npos) program = std::filesystem::path(rerun_dir) / program;
  argv.push_back(program.string());
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    const std::string name = word.substr(0, word.find('='));
    if (std::find(kToggles.begin(), kToggles.end(), word) != kToggles.end()) continue;
    if (std::find(kWithValue.begin(), kWithValue.end(), name) != kWithValue.end()) {
      if (name == word) ++i;  // `--flag value`: skip the value too
      continue;
    }
    argv.push_back(word);
  }
  for (const std::string& extra : {std::string("--machine"), "sim:" + std::to_string(real.core_count),
                                   std::string("--sim-work"), std::string("declared"), std::string("--counters"),
                                   std::string("none"), std::string("--trace"), into}) {
    argv.push_back(extra);
  }
  return argv;
}

void run_on_sim(const std::string& path, const std::vector<std::string>& argv, const std::string& into) {
  const std::string out = into + ".out", err = into + ".err";
  const tools::ChildStatus status = tools::run_child(argv, out, err, 0);
  const std::vector<std::string> tail = tools::last_lines(err, 3);
  std::remove(out.c_str());
  std::remove(err.c_str());
  if (!status.succeeded()) {
    std::string why = status.started ? status.describe() : status.error;
    for (const std::string& line : tail) why += "\n    " + line;
    throw std::runtime_error(path + ": its command on the simulated machine failed (" + why +
                             "); run moirai-calibrate from the directory the trace was recorded in, or "
                             "name it with --rerun-dir");
  }
}

}  // namespace moirai::calibrate
