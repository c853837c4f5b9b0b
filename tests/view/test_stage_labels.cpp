// view/stage_labels.h: every stage's labels have the shape of the trace's matrix in both layouts,
// token names run along the token axes (queries: X's, keys: Z's or X's), indices along widths, and
// the columns layout's labels are the rows layout's, swapped.
#include <gtest/gtest.h>

#include <string>

#include "view/stage_labels.h"
#include "view_cases.h"

namespace test_stage_labels {

namespace {

using attnlab::Matrix;
using attnlab::app::AxisLabels;
using attnlab::StageId;

const StageId kStages[] = {StageId::Q,      StageId::K,      StageId::V,          StageId::scores,
                         StageId::scaled, StageId::masked, StageId::weights,    StageId::head_output,
                         StageId::concat, StageId::W_o,     StageId::output};

const Matrix* StageMatrix(const attnlab::Scenario& s, const attnlab::Trace& t, StageId stage) {
  const attnlab::HeadTrace& h = t.heads.front();
  switch (stage) {
    case StageId::Q: return &h.Q;
    case StageId::K: return &h.K;
    case StageId::V: return &h.V;
    case StageId::scores:
    case StageId::scaled:
    case StageId::masked: return &h.scores;
    case StageId::weights: return &h.weights;
    case StageId::head_output: return &h.output;
    case StageId::concat: return &t.concat;
    case StageId::W_o: return s.W_o ? &*s.W_o : nullptr;
    case StageId::output: return &t.output;
    case StageId::X_pos: return &t.X_pos;
    case StageId::Q_norm: return &h.Q_norm;
    case StageId::K_norm: return &h.K_norm;
    case StageId::Q_rot: return &h.Q_rot;
    case StageId::K_rot: return &h.K_rot;
    case StageId::capped:
    case StageId::bias: return &h.scores;
    case StageId::none:
    case StageId::inputs:
    case StageId::heads:
    case StageId::tiles:
    case StageId::decode:
    case StageId::lines: break;
  }
  return nullptr;
}

void ExpectAxis(const std::string& where, const attnlab::Scenario& s, const char* axis,
                const std::vector<std::string>& labels, int n) {
  ASSERT_NE(axis, nullptr) << where;
  ASSERT_EQ(static_cast<int>(labels.size()), n) << where;
  const std::string name = axis;
  if (name == "queries")
    EXPECT_EQ(labels, attnlab::app::QueryTokenLabels(s)) << where;
  else if (name == "keys")
    EXPECT_EQ(labels, attnlab::app::KeyTokenLabels(s)) << where;
  else
    EXPECT_EQ(labels, attnlab::app::IndexLabels(n)) << where << " (" << name << ")";
}

TEST(StageLabels, EveryStageMatchesTheTracesShapeAndNamesItsTokenAxes) {
  int checked = 0;
  for (const auto& c : attnlab::view_testing::all_cases()) {
    const attnlab::Scenario& s = c.scenario;
    const attnlab::Trace t = attnlab::compute(s);
    for (StageId stage : kStages) {
      const Matrix* m = StageMatrix(s, t, stage);
      if (!m) continue;
      const std::string where = c.name + " " + attnlab::stage_name(stage);
      const AxisLabels l = attnlab::app::StageLabels(stage, s, int(m->rows()), int(m->cols()));
      ExpectAxis(where + " rows", s, l.row_axis, l.rows, int(m->rows()));
      ExpectAxis(where + " cols", s, l.col_axis, l.cols, int(m->cols()));
      // The token axis is the rows in the rows layout, the columns in the columns layout.
      const std::string token_axis = s.layout == attnlab::Layout::rows ? l.row_axis : l.col_axis;
      if (stage != StageId::W_o) {
        EXPECT_TRUE(token_axis == "queries" || token_axis == "keys") << where;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(StageLabels, TheColumnsLayoutSwapsTheRowsLayoutsLabels) {
  for (const auto& c : attnlab::view_testing::all_cases()) {
    if (c.scenario.layout != attnlab::Layout::rows) continue;
    const attnlab::Scenario cols = attnlab::with_layout(c.scenario, attnlab::Layout::columns);
    for (StageId stage : kStages) {
      const AxisLabels r = attnlab::app::StageLabels(stage, c.scenario, 3, 5);
      const AxisLabels k = attnlab::app::StageLabels(stage, cols, 5, 3);
      EXPECT_EQ(r.rows, k.cols) << c.name << " " << attnlab::stage_name(stage);
      EXPECT_EQ(r.cols, k.rows) << c.name << " " << attnlab::stage_name(stage);
    }
  }
}

TEST(StageLabels, TokenLabelsAreTheScenariosOrNumbered) {
  attnlab::Scenario s = attnlab::testing::random_scenario(3, 2, 1, 1);
  EXPECT_EQ(attnlab::app::QueryTokenLabels(s), (std::vector<std::string>{"x0", "x1", "x2"}));
  EXPECT_EQ(attnlab::app::KeyTokenLabels(s), attnlab::app::QueryTokenLabels(s)) << "self-attention";
  s.tokens = {"a", "b", "c"};
  s.Z = Matrix::Zero(2, 2);
  EXPECT_EQ(attnlab::app::QueryTokenLabels(s), s.tokens);
  EXPECT_EQ(attnlab::app::KeyTokenLabels(s), (std::vector<std::string>{"z0", "z1"}));
  s.context_tokens = {"p", "q"};
  EXPECT_EQ(attnlab::app::KeyTokenLabels(s), s.context_tokens);
}

}  // namespace

}  // namespace test_stage_labels
