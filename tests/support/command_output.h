// command_output: what a shell command printed, for the tests that read a real tool's output
// (otf2-print, otf2-marker).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace moirai::test_support {

// command_output runs `command` through the shell and gives its standard output; the test fails
// (and goes on) when the command exits non-zero, naming it and the start of what it printed.
inline std::string command_output(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return output;
  }
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command << "\n" << output.substr(0, 2000);
  return output;
}

}  // namespace moirai::test_support
