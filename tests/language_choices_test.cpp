// A language's choices travel with its construct table in the trace: a made-up language, which
// nothing in Moirai knows by name, gives its own words and placement, and the report speaks its
// words and replay places its units as it says (docs/adding-a-language.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "moirai/replay/replay.h"
#include "moirai/trace/reader.h"
#include "moirai/visualize/analyses/report.h"
#include "support/replay_checks.h"
#include "support/trace_builder.h"

namespace {

using namespace moirai;

constexpr std::uint16_t kSpin = 1;  // Weave's creation
constexpr std::uint16_t kPass = 2;  // Weave's send

// weave is a trace of Weave, whose threads of code are strands: the paper's 3.4.1 (the creator
// runs another strand's unit between two creations while core 1 waits for the second).
trace::Trace weave(LanguagePlacement placement) {
  trace::BuilderOptions options;
  options.cores = 2;
  options.language = "Weave";
  options.constructs = {{"end strand", ConstructRole::end, ""}, {"spin", ConstructRole::create, "teal"},
                        {"pass", ConstructRole::send, "navy"}};
  options.choices = LanguageChoices{placement,
                                     {{"vp", "strand"}, {"vps", "strands"}, {"creator_cure", "spin the strands from several looms"}}};
  test_support::TraceBuilder builder(options);
  builder.site(1, "loom.cpp", 42);
  builder.site(2, "strand.cpp", 9);
  builder.unit(0, 1, 1, 0, 1, 9, 10, kSpin, 1);
  builder.constraint(0, kSpin, 1, 2, 9);
  builder.unit(0, 2, 2, 10, 11, 59, 60, kPass, 2);
  builder.unit(0, 3, 1, 60, 61, 69, 70, kSpin, 1);
  builder.constraint(0, kSpin, 3, 4, 69);
  builder.idle(1, 0, 70);
  builder.unit(1, 4, 3, 70, 71, 99, 100, kPass, 2);
  const std::string path = ::testing::TempDir() + "moirai_weave_" + std::to_string(::getpid()) + ".mtrace";
  builder.write(path);
  trace::Trace trace = trace::read_trace(path);
  std::remove(path.c_str());
  return trace;
}

// creator_hint is the report's creator-starvation hint for `trace` (empty: none).
std::string creator_hint(const trace::Trace& trace) {
  const visualize::Report report = visualize::build_report(trace);
  for (const auto* list : {&report.hints, &report.minor_hints}) {
    for (const visualize::Hint& hint : *list) {
      if (hint.rule == "creator-starvation") return hint.message;
    }
  }
  return "";
}

TEST(LanguageChoices, TheReportSpeaksAMadeUpLanguagesWords) {
  const std::string hint = creator_hint(weave(LanguagePlacement::last_core));
  EXPECT_NE(hint.find("the creating strand on core 0"), std::string::npos) << hint;
  EXPECT_NE(hint.find("spin the strands from several looms"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("VP"), std::string::npos) << "a word the language gave is not the paper's: " << hint;
}

TEST(LanguageChoices, ReplayUsesAMadeUpLanguagesPlacement) {
  for (const auto& [given, used] : {std::pair{LanguagePlacement::last_core, replay::Placement::last_core},
                                    std::pair{LanguagePlacement::any_core, replay::Placement::any_core}}) {
    const trace::Trace recorded = weave(given);
    EXPECT_EQ(replay::language_placement(recorded), used);
    replay::ReplayOptions options;
    options.machine = proto::SimTopology::parse("sim:2");
    replay::ReplayResult result;
    const trace::Trace replayed = test::replay_recorded(recorded, options, "weave", &result);
    EXPECT_EQ(result.placement, used) << replay::placement_name(used);
    // The replayed run is Weave's too: its trace carries the same words and placement.
    EXPECT_EQ(replayed.metadata.at("language"), "Weave");
    EXPECT_EQ(replayed.language_choices.placement, given);
    EXPECT_EQ(replayed.language_choices.words, recorded.language_choices.words);
  }
}

}  // namespace
