#include "progress.h"

namespace moirai::sweep {

namespace {
constexpr std::size_t kBarWidth = 30;
}

Progress::Progress(std::ostream& out, bool terminal, std::size_t total_runs)
    : out_(out), terminal_(terminal), total_(total_runs) {}

void Progress::draw(const std::string& label) {
  const std::size_t filled = total_ ? kBarWidth * finished_ / total_ : kBarWidth;
  // \r and erase-line, so a shorter label leaves nothing of the last one behind.
  out_ << "\r\033[K[" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "] " << finished_ << '/'
       << total_ << "  " << label << std::flush;
  bar_shown_ = true;
}

void Progress::started(const std::string& label) {
  if (terminal_) {
    draw("running " + label);
  } else {
    out_ << "sweep: [" << finished_ + 1 << '/' << total_ << "] " << label << ": running\n" << std::flush;
  }
}

void Progress::finished(const std::string& label, const std::string& outcome) {
  ++finished_;
  if (terminal_) {
    draw(label + ": " + outcome);
  } else {
    out_ << "sweep: [" << finished_ << '/' << total_ << "] " << label << ": " << outcome << '\n' << std::flush;
  }
}

void Progress::note(const std::string& text) {
  if (bar_shown_) out_ << "\r\033[K";
  out_ << text << std::flush;
  bar_shown_ = false;
}

void Progress::done() {
  if (terminal_ && bar_shown_) out_ << "\r\033[K" << std::flush;
  bar_shown_ = false;
}

}  // namespace moirai::sweep
