// moirai-calibrate --fit's command line, and writing a model where --output says.
#pragma once

#include <string>

namespace moirai::calibrate {

// write_model writes a model's text to `output`, or to standard output when it is empty
// (program::FlagError when the file cannot be written).
void write_model(const std::string& text, const std::string& output);

// fit_main is `moirai-calibrate --fit TRACE... [--output FILE] [--rerun [--rerun-dir DIR]]`: the process
// exit code (0 written, 2 bad input).
int fit_main(int argc, char** argv);

}  // namespace moirai::calibrate
