// Attention sinks (mask.sinks, docs/FORMAT.md): keys j < s visible wherever causal allows and the
// padding does not forbid, whatever the window or the cells say; the file key, the edit, baking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attnlab/edits.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_model_sinks {

using attnlab::Scenario;

Scenario six(bool causal, int window, int sinks) {
  Scenario s = attnlab::testing::random_scenario(6, 4, 1, 7);
  s.mask.causal = causal;
  s.mask.window = window;
  s.mask.sinks = sinks;
  return s;
}

/// The rule written out: the reference every case below is checked against.
bool expected(const Scenario& s, int i, int j, bool cell_on, bool padded) {
  if (padded || (s.mask.causal && j > i)) return false;
  if (j < s.mask.sinks) return true;
  return (s.mask.window == 0 || std::abs(i - j) < s.mask.window) && cell_on;
}

void expect_rule(const Scenario& s) {
  const attnlab::Model m = attnlab::resolve(s);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      const bool cell = !s.mask.cells || (*s.mask.cells)(i, j) != 0.0;
      const bool padded = std::find(s.mask.padding.begin(), s.mask.padding.end(), j) != s.mask.padding.end();
      EXPECT_EQ(bool(m.allowed(i, j)), expected(s, i, j, cell, padded)) << "query " << i << ", key " << j;
    }
}

TEST(Sinks, TheFirstKeysStayVisibleBesideACausalWindow) {
  for (int sinks : {0, 1, 2, 6, 9}) expect_rule(six(true, 2, sinks));
  const attnlab::Model m = attnlab::resolve(six(true, 2, 2));
  EXPECT_TRUE(m.allowed(5, 0) && m.allowed(5, 1) && !m.allowed(5, 2) && m.allowed(5, 4));
  EXPECT_FALSE(m.allowed(0, 1));  // causal still holds for a sink
}

TEST(Sinks, OverrideTheCellsButNotThePaddingAndWithoutCausalEveryQuerySeesThem) {
  Scenario s = six(false, 1, 3);
  s.mask.cells = attnlab::Matrix::Zero(6, 6);
  s.mask.padding = {1};
  expect_rule(s);
  const attnlab::Model m = attnlab::resolve(s);
  EXPECT_TRUE(m.allowed(0, 2) && m.allowed(5, 0));
  EXPECT_FALSE(m.allowed(3, 1));  // a padded sink stays masked
  EXPECT_FALSE(m.allowed(3, 3));  // not a sink: the cell is off
}

TEST(Sinks, RoundTripThroughTheFileAndBakeIntoTheSameCells) {
  for (bool causal : {false, true}) {
    Scenario s = six(causal, 2, 2);
    s.layout = attnlab::Layout::rows;
    const Scenario back = attnlab::scenario_from_json(attnlab::scenario_to_json(s));
    EXPECT_EQ(back.mask.sinks, 2);
    EXPECT_EQ(back.mask.window, 2);
    Scenario baked = s;
    attnlab::bake_mask(baked);
    EXPECT_EQ(baked.mask.sinks, 0);
    EXPECT_TRUE((attnlab::resolve(baked).allowed == attnlab::resolve(s).allowed).all()) << "causal " << causal;
  }
  Scenario alone = six(false, 0, 1);  // sinks alone change nothing, but the file keeps them
  EXPECT_EQ(attnlab::scenario_from_json(attnlab::scenario_to_json(alone)).mask.sinks, 1);
}

TEST(Sinks, TheEditSetsThemAndRefusesACountOutOfRangeNamingTheField) {
  Scenario s = six(true, 2, 0);
  attnlab::set_mask_sinks(s, 4);
  EXPECT_EQ(s.mask.sinks, 4);
  for (int bad : {-1, 8193}) {
    try {
      attnlab::set_mask_sinks(s, bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const attnlab::ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("mask.sinks: ", 0), 0u) << e.what();
    }
  }
  EXPECT_EQ(s.mask.sinks, 4);
}

}  // namespace test_model_sinks
