// view/formulas.h: each stage's equation is written in its layout's notation (rows: X W, Q K^T,
// A V, softmax along rows; columns: W X, K^T Q, V A, softmax down columns) and says what is there
// (an omitted W, a bias, the scale).
#include <gtest/gtest.h>

#include <string>

#include "view/formulas.h"
#include "view_cases.h"

namespace test_formulas {

namespace {

using attnlab::app::Stage;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const Stage kStages[] = {Stage::Q,      Stage::K,      Stage::V,          Stage::Scores,
                         Stage::Scaled, Stage::Masked, Stage::Weights,    Stage::HeadOutput,
                         Stage::Concat, Stage::Wo,     Stage::Output};

TEST(Formulas, EveryStageHasAnEquationInEachLayoutAndTheProductsTurnAround) {
  for (const auto& c : attnlab::view_testing::all_cases()) {
    const attnlab::Scenario& s = c.scenario;
    const bool rows = s.layout == attnlab::Layout::rows;
    for (Stage stage : kStages)
      EXPECT_FALSE(attnlab::app::StageFormula(stage, s, 0, 2).empty()) << c.name << " " << attnlab::app::StageName(stage);
    const std::string qs = s.rope ? "Q_rot" : "Q", ks = s.rope ? "K_rot" : "K";  // RoPE: the rotated ones
    EXPECT_EQ(attnlab::app::StageFormula(Stage::Scores, s, 0, 2), rows ? "S = " + qs + " " + ks + "^T" : "S = " + ks + "^T " + qs)
        << c.name;
    EXPECT_EQ(attnlab::app::StageFormula(Stage::HeadOutput, s, 0, 2), rows ? "Y = A V" : "Y = V A") << c.name;
    EXPECT_TRUE(Has(attnlab::app::StageFormula(Stage::Weights, s, 0, 2), rows ? "along each row" : "down each column"))
        << c.name;
    EXPECT_TRUE(Has(attnlab::app::AttentionSummary(s), rows ? "softmax_row(" + qs + " " + ks + "^T" : "softmax_col(" + ks + "^T " + qs))
        << c.name;
    EXPECT_EQ(Has(attnlab::app::AttentionSummary(s), " + M)"), !s.mask.empty()) << c.name;
    const attnlab::Projections& p = s.per_head() ? s.heads[0] : s.full;
    const std::string q = attnlab::app::StageFormula(Stage::Q, s, 0, 2);
    if (p.W_q)
      EXPECT_TRUE(Has(q, rows ? "Q = X W_q" : "Q = W_q")) << c.name << ": " << q;
    else
      EXPECT_TRUE(q.rfind("Q = X", 0) == 0 && !Has(q, "W_q")) << c.name << ": " << q;
    EXPECT_EQ(Has(q, "+ b_q"), p.b_q.has_value()) << c.name << ": " << q;
    const std::string k = attnlab::app::StageFormula(Stage::K, s, 0, 2);
    EXPECT_TRUE(Has(k, s.cross_attention() ? "Z" : "X")) << c.name << ": keys come from " << k;
  }
}

TEST(Formulas, TheScaleIsWrittenOutForEachKind) {
  attnlab::Scenario s = attnlab::testing::random_scenario(2, 4, 1, 3);
  EXPECT_TRUE(Has(attnlab::app::ScaleDescription(s, 4), "\xE2\x88\x9A" "4 = 0.5"));
  EXPECT_TRUE(Has(attnlab::app::StageFormula(Stage::Scaled, s, 0, 4), "0.5"));
  s.scale.kind = attnlab::Scale::Kind::none;
  EXPECT_EQ(attnlab::app::ScaleDescription(s, 4), "1 (unscaled)");
  EXPECT_FALSE(Has(attnlab::app::AttentionSummary(s), "d_k"));
  s.scale.kind = attnlab::Scale::Kind::value;
  s.scale.value = 0.25;
  EXPECT_EQ(attnlab::app::ScaleDescription(s, 4), "0.25 (temperature T = 4)");
}

TEST(Formulas, TheOutputSaysWhetherThereIsAnOutputProjection) {
  attnlab::Scenario s = attnlab::testing::random_scenario(2, 4, 1, 3);
  EXPECT_EQ(attnlab::app::StageFormula(Stage::Output, s, 0, 4), "concat W_o");
  s.b_o = attnlab::Vector::Zero(4);
  EXPECT_EQ(attnlab::app::StageFormula(Stage::Output, s, 0, 4), "concat W_o + b_o");
  EXPECT_EQ(attnlab::app::StageFormula(Stage::Output, attnlab::with_layout(s, attnlab::Layout::columns), 0, 4),
            "W_o concat + b_o 1^T");
  s.W_o.reset();
  EXPECT_EQ(attnlab::app::StageFormula(Stage::Output, s, 0, 4), "output = concat");
}

}  // namespace

}  // namespace test_formulas
