// A trace whose names are hostile to text formats: invalid UTF-8 and control characters in a VP
// name, a call site's file and function, and a phase name. Every view must still print strict
// JSON and well-formed XML from it (docs/export.md, "Writing outputs").
#pragma once

#include <cstdio>
#include <string>

#include "support/trace_builder.h"

namespace moirai::test_support {

// kBadBytes: an ESC sequence, \x01, a lone continuation byte, a truncated 3-byte sequence, an
// overlong '/', a UTF-16 surrogate and 0xFF.
inline const std::string kBadBytes = std::string("\x1b[31m\x01") + "\x80" + "\xe2\x82" + "\xc0\xaf" + "\xed\xa0\x80" + "\xff";

// write_hostile_names_trace: VP 1 (core 0) runs u1, which creates VP 2 (core 1: u2) and holds a
// phase, then u3; kBadBytes is in every name.
inline void write_hostile_names_trace(const std::string& path) {
  TraceBuilder b(2);
  b.site(1, "bad" + kBadBytes + ".cpp", 10, "f" + kBadBytes);
  b.vp(1, "main" + kBadBytes, 0, 1);
  b.vp(2, "worker\x02", 1, 1);
  b.unit(0, 1, 1, 0, 10, 110, 120, 1, 1);
  b.user_event(0, 1, "phase" + kBadBytes, 1, 50, true);
  b.user_event(0, 1, "phase" + kBadBytes, 1, 90, false);
  b.constraint(0, 1, 1, 2, 115);
  b.unit(0, 3, 1, 120, 130, 230, 240, 0, 1);
  b.idle(1, 0, 120);
  b.unit(1, 2, 2, 120, 130, 330, 340, 0, 1);
  b.write(path);
}

// xml_problems runs xmllint (its path given) on a file: "" when it is well-formed XML, else what
// xmllint said.
inline std::string xml_problems(const std::string& xmllint, const std::string& path) {
  FILE* pipe = ::popen((xmllint + " --noout '" + path + "' 2>&1").c_str(), "r");
  if (pipe == nullptr) return "cannot run " + xmllint;
  std::string said;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) said.append(buffer, n);
  const int status = ::pclose(pipe);
  return status == 0 ? std::string() : "xmllint: " + (said.empty() ? std::string("failed") : said.substr(0, 2000));
}

}  // namespace moirai::test_support
