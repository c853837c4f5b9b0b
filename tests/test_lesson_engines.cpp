// The lesson steps of attention as engines run it (attnlab/lesson.h, core/src/lesson_engines.cpp):
// `tiles` and `decode` steps parse, round-trip and refuse malformed fields naming them; a tiles
// step's explanation writes each row's rescale with the numbers of the independent NumPy online
// softmax (tests/fixtures/flash, scripts/gen_fixtures_flash.py); a decode step's names the cache
// the NumPy reference of scripts/gen_presets_modern.py asserts for the KV-cache preset.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/lesson.h"
#include "attnlab/number_format.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_lesson_engines {

namespace {

namespace fs = std::filesystem;
using attnlab::StageId;
using attnlab::lesson::Step;
using nlohmann::json;

std::string refusal(const json& lesson) {
  try {
    attnlab::lesson::parse_lesson(lesson);
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

json one_step(json step) { return {{"steps", json::array({std::move(step)})}}; }

TEST(LessonEngines, TilesAndDecodeStepsRoundTrip) {
  const json lesson = {{"title", "engines"},
                       {"steps", {{{"stage", "tiles"}, {"block", {2, 3}}, {"tile", 5}, {"predict", true}},
                                  {{"stage", "decode"}, {"prefill", 3}},
                                  {{"stage", "decode"}, {"prefill", 3}, {"token", 7}, {"head", 1}}}}};
  const attnlab::lesson::Lesson parsed = attnlab::lesson::parse_lesson(lesson);
  ASSERT_EQ(parsed.steps.size(), 3u);
  EXPECT_EQ(parsed.steps[0].kind, StageId::tiles);
  EXPECT_EQ(parsed.steps[0].block_rows, 2);
  EXPECT_EQ(parsed.steps[0].block_cols, 3);
  EXPECT_EQ(parsed.steps[0].tile, 5);
  EXPECT_EQ(parsed.steps[1].token, -1) << "no token: the prefill";
  EXPECT_EQ(parsed.steps[2].token, 7);
  EXPECT_EQ(attnlab::lesson::to_json(parsed), lesson);
}

TEST(LessonEngines, MalformedFieldsAreRefusedNamingThem) {
  const std::string at = "view.lesson.steps[0].";
  EXPECT_EQ(refusal(one_step({{"stage", "tiles"}})), at + "block: expected [Br, Bc], two whole numbers from 1, got nothing");
  EXPECT_EQ(refusal(one_step({{"stage", "tiles"}, {"block", {0, 2}}})),
            at + "block: expected [Br, Bc], two whole numbers from 1, got an array of 2");
  EXPECT_EQ(refusal(one_step({{"stage", "tiles"}, {"block", {2, 2}}, {"tile", -1}})),
            at + "tile: expected a tile from 0 (the first in the loop's order), got -1");
  EXPECT_EQ(refusal(one_step({{"stage", "tiles"}, {"block", {2, 2}}, {"tile", 1.5}})),
            at + "tile: expected a tile from 0 (the first in the loop's order), got 1.5");
  EXPECT_EQ(refusal(one_step({{"stage", "decode"}, {"prefill", "3"}})),
            at + "prefill: expected the number of prefilled tokens, a whole number from 0, got string \"3\"");
  EXPECT_EQ(refusal(one_step({{"stage", "decode"}, {"prefill", 3}, {"token", 2}})),
            at + "token: expected a decoded token from the prefill's 3 on (0-based), got 2");
  EXPECT_EQ(refusal(one_step({{"stage", "weights"}, {"tile", 2}})), at + "tile: only a tiles step has tile");
  EXPECT_EQ(refusal(one_step({{"stage", "tiles"}, {"block", {2, 2}}, {"token", 2}})),
            at + "token: only a decode step has token");
}

fs::path fixtures() { return fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "fixtures"; }

json read_json(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// As the cells write a number (issue 26): two decimals, a real minus sign.
std::string fmt(double v) {
  const std::string s = attnlab::format_fixed(v, 2);
  return s[0] == '-' ? "\xE2\x88\x92" + s.substr(1) : s;
}

// What the explanation must say of row r of `tile`, from the NumPy numbers: "" when the row's m
// did not move.
std::string expected_row(const json& tiles, std::size_t k, std::size_t r) {
  const json& tile = tiles[k];
  const bool first_of_block = k == 0 || tiles[k - 1]["q_block"] != tile["q_block"];
  const json before = first_of_block ? json() : tiles[k - 1]["m"][r];
  const json after = tile["m"][r];
  if (after.is_null()) return "";
  if (before.is_null()) return "its first visible keys: m = " + fmt(after.get<double>());
  const double b = before.get<double>(), a = after.get<double>();
  if (!(a > b)) return "";
  return "m was " + fmt(b) + ", the tile's max is " + fmt(a) + ", so O and l are multiplied by exp(" + fmt(b) +
         " \xE2\x88\x92 " + (a < 0 ? "(" + fmt(a) + ")" : fmt(a)) + ") = " + fmt(tile["alpha"][r].get<double>());
}

TEST(LessonEngines, ATilesStepWritesEachRescaleWithTheNumPyNumbers) {
  const json doc = read_json(fixtures() / "flash" / "causal_h4_rows.json");
  const attnlab::Scenario s =
      attnlab::scenario_from_json(read_json(fixtures() / doc["fixture"].get<std::string>()).at("scenario"));
  const attnlab::Trace t = attnlab::compute(s);
  int rescales = 0, firsts = 0, skipped = 0;
  for (const json& run : doc["runs"]) {
    if (run["block"][0].get<int>() > 4) continue;  // one tile: nothing to step through
    Step step;
    step.kind = StageId::tiles;
    step.block_rows = run["block"][0];
    step.block_cols = run["block"][1];
    const int head = run["head"].get<int>() - 1;
    for (std::size_t k = 0; k < run["tiles"].size(); ++k) {
      step.tile = int(k);
      const std::string said = attnlab::lesson::step_explanation(step, s, t, head);
      if (run["tiles"][k]["skipped"].get<bool>()) {
        EXPECT_NE(said.find("skipped"), std::string::npos) << said;
        ++skipped;
        continue;
      }
      for (std::size_t r = 0; r < run["tiles"][k]["m"].size(); ++r) {
        const std::string row = expected_row(run["tiles"], k, r);
        if (row.empty()) continue;
        EXPECT_NE(said.find(row), std::string::npos) << "tile " << k << " row " << r << ": " << row << "\nin: " << said;
        ++(row[0] == 'm' ? rescales : firsts);
      }
    }
  }
  EXPECT_GT(rescales, 10);
  EXPECT_GT(firsts, 10);
  EXPECT_GT(skipped, 5);
}

// Before the reveal the class reads the tile's scores in words: a projected 8 x 8 map's cells are
// too small to print them.
TEST(LessonEngines, ATilesPredictionQuotesTheRowsScoresAndTheirMSoFar) {
  const attnlab::Scenario s = attnlab::load_scenario(attnlab::testing::preset_path("modern-flashattention-tiles"));
  const attnlab::Trace t = attnlab::compute(s);
  Step step;
  step.kind = StageId::tiles;
  step.block_rows = step.block_cols = 2;
  step.tile = 9;  // queries 4-5, keys 2-3; tile 8 (keys 0-1) set m before it
  const attnlab::Matrix S = t.masked(0);
  const double m4 = std::max(S(4, 0), S(4, 1));
  const std::string said = attnlab::lesson::predict_prompt(step, s, t, 0);
  EXPECT_NE(said.find("Row 4 'the': m = " + fmt(m4) + " so far, the tile's scores " + fmt(S(4, 2)) + ", " + fmt(S(4, 3))),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find(fmt(S(4, 4))), std::string::npos) << "keys outside the tile: " << said;
}

TEST(LessonEngines, ATileBeyondAnEditedScenariosCountShowsTheLast) {
  const attnlab::Scenario s = attnlab::load_scenario(attnlab::testing::preset_path("modern-flashattention-tiles"));
  const attnlab::Trace t = attnlab::compute(s);
  Step step;
  step.kind = StageId::tiles;
  step.block_rows = step.block_cols = 4;
  step.tile = 40;
  EXPECT_EQ(attnlab::lesson::step_title(step, s, 0), "FlashAttention in 4\xC3\x97" "4 tiles: tile 4 of 4");
  EXPECT_EQ(attnlab::lesson::step_explanation(step, s, t, 0).rfind("This tiling has 4 tiles: showing the last. Tile 4 of 4", 0),
            0u);
}

TEST(LessonEngines, ADecodeStepNamesTheCacheTheNumPyReferenceHolds) {
  const attnlab::Scenario s = attnlab::load_scenario(attnlab::testing::preset_path("modern-kv-cache-window-sinks"));
  const attnlab::Trace t = attnlab::compute(s);
  Step step;
  step.kind = StageId::decode;
  step.prefill = 3;
  // gen_presets_modern.py asserts the caches after tokens 3 and 11 (NumPy's mask of the trace).
  step.token = 3;
  EXPECT_NE(attnlab::lesson::step_explanation(step, s, t, 0).find("holds tokens 0, 1, 2, 3 (4 keys"), std::string::npos);
  step.token = 11;
  const std::string last = attnlab::lesson::step_explanation(step, s, t, 0);
  EXPECT_NE(last.find("holds tokens 0, 1, 8, 9, 10, 11 (6 keys and values in each of 2 K/V heads)"), std::string::npos)
      << last;
  EXPECT_NE(last.find("Evicted: 7 'a', which"), std::string::npos) << last;
  EXPECT_NE(last.find("The sinks 0, 1 stay, outside the window of 4."), std::string::npos) << last;
  // The largest weight is the full trace's, head 1's row 11 over the keys the cache holds.
  const attnlab::Matrix& w = t.heads[0].weights;
  Eigen::Index top = 0;
  w.row(11).maxCoeff(&top);
  EXPECT_NE(last.find("largest weight, " + fmt(w(11, top)) + ", to '" + s.tokens[std::size_t(top)] + "'"),
            std::string::npos)
      << last;
  const std::size_t at = last.find("largest difference ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stod(last.substr(at + 19)), 1e-12) << last;
  step.token = -1;
  EXPECT_NE(attnlab::lesson::step_explanation(step, s, t, 0).find("Prefill: tokens 0\xE2\x80\x93" "2"), std::string::npos);
  step.prefill = 0;  // what the presenter's authoring adds
  EXPECT_EQ(attnlab::lesson::step_explanation(step, s, t, 0).rfind("No prefill: the cache starts empty", 0), 0u);
}

TEST(LessonEngines, ADecodeStepOnCrossAttentionSaysWhyItShowsNothing) {
  attnlab::Scenario s = attnlab::load_scenario(attnlab::testing::preset_path("modern-flashattention-tiles"));
  s.mask.causal = false;
  Step step;
  step.kind = StageId::decode;
  step.prefill = 2;
  const std::string said = attnlab::lesson::step_explanation(step, s, attnlab::compute(s), 0);
  EXPECT_EQ(said.rfind("The decode step shows nothing here: mask.causal", 0), 0u) << said;
}

}  // namespace

}  // namespace test_lesson_engines
