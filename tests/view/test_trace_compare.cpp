// Before and after (view/trace_compare.h): the stages a one-cell edit changes, and nothing else;
// the reference's value of a hovered cell.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "attnlab/attention.h"
#include "attnlab/scenario_io.h"
#include "view/trace_compare.h"

namespace attnlab::app {
namespace test_trace_compare {
namespace {

attnlab::Scenario Preset(const std::string& name) {
  return attnlab::load_scenario(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets/" + name + ".json");
}

TEST(TraceCompare, AnEditOfHeadOnesWqChangesExactlyItsDownstreamStages) {
  const attnlab::Scenario before = Preset("udl-12-2-multihead");
  attnlab::Scenario after = before;
  (*after.heads[0].W_q)(0, 1) += 0.5;
  const attnlab::Trace ref = attnlab::compute(before), cur = attnlab::compute(after);
  std::set<std::string> changed;
  for (const StageComparison& c : CompareHead(cur, ref, 0)) {
    if (c.changed()) changed.insert(c.diff.stage);
    ASSERT_EQ(c.difference.rows(), c.current.rows());
    double worst = 0;
    for (Eigen::Index r = 0; r < c.difference.rows(); ++r)
      for (Eigen::Index k = 0; k < c.difference.cols(); ++k)
        if (std::isfinite(c.difference(r, k))) worst = std::max(worst, std::abs(c.difference(r, k)));
    EXPECT_DOUBLE_EQ(worst, c.diff.max_abs_diff) << c.diff.stage;
    if (c.changed()) {
      EXPECT_DOUBLE_EQ(std::abs(c.difference(c.diff.row, c.diff.col)), c.diff.max_abs_diff) << c.diff.stage;
    }
  }
  EXPECT_EQ(changed, (std::set<std::string>{"Q", "scores", "scaled", "masked", "weights", "output", "concat"}));
  for (const StageComparison& c : CompareHead(cur, ref, 1))
    if (c.diff.head == 1) {
      EXPECT_FALSE(c.changed()) << "head 2 is untouched: " << c.diff.stage;
    }
}

TEST(TraceCompare, MaskedInBothIsMaskedAndAChangedMaskIsNaN) {
  attnlab::Scenario a = Preset("udl-12-2-multihead");
  a.mask.padding = {0};
  const attnlab::Trace ref = attnlab::compute(a);
  a.mask.causal = true;
  const attnlab::Trace cur = attnlab::compute(a);
  for (const StageComparison& c : CompareHead(cur, ref, 0)) {
    if (c.diff.stage != "masked") continue;
    bool nan = false;
    for (Eigen::Index r = 0; r < c.difference.rows(); ++r)
      for (Eigen::Index k = 0; k < c.difference.cols(); ++k) {
        const bool both = std::isinf(c.current(r, k)) && std::isinf(c.reference(r, k));
        if (both) {
          EXPECT_TRUE(std::isinf(c.difference(r, k)));
        }
        nan = nan || std::isnan(c.difference(r, k));
      }
    EXPECT_TRUE(nan) << "the mask changed somewhere";
  }
}

TEST(TraceCompare, ReferenceValueReadsEveryStageCellAsStored) {
  const attnlab::Scenario s = Preset("modern-alibi-slopes");
  const attnlab::Trace t = attnlab::compute(s);
  double v = 0;
  ASSERT_TRUE(ReferenceValue(t, StageId::weights, 1, 2, 1, &v));
  EXPECT_EQ(v, t.heads[1].weights(2, 1));
  ASSERT_TRUE(ReferenceValue(t, StageId::masked, 1, 2, 1, &v));
  EXPECT_EQ(v, t.masked(1)(2, 1));
  ASSERT_TRUE(ReferenceValue(t, StageId::bias, 1, 2, 0, &v));
  EXPECT_EQ(v, t.bias_at(1, 2, 0));
  ASSERT_TRUE(ReferenceValue(t, StageId::output, -1, 0, 0, &v));
  EXPECT_EQ(v, t.output(0, 0));
  EXPECT_FALSE(ReferenceValue(t, StageId::weights, 9, 0, 0, &v));
  EXPECT_FALSE(ReferenceValue(t, StageId::weights, 0, 99, 0, &v));
  EXPECT_FALSE(ReferenceValue(t, StageId::Q_rot, 0, 0, 0, &v)) << "no RoPE: no Q_rot";
}

TEST(TraceCompare, DifferentShapesAreRefusedNamingTheStage) {
  const attnlab::Trace a = attnlab::compute(Preset("udl-12-2-multihead"));
  const attnlab::Trace b = attnlab::compute(Preset("vaswani-q2-is-attends"));
  EXPECT_THROW(CompareHead(a, b, 0), attnlab::ScenarioError);
}

}  // namespace
}  // namespace test_trace_compare
}  // namespace attnlab::app
