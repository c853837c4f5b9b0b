// The gradients the Sensitivity panel draws and the Inputs editors are coloured by
// (view/sensitivity_map.h): each named and shaped as its editor, the core's numbers, an exact zero
// reached through rounding read as zero, recomputed once per version and target.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "attnlab/cell_ref.h"
#include "attnlab/sensitivity.h"
#include "view/sensitivity_map.h"
#include "view_cases.h"

namespace attnlab::app {
namespace test_sensitivity_map {
namespace {

bool IsBias(const std::string& source) { return source.find("b_") != std::string::npos; }

// The cell of the scenario that `source`'s gradient cell (r, c) is the derivative by.
std::string CellOf(const std::string& source, Eigen::Index r, Eigen::Index c, attnlab::Layout layout) {
  if (!IsBias(source)) return source + "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
  return source + "[" + std::to_string(layout == attnlab::Layout::rows ? c : r) + "]";
}

TEST(SensitivityMap, EveryGradientIsNamedAndShapedAsItsEditor) {
  for (const view_testing::Case& k : view_testing::all_cases()) {
    const attnlab::Scenario& s = k.scenario;
    const SensitivityMap map = ComputeSensitivityMap(s, "output[0][0]");
    if (s.qk_norm) {  // the backward pass does not differentiate QK-norm: the refusal names it
      EXPECT_EQ(map.error.rfind("qk_norm: ", 0), 0u) << k.name << ": " << map.error;
      continue;
    }
    ASSERT_TRUE(map.error.empty()) << k.name << ": " << map.error;
    ASSERT_FALSE(map.gradients.empty());
    EXPECT_EQ(map.gradients.front().source, "X") << k.name;
    for (const SensitivityGradient& g : map.gradients) {
      if (IsBias(g.source)) {
        EXPECT_EQ(s.layout == attnlab::Layout::rows ? g.values.rows() : g.values.cols(), 1)
            << k.name << ": " << g.source << " is a row under Q = X W_q, a column beside W_q X";
      }
      const Eigen::Index last_r = g.values.rows() - 1, last_c = g.values.cols() - 1;
      // The last cell exists in the scenario, and one further does not: the same shape.
      EXPECT_NO_THROW(attnlab::scenario_value(s, attnlab::parse_cell_ref(CellOf(g.source, last_r, last_c, s.layout))))
          << k.name << ": " << g.source;
      const bool along_rows = !IsBias(g.source) || s.layout == attnlab::Layout::columns;
      EXPECT_THROW(attnlab::scenario_value(s, attnlab::parse_cell_ref(CellOf(g.source, last_r + (along_rows ? 1 : 0),
                                                                                  last_c + (along_rows ? 0 : 1), s.layout))),
                   attnlab::ScenarioError)
          << k.name << ": " << g.source;
    }
  }
}

TEST(SensitivityMap, TheNumbersAreTheCoresAndAnExactZeroReachedByRoundingReadsZero) {
  const attnlab::Scenario s = attnlab::load_scenario(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets/udl-12-2-multihead.json");
  const SensitivityMap map = ComputeSensitivityMap(s, "output[0][0]");
  const attnlab::Sensitivity core = attnlab::sensitivity(s, attnlab::parse_cell_ref("output[0][0]"));
  EXPECT_EQ(map.value, core.value);
  EXPECT_EQ(*GradientOf(map, "X"), core.X);
  EXPECT_EQ(*GradientOf(map, "heads[1].W_k"), *core.heads[1].W_k);
  EXPECT_EQ(*GradientOf(map, "W_o"), *core.W_o);
  // The softmax takes back what every score of a query shares, so no key bias moves anything.
  for (const char* b_k : {"heads[0].b_k", "heads[1].b_k"}) {
    const attnlab::Matrix* g = GradientOf(map, b_k);
    ASSERT_NE(g, nullptr) << b_k;
    EXPECT_EQ(g->cwiseAbs().maxCoeff(), 0.0) << b_k;
  }
  EXPECT_EQ(GradientOf(map, "b_o"), nullptr) << "the preset has no b_o, so no gradient for it";
}

TEST(SensitivityMap, TheLargestCellsComeFirstAndAreCellsOfTheScenario) {
  const attnlab::Scenario s = view_testing::made_cases().front().scenario;
  // Causal with key 1 padded: query 2 attends keys 0 and 2.
  const SensitivityMap map = ComputeSensitivityMap(s, "heads[1].weights[2][2]");
  ASSERT_TRUE(map.error.empty()) << map.error;
  const std::vector<SensitiveCell> top = LargestGradients(map, 8);
  ASSERT_EQ(top.size(), 8u);
  for (std::size_t k = 0; k < top.size(); ++k) {
    EXPECT_NE(top[k].grad, 0.0);
    if (k > 0) {
      EXPECT_GE(std::abs(top[k - 1].grad), std::abs(top[k].grad));
    }
    EXPECT_NO_THROW(attnlab::scenario_value(s, attnlab::parse_cell_ref(top[k].cell))) << top[k].cell;
  }
  double largest = 0;
  for (const SensitivityGradient& g : map.gradients) largest = std::max(largest, g.values.cwiseAbs().maxCoeff());
  EXPECT_EQ(std::abs(top.front().grad), largest);
}

TEST(SensitivityMap, ATargetThatNamesNoCellGivesItsRefusalAndNoGradients) {
  const attnlab::Scenario s = view_testing::made_cases().front().scenario;
  const SensitivityMap map = ComputeSensitivityMap(s, "output[99][0]");
  EXPECT_NE(map.error.find("output[99][0]"), std::string::npos) << map.error;
  EXPECT_TRUE(map.gradients.empty());
  EXPECT_TRUE(LargestGradients(map, 8).empty());
}

TEST(SensitivityMap, ACellIsNamedByItsTokenAndCoordinateInEitherLayout) {
  attnlab::Scenario rows = view_testing::made_cases().front().scenario;  // tokens the, cat, sat, on, mats
  ASSERT_EQ(rows.layout, attnlab::Layout::rows);
  const attnlab::Scenario columns = with_layout(rows, attnlab::Layout::columns);
  EXPECT_EQ(CellMeaning(rows, "X[1][4]"), "token cat, coordinate 4");
  EXPECT_EQ(CellMeaning(columns, "X[4][1]"), "token cat, coordinate 4") << "the same number, transposed";
  EXPECT_EQ(CellMeaning(rows, "heads[2].W_q[0][1]"), "head 2");
  EXPECT_EQ(CellMeaning(rows, "kv_heads[0].W_k[0][1]"), "K/V head 0");
  EXPECT_EQ(CellMeaning(rows, "W_o[0][1]"), "");
  EXPECT_EQ(CellMeaning(rows, "X[9][0]"), "") << "no such token: nothing to say";
}

TEST(SensitivityCache, RecomputesForANewVersionOrTargetOnly) {
  const attnlab::Scenario s = view_testing::made_cases().front().scenario;
  SensitivityCache cache;
  const std::uint64_t first = cache.Get(s, 1, "output[0][0]").generation;
  EXPECT_EQ(cache.Get(s, 1, "output[0][0]").generation, first);
  const std::uint64_t second = cache.Get(s, 2, "output[0][0]").generation;
  EXPECT_NE(second, first);
  const SensitivityMap& third = cache.Get(s, 2, "output[1][0]");
  EXPECT_NE(third.generation, second);
  EXPECT_EQ(third.target, "output[1][0]");
}

}  // namespace
}  // namespace test_sensitivity_map
}  // namespace attnlab::app
