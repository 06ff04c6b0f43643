#include "format_history.h"

#include "moirai/trace/openmp_words.h"
#include "moirai/trace/ssr_constructs.h"

namespace moirai::trace::detail {

namespace {

// The names old traces gave their languages, as their recorders wrote them.
constexpr std::string_view kOldSsr = "SSR";
constexpr std::string_view kOldOpenMp = "OpenMP";

void legacy_roles(Trace& trace, std::string_view language) {
  if (language != kOldSsr) return;
  for (std::size_t kind = 0; kind < trace.constructs.size(); ++kind) {
    for (const ConstructInfo& ssr : kFormat2SsrConstructs) {
      if (ssr.name != trace.constructs[kind]) continue;
      trace.construct_roles[kind] = ssr.role;
      trace.construct_colours[kind] = ssr.colour;
    }
  }
}

LanguageChoices legacy_choices(std::string_view language) {
  LanguageChoices choices;
  if (language == kOldSsr) choices.placement = LanguagePlacement::last_core;
  if (language == kOldOpenMp) choices.words = kFormat35OpenMpWords;
  return choices;
}

}  // namespace

void apply_format_history(Trace& trace) {
  const auto named = trace.metadata.find("language");
  const std::string_view language = named == trace.metadata.end() ? std::string_view{} : std::string_view(named->second);
  if (trace.version.first < 3) legacy_roles(trace, language);
  if (trace.version < std::pair<std::uint16_t, std::uint16_t>{3, kLanguageChoicesMinor}) trace.language_choices = legacy_choices(language);
}

}  // namespace moirai::trace::detail
