// view/inspector_math.h against the core's numbers: for every stage, head and a sample of cells of
// every case (both layouts), the explanation's value is the trace's cell, the written terms of a
// sum add up to it, a weight is its exp over the sum of its query's exps, and a masked cell says
// why. Sums are checked to 1e-12 relative to the sum of the terms' magnitudes (the core's GEMM
// adds in another order); the largest error measured is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "attnlab/number_format.h"
#include "attnlab/scenario_io.h"
#include "view/inspector_math.h"
#include "view/stage_labels.h"
#include "view_cases.h"

namespace test_inspector_math {

namespace {

using attnlab::Matrix;
using attnlab::app::Explanation;
using attnlab::app::HoveredCell;
using attnlab::StageId;
using attnlab::app::SumTerm;

constexpr double kRelative = 1e-12;
constexpr int kCellsPerMatrix = 40;  // every cell of a small matrix; a stride through a larger one

const StageId kStages[] = {StageId::Q,       StageId::K,          StageId::V,      StageId::scores,
                         StageId::scaled,  StageId::masked,     StageId::weights, StageId::head_output,
                         StageId::concat,  StageId::W_o,         StageId::output};

bool PerHead(StageId s) { return s != StageId::concat && s != StageId::W_o && s != StageId::output; }

// The displayed matrix of a stage (scaled and masked: their own values, materialised).
Matrix Displayed(const attnlab::Scenario& s, const attnlab::Trace& t, StageId stage, int h) {
  const auto k = static_cast<std::size_t>(h);
  switch (stage) {
    case StageId::Q: return t.heads[k].Q;
    case StageId::K: return t.heads[k].K;
    case StageId::V: return t.heads[k].V;
    case StageId::scores: return t.heads[k].scores;
    case StageId::scaled: return t.scaled(k);
    case StageId::masked: return t.masked(k);
    case StageId::weights: return t.heads[k].weights;
    case StageId::head_output: return t.heads[k].output;
    case StageId::concat: return t.concat;
    case StageId::W_o: return s.W_o ? *s.W_o : Matrix();
    case StageId::output: return t.output;
    case StageId::X_pos: return t.X_pos;
    case StageId::Q_rot: return t.heads[k].Q_rot;
    case StageId::K_rot: return t.heads[k].K_rot;
    case StageId::bias: return t.bias(k);
    case StageId::Q_norm: return t.heads[k].Q_norm;
    case StageId::K_norm: return t.heads[k].K_norm;
    case StageId::capped: return t.capped(k);
    case StageId::none:
    case StageId::inputs:
    case StageId::heads:
    case StageId::tiles:
    case StageId::decode:
    case StageId::lines: break;
  }
  return {};
}

// Largest relative error per stage, printed once at the end.
std::map<std::string, double>& Worst() {
  static std::map<std::string, double> worst;
  return worst;
}

void ExpectSum(const std::string& where, StageId stage, double sum, double magnitude, double expected) {
  const double err = std::fabs(sum - expected) / std::max(magnitude, 1e-300);
  double& worst = Worst()[attnlab::stage_name(stage)];
  worst = std::max(worst, err);
  EXPECT_LE(err, kRelative) << where << ": terms sum to " << sum << ", the cell is " << expected
                            << " (relative error " << err << ")";
}

// The written sum: terms (plus a bias) add up to the value when none is elided; when some are,
// the first kFirstTerms are shown in order (labelled `labels`, the keys' names, or their indices)
// and the count adds up.
void CheckSum(const std::string& where, StageId stage, const Explanation& e, int n_terms, double bias,
              double expected, const std::vector<std::string>* labels = nullptr) {
  ASSERT_EQ(static_cast<int>(e.terms.size()) + e.omitted, n_terms) << where;
  EXPECT_FALSE(e.written.empty()) << where;
  if (e.omitted > 0) {
    for (int k = 0; k < attnlab::app::kFirstTerms; ++k)
      EXPECT_EQ(e.terms[std::size_t(k)].label, labels ? (*labels)[std::size_t(k)] : std::to_string(k)) << where;
    return;
  }
  double sum = bias, magnitude = std::fabs(bias);
  for (const SumTerm& t : e.terms) {
    double product = 1;
    for (double f : t.factors) product *= f;
    EXPECT_EQ(product, t.value) << where << ": a term is the product of its factors";
    sum += t.value;
    magnitude += std::fabs(t.value);
  }
  ExpectSum(where, stage, sum, magnitude, expected);
}

// Query i's weight for key j from the masked scores: exp(s - max) / sum of its exps.
void CheckWeight(const std::string& where, const attnlab::Trace& t, int h, int i, int j, bool cols,
                 const Explanation& e) {
  const Matrix masked = t.masked(std::size_t(h));
  const auto at = [&](int q, int k) { return cols ? masked(k, q) : masked(q, k); };
  const int n = int(cols ? masked.rows() : masked.cols());
  double max = -INFINITY;
  for (int k = 0; k < n; ++k) max = std::max(max, at(i, k));
  if (max == -INFINITY) {
    EXPECT_EQ(e.value, 0.0) << where << ": a query with every key masked weighs nothing";
    return;
  }
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += at(i, k) == -INFINITY ? 0.0 : std::exp(at(i, k) - max);
  const double expected = at(i, j) == -INFINITY ? 0.0 : std::exp(at(i, j) - max) / sum;
  ExpectSum(where, StageId::weights, e.value, std::max(expected, 1e-300), expected);
  for (const SumTerm& term : e.terms)
    if (term.highlight) {
      EXPECT_EQ(term.value, e.value) << where << ": the highlighted key is the inspected cell";
      EXPECT_EQ(term.factors[0], at(i, j)) << where;
      if (!term.masked) {
        EXPECT_DOUBLE_EQ(term.factors[2], std::exp(at(i, j) - max)) << where;
      }
    }
}

TEST(InspectorMath, EveryStageExplainsTheTracesOwnNumbers) {
  int explained = 0;
  for (const auto& c : attnlab::view_testing::all_cases()) {
    const attnlab::Scenario& s = c.scenario;
    const attnlab::Model model = attnlab::resolve(s);
    const attnlab::Trace t = attnlab::compute(s);
    const bool cols = s.layout == attnlab::Layout::columns;
    const std::vector<std::string> keys = attnlab::app::KeyTokenLabels(s);  // head_output's terms
    for (StageId stage : kStages)
      for (int h = 0; h < (PerHead(stage) ? model.num_heads : 1); ++h) {
        const Matrix m = Displayed(s, t, stage, h);
        const int cells = int(m.size()), step = std::max(1, cells / kCellsPerMatrix);
        for (int k = 0; k < cells; k += step) {
          const int r = int(k / m.cols()), col = int(k % m.cols());
          const std::string where = c.name + " " + attnlab::stage_name(stage) + " head " +
                                    std::to_string(h) + " [" + std::to_string(r) + ", " +
                                    std::to_string(col) + "]";
          const Explanation e =
              attnlab::app::Explain(s, model, t, HoveredCell{stage, h, r, col}, 4);
          ASSERT_TRUE(e.valid) << where;
          EXPECT_EQ(e.value, m(r, col)) << where;
          EXPECT_FALSE(e.title.empty() || e.formula.empty()) << where;
          const int i = cols ? col : r, j = cols ? r : col;  // rows-convention (query, key / column)
          const attnlab::HeadWeights w = model.head(std::size_t(h));
          switch (stage) {
            case StageId::Q: CheckSum(where, stage, e, int(model.X->cols()), w.b_q(j), e.value); break;
            case StageId::K: CheckSum(where, stage, e, int(model.keys().cols()), w.b_k(j), e.value); break;
            case StageId::V: CheckSum(where, stage, e, int(model.keys().cols()), w.b_v(j), e.value); break;
            case StageId::scores:
            case StageId::scaled:
            case StageId::masked: {
              const double score = t.heads[std::size_t(h)].scores(r, col);
              CheckSum(where, stage, e, model.d_k, 0.0, score);
              EXPECT_EQ(e.why_masked.empty(), bool(t.allowed(r, col))) << where << ": " << e.why_masked;
              if (stage == StageId::masked && !t.allowed(r, col)) {
                EXPECT_EQ(e.value, -INFINITY) << where;
              }
              break;
            }
            case StageId::weights:
              CheckWeight(where, t, h, i, j, cols, e);
              if (!t.allowed(r, col)) {
                EXPECT_FALSE(e.why_masked.empty()) << where;
              }
              break;
            case StageId::head_output:
              CheckSum(where, stage, e, int(cols ? t.heads[0].weights.rows() : t.heads[0].weights.cols()),
                       0.0, e.value, &keys);
              break;
            case StageId::output:
              if (model.has_W_o()) CheckSum(where, stage, e, int(model.W_o->rows()), model.b_o(j), e.value);
              break;
            default: break;
          }
          ++explained;
        }
      }
  }
  for (const auto& [stage, err] : Worst()) std::printf("%-12s largest relative error %.3g\n", stage.c_str(), err);
  EXPECT_GT(explained, 1000);
}

// QK-norm, the softcap and scaled RoPE: every cell of the presets that teach them writes its
// arithmetic ending in the number the cell shows (written and lines: "5 x tanh(38.39 / 5) = 5").
TEST(InspectorMath, TheStagesOfTodaysModelsWriteTheirArithmetic) {
  const std::vector<std::pair<const char*, std::vector<StageId>>> presets = {
      {"modern-gemma2-softcap", {StageId::capped, StageId::masked}},
      {"modern-qwen3-qk-norm", {StageId::Q_norm, StageId::K_norm, StageId::scores}},
      {"modern-llama3-rope-scaling", {StageId::Q_rot, StageId::K_rot}}};
  for (const auto& [name, stages] : presets)
    for (const attnlab::Layout layout : {attnlab::Layout::rows, attnlab::Layout::columns}) {
      const attnlab::Scenario s = attnlab::with_layout(
          attnlab::load_scenario(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets/" + name + ".json"), layout);
      const attnlab::Model model = attnlab::resolve(s);
      const attnlab::Trace t = attnlab::compute(s);
      for (const StageId stage : stages) {
        const Matrix m = Displayed(s, t, stage, 0);
        ASSERT_GT(m.size(), 0) << name << " " << attnlab::stage_name(stage);
        for (Eigen::Index r = 0; r < m.rows(); ++r)
          for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const std::string where = std::string(name) + " " + attnlab::stage_name(stage) + " [" +
                                      std::to_string(r) + ", " + std::to_string(c) + "]";
            const Explanation e = attnlab::app::Explain(s, model, t, HoveredCell{stage, 0, int(r), int(c)}, 4);
            ASSERT_TRUE(e.valid) << where;
            EXPECT_EQ(e.value, m(r, c)) << where;
            if (m(r, c) == -INFINITY) continue;
            const std::string shown = " = " + attnlab::app::Num(m(r, c), 4);
            const auto ends = [&](const std::string& text) {
              return text.size() >= shown.size() && text.compare(text.size() - shown.size(), shown.size(), shown) == 0;
            };
            bool found = stage != StageId::capped && stage != StageId::masked && ends(e.written);
            for (const std::string& line : e.lines) found = found || (line.rfind("softcap: ", 0) == 0 && ends(line));
            if (stage == StageId::masked) found = found || ends(e.lines.back());
            if (stage == StageId::scores) found = true;  // a sum of terms, checked above
            EXPECT_TRUE(found) << where << ": no step ends in" << shown << " (" << e.written << ")";
          }
      }
    }
}

TEST(InspectorMath, CellsOutsideTheirMatrixOrStageNoneAreNotExplained) {
  const attnlab::Scenario s = attnlab::view_testing::made_cases().front().scenario;
  const attnlab::Model model = attnlab::resolve(s);
  const attnlab::Trace t = attnlab::compute(s);
  EXPECT_FALSE(attnlab::app::Explain(s, model, t, {StageId::none, 0, 0, 0}, 2).valid);
  EXPECT_FALSE(attnlab::app::Explain(s, model, t, {StageId::weights, 0, 5, 0}, 2).valid);
  EXPECT_FALSE(
      attnlab::app::Explain(s, model, t, {StageId::weights, 3, 0, 0}, 2).valid);  // 3 heads: 0..2
  EXPECT_FALSE(attnlab::app::Explain(s, model, t, {StageId::Q, 0, -1, 0}, 2).valid);
  EXPECT_TRUE(attnlab::app::Explain(s, model, t, {StageId::weights, 2, 4, 4}, 2).valid);
}

TEST(InspectorMath, MaskReasonsNameEachPartThatForbids) {
  attnlab::Scenario s = attnlab::view_testing::made_cases().front().scenario;  // causal, padding {1}
  EXPECT_EQ(attnlab::app::MaskReason(s, 3, 2), "");
  EXPECT_NE(attnlab::app::MaskReason(s, 1, 3).find("causal"), std::string::npos);
  EXPECT_NE(attnlab::app::MaskReason(s, 3, 1).find("padding"), std::string::npos);
  const std::string both = attnlab::app::MaskReason(s, 0, 1);
  EXPECT_NE(both.find("causal"), std::string::npos);
  EXPECT_NE(both.find("padding"), std::string::npos);
  s.mask = {};
  s.mask.cells = Matrix::Ones(5, 5);
  (*s.mask.cells)(2, 4) = 0;
  EXPECT_NE(attnlab::app::MaskReason(s, 2, 4).find("custom"), std::string::npos);
  EXPECT_EQ(attnlab::app::MaskReason(s, 4, 2), "");
  s = attnlab::with_layout(s, attnlab::Layout::columns);  // cells stored key by query
  EXPECT_NE(attnlab::app::MaskReason(s, 2, 4).find("custom"), std::string::npos);
  EXPECT_EQ(attnlab::app::MaskReason(s, 4, 2), "");
}

TEST(InspectorMath, ASinkKeyIsNeitherMaskedByTheWindowNorByItsCellAndSaysWhy) {
  attnlab::Scenario s = attnlab::view_testing::made_cases().front().scenario;  // causal, padding {1}
  s.mask.window = 2;
  s.mask.cells = Matrix::Ones(5, 5);
  (*s.mask.cells)(3, 0) = 0;
  EXPECT_NE(attnlab::app::MaskReason(s, 4, 0).find("window"), std::string::npos);
  EXPECT_NE(attnlab::app::MaskReason(s, 3, 0).find("custom"), std::string::npos);
  EXPECT_EQ(attnlab::app::SinkReason(s, 4, 0), "");
  s.mask.sinks = 2;
  EXPECT_EQ(attnlab::app::MaskReason(s, 4, 0), "");
  EXPECT_EQ(attnlab::app::MaskReason(s, 3, 0), "");
  const std::string key0 = "\xE2\x80\x9C" + attnlab::app::KeyTokenLabels(s).front() + "\xE2\x80\x9D";  // its label
  EXPECT_NE(attnlab::app::SinkReason(s, 4, 0).find("sink: key " + key0 + " is one of the first 2 keys"),
            std::string::npos);
  EXPECT_NE(attnlab::app::SinkReason(s, 3, 0).find("custom cell"), std::string::npos);
  EXPECT_NE(attnlab::app::MaskReason(s, 4, 1).find("padding"), std::string::npos);  // a padded sink stays masked
  EXPECT_EQ(attnlab::app::SinkReason(s, 4, 1), "");
  EXPECT_NE(attnlab::app::MaskReason(s, 0, 1).find("causal"), std::string::npos);
  EXPECT_EQ(attnlab::app::SinkReason(s, 4, 3), "");  // in the window anyway: nothing to explain
}

// Issue 26: the Inspector wrote "0.8" and "2.5" where the cells show "0.80" and "2.50": its
// numbers now come from the cells' own formatter, at the same decimals, with the same minus sign.
TEST(InspectorMath, NumWritesNumbersAsTheCellsDo) {
  EXPECT_EQ(attnlab::app::Num(0.123456, 4), "0.1235");
  EXPECT_EQ(attnlab::app::Num(0.8, 2), "0.80");
  EXPECT_EQ(attnlab::app::Num(-21.20701, 3),
            "\xE2\x88\x92"
            "21.207");
  EXPECT_EQ(attnlab::app::Num(-2.5, 6),
            "\xE2\x88\x92"
            "2.500000");
  EXPECT_EQ(attnlab::app::Num(-INFINITY, 2), "\xE2\x88\x92\xE2\x88\x9E");
  EXPECT_EQ(attnlab::app::Num(-1e-17, 2), "0.00");
  EXPECT_EQ(attnlab::app::Num(-0.004, 2), "0.00");  // rounds to zero: no "−0.00"
  for (double v : {0.8, -0.4, 1.05, -12.5, 0.0})
    for (int decimals : {1, 2, 3})
      EXPECT_EQ(attnlab::app::Num(v, decimals), attnlab::format_number(v, decimals)) << v;
}

TEST(InspectorMath, TheWrittenSumFollowsThePrecision) {
  const attnlab::Scenario s = attnlab::view_testing::made_cases().front().scenario;
  const attnlab::Model model = attnlab::resolve(s);
  const attnlab::Trace t = attnlab::compute(s);
  const HoveredCell cell{StageId::scores, 0, 3, 2};
  const Explanation two = attnlab::app::Explain(s, model, t, cell, 2);
  const Explanation five = attnlab::app::Explain(s, model, t, cell, 5);
  const std::string end2 = " = " + attnlab::app::Num(two.value, 2);
  const std::string end5 = " = " + attnlab::app::Num(two.value, 5);
  ASSERT_NE(end2, end5) << "pick a cell whose value needs more than 2 decimals";
  EXPECT_EQ(two.written.substr(two.written.size() - end2.size()), end2) << two.written;
  EXPECT_EQ(five.written.substr(five.written.size() - end5.size()), end5) << five.written;
}

attnlab::Scenario Preset(const std::string& name) {
  return attnlab::load_scenario(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets/" + name + ".json");
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// UDL 12.2 (columns layout, tokens x_1 ... x_6): Q[2, 2] is token x_3's entry. Its formula names
// the token x_3 (not x_2, the 0-based index beside 1-based labels), and its title says the token
// is a column, the feature a row.
TEST(InspectorMath, TheColumnsLayoutSpeaksTheTokensOwnLabels) {
  const attnlab::Scenario s = Preset("udl-12-2-multihead");
  ASSERT_EQ(s.layout, attnlab::Layout::columns);
  const attnlab::Model model = attnlab::resolve(s);
  const attnlab::Trace t = attnlab::compute(s);
  const Explanation q = attnlab::app::Explain(s, model, t, HoveredCell{StageId::Q, 0, 2, 2}, 3);
  EXPECT_TRUE(Has(q.formula, "W_q[2, :] \xC2\xB7 x_3 + b_q[2]")) << q.formula;
  EXPECT_FALSE(Has(q.formula, "x_2")) << q.formula;
  EXPECT_TRUE(Has(q.title, "column 2: token \xE2\x80\x9Cx_3\xE2\x80\x9D, row 2")) << q.title;
  const Explanation score = attnlab::app::Explain(s, model, t, HoveredCell{StageId::scores, 0, 0, 2}, 3);
  EXPECT_TRUE(Has(score.formula, "k_1 \xC2\xB7 q_3")) << score.formula;
  const Explanation out = attnlab::app::Explain(s, model, t, HoveredCell{StageId::output, -1, 1, 4}, 3);
  EXPECT_TRUE(Has(out.title, "column 4: query \xE2\x80\x9Cx_5\xE2\x80\x9D, row 1")) << out.title;
  for (const Explanation* e : {&q, &score, &out})
    EXPECT_FALSE(Has(e->title, "row 2: token") || Has(e->title, "row 4: query")) << "a token is never a row here";
}

// Words as labels (Vaswani Q2: "this is translation", rows layout): the token's symbol carries
// its word; rows are tokens.
TEST(InspectorMath, WordLabelsNameTheTokensVector) {
  attnlab::Scenario s = Preset("vaswani-q2-is-attends");
  ASSERT_EQ(s.layout, attnlab::Layout::rows);
  s.mask.causal = true;
  const attnlab::Model model = attnlab::resolve(s);
  const attnlab::Trace t = attnlab::compute(s);
  const Explanation q = attnlab::app::Explain(s, model, t, HoveredCell{StageId::Q, 0, 1, 0}, 3);
  EXPECT_TRUE(Has(q.formula, "x_\xE2\x80\x9Cis\xE2\x80\x9D \xC2\xB7 W_q[:, 0]")) << q.formula;
  EXPECT_TRUE(Has(q.title, "row 1: token \xE2\x80\x9Cis\xE2\x80\x9D, column 0")) << q.title;
  const std::string why = attnlab::app::MaskReason(s, 0, 2);
  EXPECT_TRUE(Has(why, "key \xE2\x80\x9Ctranslation\xE2\x80\x9D comes after query \xE2\x80\x9Cthis\xE2\x80\x9D")) << why;
}

}  // namespace

}  // namespace test_inspector_math
