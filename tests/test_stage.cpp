// stage.h: the one table of stages. Its names round-trip and stay the file format's; every row's
// shape rule matches the trace of every preset (both layouts) and of made scenarios with what the
// presets lack (RoPE, ALiBi, an encoding, cross-attention, grouped heads); per-head rows are the
// per-head matrices of the trace. Each stage's equation is written in its layout's notation (rows:
// X W, Q K^T, A V, softmax along rows; columns: W X, K^T Q, V A, softmax down columns) and says
// what is there (an omitted W, a bias, the scale).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/lesson.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "attnlab/stage.h"
#include "attnlab/trace_io.h"
#include "test_support.h"

namespace test_stage {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::StageId;
using attnlab::StageRow;
using attnlab::Trace;

struct Case {
  std::string name;
  Scenario scenario;
};

std::vector<Case> made_cases() {
  std::vector<Case> out;
  Scenario positional = attnlab::testing::random_scenario(5, 4, 2, 31);
  positional.rope = attnlab::Rope{};
  positional.alibi = attnlab::Alibi{};
  positional.positional_encoding = attnlab::PositionalEncoding::sinusoidal;
  positional.mask.causal = true;
  out.push_back({"rope-alibi-encoding", positional});
  Scenario cross = attnlab::testing::random_scenario(3, 4, 2, 32);
  cross.Z = attnlab::testing::random_scenario(5, 4, 1, 33).X;
  cross.W_o.reset();
  out.push_back({"cross-without-W_o", cross});
  Scenario grouped = attnlab::testing::random_scenario(4, 8, 4, 34);
  grouped.num_kv_heads = 2;  // W_k and W_v: d_x by G d_k
  grouped.full.W_k = attnlab::testing::random_scenario(8, 4, 1, 36).X;
  grouped.full.W_v = attnlab::testing::random_scenario(8, 4, 1, 37).X;
  grouped.W_o = attnlab::testing::random_scenario(8, 6, 1, 35).X;  // 8 by 6: d_out 6
  out.push_back({"grouped-d_out-6", grouped});
  Scenario modern = attnlab::testing::random_scenario(5, 4, 2, 38);  // the stages Hugging Face models add
  modern.qk_norm = attnlab::QkNorm{};
  modern.softcap = 2.0;
  modern.rope = attnlab::Rope{};
  modern.rope->scaling.kind = attnlab::RopeScaling::Kind::linear;
  modern.rope->scaling.factor = 2;
  out.push_back({"qk-norm-softcap-scaled-rope", modern});
  Scenario normed = attnlab::testing::random_scenario(4, 4, 2, 39);  // QK-norm without RoPE: scores read Q_norm
  normed.qk_norm = attnlab::QkNorm{};
  normed.qk_norm->scope = attnlab::QkNorm::Scope::width;
  out.push_back({"qk-norm-over-the-width", normed});
  return out;
}

// Every preset and every made case, each in its own layout and in the other one.
std::vector<Case> all_cases() {
  std::vector<Case> base;
  const std::filesystem::path dir = std::filesystem::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets";
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json")
      base.push_back({entry.path().stem().string(), attnlab::load_scenario(entry.path().string())});
  for (Case& c : made_cases()) base.push_back(std::move(c));
  std::vector<Case> out;
  for (const Case& c : base) {
    const Layout other = c.scenario.layout == Layout::rows ? Layout::columns : Layout::rows;
    out.push_back(c);
    out.push_back({c.name + " (other layout)", attnlab::with_layout(c.scenario, other)});
  }
  return out;
}

std::string joined(const std::vector<StageId>& ids, const char* separator) {
  std::string out;
  for (StageId id : ids) out += (out.empty() ? "" : separator) + std::string(attnlab::stage_name(id));
  return out;
}

TEST(Stage, EveryRowSitsAtItsIdAndItsNamesRoundTrip) {
  std::set<std::string> names;
  std::set<std::pair<std::string, bool>> cells;
  for (std::size_t i = 0; i < attnlab::stage_table().size(); ++i) {
    const StageRow& row = attnlab::stage_table()[i];
    EXPECT_EQ(std::size_t(row.id), i) << row.name;
    EXPECT_EQ(&attnlab::stage_row(row.id), &row) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << "two rows named " << row.name;
    if (row.id != StageId::none) {
      EXPECT_EQ(attnlab::stage_from_name(row.name), row.id) << row.name;
    }
    if (!row.cell_name) continue;
    EXPECT_TRUE(cells.insert({row.cell_name, row.per_head}).second) << "two cells named " << row.cell_name;
    EXPECT_EQ(attnlab::stage_from_cell_name(row.cell_name, row.per_head), row.id) << row.name;
  }
  EXPECT_FALSE(attnlab::stage_from_name("none"));
  EXPECT_FALSE(attnlab::stage_from_name("softmax"));
  EXPECT_FALSE(attnlab::stage_from_cell_name("weights", false)) << "weights are per head";
  EXPECT_EQ(attnlab::stage_from_cell_name("output", true), StageId::head_output);
  EXPECT_EQ(attnlab::stage_from_cell_name("output", false), StageId::output);
}

TEST(Stage, TheLessonAndTheExportKeepTheirNamesInTheirOrder) {
  // The lesson format lists its names with the positional ones last (they came later): its
  // messages and the authoring combo keep that order.
  EXPECT_EQ(joined(attnlab::lesson_stages(), ", "),
            "inputs, Q, K, V, scores, scaled, masked, weights, head_output, heads, concat, W_o, output, "
            "X_pos, Q_rot, K_rot, bias, tiles, decode, Q_norm, K_norm, capped, lines");
  EXPECT_EQ(joined(attnlab::exported_stages(), ","),
            "X_pos,Q,K,V,Q_norm,K_norm,Q_rot,K_rot,scores,scaled,capped,bias,masked,weights,head_output,concat,output");
  std::vector<std::string> targets;
  for (const StageRow& row : attnlab::stage_table())
    if (row.target) targets.push_back(row.name);
  EXPECT_EQ(targets, (std::vector<std::string>{"scores", "weights", "head_output", "concat", "output"}));
}

// The per-head matrices of the trace, as HeadTrace holds them (the derived ones from the scores).
Matrix head_matrix(const Trace& t, StageId id, std::size_t h) {
  const attnlab::HeadTrace& ht = t.heads[h];
  switch (id) {
    case StageId::Q: return ht.Q;
    case StageId::K: return ht.K;
    case StageId::V: return ht.V;
    case StageId::Q_norm: return ht.Q_norm;
    case StageId::K_norm: return ht.K_norm;
    case StageId::Q_rot: return ht.Q_rot;
    case StageId::K_rot: return ht.K_rot;
    case StageId::scores: return ht.scores;
    case StageId::scaled: return t.scaled(h);
    case StageId::capped: return t.capped(h);
    case StageId::bias: return t.bias(h);
    case StageId::masked: return t.masked(h);
    case StageId::weights: return ht.weights;
    case StageId::head_output: return ht.output;
    default: return {};
  }
}

// Equal cell by cell, -infinity (a masked score) equal to itself.
bool same(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

void ExpectShape(const Case& c, const StageRow& row, const Matrix& m, const attnlab::StageDims& d) {
  const bool rows = c.scenario.layout == Layout::rows;
  const long r = attnlab::axis_size(row.rows, d), k = attnlab::axis_size(row.cols, d);
  EXPECT_EQ(m.rows(), rows ? r : k) << c.name << " " << row.name;
  EXPECT_EQ(m.cols(), rows ? k : r) << c.name << " " << row.name;
}

TEST(Stage, EveryShapeRuleMatchesTheTraceOfEveryCase) {
  for (const Case& c : all_cases()) {
    const Scenario& s = c.scenario;
    const Trace t = attnlab::compute(s);
    const attnlab::StageDims d = attnlab::stage_dims(s, t);
    const attnlab::StageDims m = attnlab::stage_dims(attnlab::resolve(s));
    EXPECT_EQ(std::vector<long>({d.n_x, d.n_z, d.d_x, d.d_k, d.d_v, d.heads, d.d_out}),
              std::vector<long>({m.n_x, m.n_z, m.d_x, m.d_k, m.d_v, m.heads, m.d_out}))
        << c.name << ": the trace's sizes are the model's";
    for (const StageRow& row : attnlab::stage_table()) {
      if (!row.cell_name || !attnlab::has_stage(t, row.id)) continue;
      for (int h = 0; h < (row.per_head ? int(t.heads.size()) : 1); ++h)
        ExpectShape(c, row, attnlab::stage_matrix(t, row.id, h), d);
    }
    ExpectShape(c, attnlab::stage_row(StageId::inputs), s.X, d);
    if (s.W_o) ExpectShape(c, attnlab::stage_row(StageId::W_o), *s.W_o, d);
  }
}

TEST(Stage, PerHeadRowsAreThePerHeadMatricesOfTheTrace) {
  for (const Case& c : all_cases()) {
    const Trace t = attnlab::compute(c.scenario);
    std::set<std::string> json_names;  // each head's stages as the trace's JSON names them
    const nlohmann::json trace_json = attnlab::trace_to_json(t);
    for (const auto& [key, value] : trace_json["heads"][0].items())
      if (key != "kv_head" && key != "stats") json_names.insert(key);
    std::set<std::string> per_head_rows;
    for (const StageRow& row : attnlab::stage_table()) {
      if (!row.per_head || !attnlab::has_stage(t, row.id)) continue;
      per_head_rows.insert(row.cell_name);
      for (std::size_t h = 0; h < t.heads.size(); ++h) {
        EXPECT_TRUE(same(attnlab::stage_matrix(t, row.id, int(h)), head_matrix(t, row.id, h))) << c.name << " " << row.name;
        const Matrix& m = head_matrix(t, row.id, h);
        EXPECT_EQ(attnlab::stage_value(t, row.id, int(h), m.rows() - 1, m.cols() - 1), m(m.rows() - 1, m.cols() - 1))
            << c.name << " " << row.name;
        EXPECT_FALSE(attnlab::stage_value(t, row.id, int(h), m.rows(), 0)) << "outside the matrix";
      }
    }
    EXPECT_EQ(json_names, per_head_rows) << c.name;
    EXPECT_TRUE(same(attnlab::stage_matrix(t, StageId::concat, 0), t.concat));
    EXPECT_TRUE(same(attnlab::stage_matrix(t, StageId::output, 0), t.output));
  }
}

TEST(Stage, PositionalRowsExistExactlyWithTheirFeature) {
  for (const Case& c : all_cases()) {
    const Scenario& s = c.scenario;
    const Trace t = attnlab::compute(s);
    EXPECT_EQ(attnlab::has_stage(t, StageId::X_pos), s.positional_encoding == attnlab::PositionalEncoding::sinusoidal) << c.name;
    EXPECT_EQ(attnlab::has_stage(t, StageId::Q_rot), s.rope.has_value()) << c.name;
    EXPECT_EQ(attnlab::has_stage(t, StageId::bias), s.alibi.has_value()) << c.name;
    EXPECT_EQ(attnlab::has_stage(t, StageId::Q_norm), s.qk_norm.has_value()) << c.name;
    EXPECT_EQ(attnlab::has_stage(t, StageId::K_norm), s.qk_norm.has_value()) << c.name;
    EXPECT_EQ(attnlab::has_stage(t, StageId::capped), s.softcap > 0) << c.name;
    EXPECT_TRUE(attnlab::has_stage(t, StageId::weights)) << c.name;
    if (!s.alibi) {
      EXPECT_EQ(attnlab::stage_matrix(t, StageId::bias, 0).size(), 0) << c.name;
    }
  }
}

// ---- Formulas ----------------------------------------------------------------------------------

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const StageId kFormulaStages[] = {StageId::Q,      StageId::K,      StageId::V,       StageId::scores,
                                  StageId::scaled, StageId::masked, StageId::weights, StageId::head_output,
                                  StageId::concat, StageId::W_o,    StageId::output};

TEST(StageFormula, EveryStageHasAnEquationInEachLayoutAndTheProductsTurnAround) {
  for (const Case& c : all_cases()) {
    const Scenario& s = c.scenario;
    const bool rows = s.layout == Layout::rows;
    for (StageId stage : kFormulaStages)
      EXPECT_FALSE(attnlab::stage_formula(stage, s, 0, 2).empty()) << c.name << " " << attnlab::stage_name(stage);
    EXPECT_EQ(attnlab::stage_formula(StageId::none, s, 0, 2), "");
    // RoPE: the rotated ones; QK-norm without RoPE: the normalised ones
    const std::string qs = s.rope ? "Q_rot" : s.qk_norm ? "Q_norm" : "Q", ks = s.rope ? "K_rot" : s.qk_norm ? "K_norm" : "K";
    EXPECT_EQ(attnlab::stage_formula(StageId::scores, s, 0, 2), rows ? "S = " + qs + " " + ks + "^T" : "S = " + ks + "^T " + qs)
        << c.name;
    EXPECT_EQ(attnlab::stage_formula(StageId::head_output, s, 0, 2), rows ? "Y = A V" : "Y = V A") << c.name;
    EXPECT_TRUE(Has(attnlab::stage_formula(StageId::weights, s, 0, 2), rows ? "along each row" : "down each column"))
        << c.name;
    const std::string capped = s.softcap > 0 ? "c tanh(" : "";  // the softcap wraps the scaled scores
    EXPECT_TRUE(Has(attnlab::lesson::attention_summary(s),
                    rows ? "softmax_row(" + capped + qs + " " + ks + "^T" : "softmax_col(" + capped + ks + "^T " + qs))
        << c.name;
    EXPECT_EQ(Has(attnlab::lesson::attention_summary(s), " + M)"), !s.mask.empty()) << c.name;
    const attnlab::Projections& p = s.per_head() ? s.heads[0] : s.full;
    const std::string q = attnlab::stage_formula(StageId::Q, s, 0, 2);
    if (p.W_q)
      EXPECT_TRUE(Has(q, rows ? "Q = X W_q" : "Q = W_q")) << c.name << ": " << q;
    else
      EXPECT_TRUE(q.rfind("Q = X", 0) == 0 && !Has(q, "W_q")) << c.name << ": " << q;
    EXPECT_EQ(Has(q, "+ b_q"), p.b_q.has_value()) << c.name << ": " << q;
    const std::string k = attnlab::stage_formula(StageId::K, s, 0, 2);
    EXPECT_TRUE(Has(k, s.cross_attention() ? "Z" : "X")) << c.name << ": keys come from " << k;
  }
}

TEST(StageFormula, TheScaleIsWrittenOutForEachKind) {
  Scenario s = attnlab::testing::random_scenario(2, 4, 1, 3);
  EXPECT_TRUE(Has(attnlab::scale_description(s, 4), "\xE2\x88\x9A" "4 = 0.5"));
  EXPECT_TRUE(Has(attnlab::stage_formula(StageId::scaled, s, 0, 4), "0.5"));
  s.scale.kind = attnlab::Scale::Kind::none;
  EXPECT_EQ(attnlab::scale_description(s, 4), "1 (unscaled)");
  EXPECT_FALSE(Has(attnlab::lesson::attention_summary(s), "d_k"));
  s.scale.kind = attnlab::Scale::Kind::value;
  s.scale.value = 0.25;
  EXPECT_EQ(attnlab::scale_description(s, 4), "0.25 (temperature T = 4)");
}

TEST(StageFormula, TheOutputSaysWhetherThereIsAnOutputProjection) {
  Scenario s = attnlab::testing::random_scenario(2, 4, 1, 3);
  EXPECT_EQ(attnlab::stage_formula(StageId::output, s, 0, 4), "concat W_o");
  s.b_o = attnlab::Vector::Zero(4);
  EXPECT_EQ(attnlab::stage_formula(StageId::output, s, 0, 4), "concat W_o + b_o");
  EXPECT_EQ(attnlab::stage_formula(StageId::output, attnlab::with_layout(s, Layout::columns), 0, 4),
            "W_o concat + b_o 1^T");
  s.W_o.reset();
  EXPECT_EQ(attnlab::stage_formula(StageId::output, s, 0, 4), "output = concat");
}

}  // namespace

}  // namespace test_stage
