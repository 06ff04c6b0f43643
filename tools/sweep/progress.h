// The sweep's progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace moirai::sweep {

// Progress shows which run of how many is going and how each one ended.
class Progress {
 public:
  // Progress draws to `out`; `terminal` chooses the redrawn bar over one line per run.
  Progress(std::ostream& out, bool terminal, std::size_t total_runs);
  // started announces run `label` (numbered from 1 in the order the runs go).
  void started(const std::string& label);
  // finished records the end of the current run with what to say about it.
  void finished(const std::string& label, const std::string& outcome);
  // note prints a message of several lines without breaking the bar.
  void note(const std::string& text);
  // done clears the bar.
  void done();

 private:
  void draw(const std::string& label);
  std::ostream& out_;
  bool terminal_;
  std::size_t total_, finished_ = 0;
  bool bar_shown_ = false;
};

}  // namespace moirai::sweep
