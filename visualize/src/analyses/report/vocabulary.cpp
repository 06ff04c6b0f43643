#include "analyses/report/vocabulary.h"

#include <string_view>

#include "output/text_format.h"

namespace moirai::visualize::report {

std::string fill(const std::string& text, const std::string& what) {
  const std::size_t at = text.find("{}");
  return at == std::string::npos ? text : text.substr(0, at) + what + fill(text.substr(at + 2), what);
}

namespace {

// Word is one of the report's words: the name a language gives it under in its trace, where the
// vocabulary keeps it, and what a trace that does not give it gets: the paper's text, which SSR's
// and VSs's reports have always used, or (`same_as`) an earlier word's, as the trace has it.
struct Word {
  std::string_view name;
  std::string Vocabulary::*member;
  std::string_view paper;
  std::string Vocabulary::*same_as = nullptr;
};

const Word kWords[] = {
    {"vp", &Vocabulary::vp, "VP"},
    {"vps", &Vocabulary::vps, "VPs"},
    {"core", &Vocabulary::core, "core"},
    {"cores", &Vocabulary::cores, "cores"},
    {"creator_cure", &Vocabulary::creator_cure, "create on the other cores first, or give the creator a core of its own"},
    {"unit_size_cure", &Vocabulary::unit_size_cure,
     "do more work between construct calls, most of which end units at the call site named here"},
    {"tail_cure", &Vocabulary::tail_cure, "try a number of pieces that fills every core"},
    {"unused_cure", &Vocabulary::unused_cure,
     "check how work is placed on cores (the paper's misplaced brace left 27 of 40 cores empty)"},
    {"serial_cure", &Vocabulary::serial_cure, "split its work across VPs (a reduction: reduce in a tree, in parallel)"},
    {"exclusive_cure", &Vocabulary::exclusive_cure, "move its work out of the {} or split it across the VPs that wait for it"},
    {"exclusive_section", &Vocabulary::exclusive_section, ""},
    {"late_cure", &Vocabulary::late_cure,
     "the unit on the other side of that construct ran late; look at where its VP is placed and what runs before it on "
     "that core"},
    {"create_late_cure", &Vocabulary::create_late_cure, "", &Vocabulary::late_cure},
    {"exclusive_late_cure", &Vocabulary::exclusive_late_cure, "", &Vocabulary::late_cure},
    {"wait_late_cure", &Vocabulary::wait_late_cure, "", &Vocabulary::late_cure},
};

}  // namespace

Vocabulary vocabulary_of(const trace::Trace& trace) {
  Vocabulary v;
  for (const Word& word : kWords) {
    const std::string* given = trace.language_choices.word(word.name);
    v.*word.member = given != nullptr ? *given : word.same_as != nullptr ? v.*word.same_as : std::string(word.paper);
  }
  constexpr std::string_view kPerConstruct = "late_cure:";
  for (const LanguageWord& word : trace.language_choices.words) {
    if (word.name.starts_with(kPerConstruct)) v.construct_late_cure[word.name.substr(kPerConstruct.size())] = word.text;
  }
  return v;
}

std::string Vocabulary::core_set(const std::vector<std::uint32_t>& list) const {
  const std::string text = detail::core_set(list);  // "core N", "cores N-M" or "no core"
  if (text.starts_with("cores ")) return cores + text.substr(5);
  if (text.starts_with("core ")) return core + text.substr(4);
  return "no " + core;
}

std::string Vocabulary::idle_cure(const std::string& construct, ConstructRole role, const std::string& site) const {
  const auto own = construct_late_cure.find(construct);
  const std::string& text = own != construct_late_cure.end()            ? own->second
                            : role == ConstructRole::create          ? create_late_cure
                            : role == ConstructRole::exclusive_end ? exclusive_late_cure
                            : role == ConstructRole::wait          ? wait_late_cure
                                                                    : late_cure;
  return fill(text, site.empty() ? "an unknown line" : site);
}

}  // namespace moirai::visualize::report
