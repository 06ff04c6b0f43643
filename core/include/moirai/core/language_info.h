// How a trace describes the language that ran: its name, its construct table, and its choices
// for what reads the trace: the report's words for its units and cures, and the placement a
// replay of it should use. Every consumer reads these from the trace, never from the language's
// name (docs/adding-a-language.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "moirai/core/construct_role.h"

namespace moirai {

// LanguagePlacement is the placement of ready units closest to the language's assigner, the one
// a replay of its trace uses by default (value = trace field).
enum class LanguagePlacement : std::uint16_t {
  any_core = 1,   // one ready queue every free core takes from, oldest first (VSs, OpenMP's tasks)
  last_core = 2,  // a VP goes back to the core it last ran on, a new one round-robin (SSR's FIFOs)
};

// placement_known says whether `value` is a placement the trace format defines.
constexpr bool placement_known(std::uint16_t value) {
  return value == static_cast<std::uint16_t>(LanguagePlacement::any_core) ||
         value == static_cast<std::uint16_t>(LanguagePlacement::last_core);
}

// LanguageWord is one of the report's words as a language says it: `name` is the report's name
// for the word (docs/adding-a-language.md lists them), `text` the language's.
struct LanguageWord {
  std::string name;
  std::string text;
  bool operator==(const LanguageWord&) const = default;
};

// LanguageChoices is what a language chooses for the views and replay.
struct LanguageChoices {
  LanguagePlacement placement = LanguagePlacement::any_core;
  std::vector<LanguageWord> words;  // a word it does not give stays the paper's (VPs on cores)

  // word is the language's text for `name`, or nullptr when it gives none.
  const std::string* word(std::string_view name) const {
    for (const LanguageWord& w : words) {
      if (w.name == name) return &w.text;
    }
    return nullptr;
  }
};

// LanguageInfo is how a trace describes the language that ran.
struct LanguageInfo {
  std::string name;                       // the trace's `language`
  std::vector<ConstructInfo> constructs;  // by kind
  LanguageChoices choices;
};

}  // namespace moirai
