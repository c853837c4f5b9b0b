// The stages Hugging Face models add (QK-norm, the softcap, RoPE scaling): their invariants, how
// they combine with the core's other paths (layouts, grouped heads, cross-attention, recompute,
// the first head first, single queries, decoding), the file format and resolve()'s refusals. The
// numbers themselves are checked against scripts/gen_fixtures_stages.py's references
// (tests/fixtures/stages_*.json, test_fixtures.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/decode.h"
#include "attnlab/positions.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"
#include "attnlab/stage.h"
#include "test_support.h"

namespace test_model_stages {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::QkNorm;
using attnlab::RopeScaling;
using attnlab::Scenario;
using attnlab::StageId;
using attnlab::Trace;
using attnlab::Vector;

using attnlab::testing::relative_error;

/// Every stage of the stage table both traces have, every head: the largest relative error.
double trace_error(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.heads.size(), b.heads.size());
  double worst = relative_error(a.output, b.output);
  for (const attnlab::StageRow& row : attnlab::stage_table())
    if (row.per_head && row.cell_name && attnlab::has_stage(a, row.id)) {
      EXPECT_TRUE(attnlab::has_stage(b, row.id)) << row.name;
      for (std::size_t h = 0; h < a.heads.size() && h < b.heads.size(); ++h)
        worst = std::max(worst, relative_error(attnlab::stage_matrix(a, row.id, int(h)),
                                               attnlab::stage_matrix(b, row.id, int(h))));
    }
  return worst;
}

/// 6 tokens of width 8 in 4 heads (d_k = d_v = 2), random weights and biases.
Scenario base() { return attnlab::testing::random_scenario(6, 8, 4, 26); }

Vector numbers(int n, double first, double step) {
  Vector v(n);
  for (int i = 0; i < n; ++i) v(i) = first + step * i;
  return v;
}

/// Every new stage at once: GQA 4/2, QK-norm (`scope`), Llama 3 RoPE scaling, a softcap, causal.
Scenario everything(QkNorm::Scope scope) {
  Scenario s = base();
  s.num_kv_heads = 2;
  s.full.W_k = Matrix(s.full.W_k->leftCols(4));
  s.full.W_v = Matrix(s.full.W_v->leftCols(4));
  s.full.b_k = numbers(4, -0.5, 0.3);
  s.mask.causal = true;
  s.positions = {0, 40, 80, 120, 160, 200};
  attnlab::Rope rope;
  rope.scaling.kind = RopeScaling::Kind::llama3;
  rope.scaling.factor = 8;
  rope.scaling.original_positions = 64;
  s.rope = rope;
  QkNorm norm;
  norm.scope = scope;
  const bool head = scope == QkNorm::Scope::head;
  norm.w_q = numbers(head ? 2 : 8, 0.5, 0.25);
  norm.w_k = numbers(head ? 2 : 4, 1.5, -0.25);
  s.qk_norm = norm;
  s.softcap = 1.5;
  return s;
}

std::string refusal(const Scenario& s) {
  try {
    attnlab::validate(s);
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string file_refusal(const std::string& text) {
  try {
    attnlab::validate(attnlab::scenario_from_json(nlohmann::json::parse(text)));
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(RopeScaling, NoneDividesNothingAndLinearDividesEveryPair) {
  attnlab::Rope rope;
  for (double d : attnlab::positional::rope_frequency_divisors(rope, 8, 100)) EXPECT_EQ(d, 1.0);
  rope.scaling.kind = RopeScaling::Kind::linear;
  rope.scaling.factor = 4;
  for (double d : attnlab::positional::rope_frequency_divisors(rope, 8, 100)) EXPECT_EQ(d, 4.0);
  EXPECT_EQ(attnlab::positional::rope_frequency_divisors(rope, 8, 100).size(), 4u);
}

TEST(RopeScaling, Llama3KeepsHighFrequenciesDividesLowOnesAndBlendsBetween) {
  attnlab::Rope rope;  // R = 64, base 10000: wavelengths 2 pi .. 2 pi 10000^(62/64)
  rope.scaling.kind = RopeScaling::Kind::llama3;
  rope.scaling.factor = 8;
  rope.scaling.original_positions = 1024;  // high band below 256, low band above 1024
  const std::vector<double> d = attnlab::positional::rope_frequency_divisors(rope, 64, 0);
  int kept = 0, divided = 0, blended = 0;
  for (int c = 0; c < 32; ++c) {
    const double wavelen = 2 * M_PI / attnlab::positional::rope_theta(c, 64, rope.base);
    const double divisor = d[std::size_t(c)];
    if (wavelen < 256) {
      EXPECT_EQ(divisor, 1.0) << c;
      ++kept;
    } else if (wavelen > 1024) {
      EXPECT_EQ(divisor, 8.0) << c;
      ++divided;
    } else {
      EXPECT_TRUE(divisor >= 1.0 && divisor <= 8.0) << c;
      ++blended;
    }
    if (c > 0) {
      EXPECT_GE(d[std::size_t(c)], d[std::size_t(c - 1)]) << "longer wavelengths are stretched more";
    }
  }
  std::cout << "  Llama 3 on R = 64: " << kept << " kept, " << blended << " blended, " << divided << " divided\n";
  EXPECT_GT(kept, 0);
  EXPECT_GT(blended, 0);
  EXPECT_GT(divided, 0);
}

TEST(RopeScaling, LongropeTakesTheLongFactorsOnlyPastTheOriginalLength) {
  attnlab::Rope rope;
  rope.scaling.kind = RopeScaling::Kind::longrope;
  rope.scaling.original_positions = 8;
  rope.scaling.short_factors = {1.0, 1.5};
  rope.scaling.long_factors = {2.0, 6.0};
  // Hugging Face: max(position_ids) + 1 > original_max_position_embeddings.
  EXPECT_EQ(attnlab::positional::rope_frequency_divisors(rope, 4, 7), rope.scaling.short_factors) << "8 tokens: short";
  EXPECT_EQ(attnlab::positional::rope_frequency_divisors(rope, 4, 8), rope.scaling.long_factors) << "9 tokens: long";
}

TEST(RopeScaling, AFactorOfOneGivesTheSameBitsAsNoScaling) {
  Scenario s = base();
  s.rope = attnlab::Rope{};
  const Trace plain = attnlab::compute(s);
  s.rope->scaling.kind = RopeScaling::Kind::linear;
  s.rope->scaling.factor = 1;
  EXPECT_LE(trace_error(attnlab::compute(s), plain), 0.0);
}

TEST(RopeScaling, LinearIsRopeAtPositionsDividedByTheFactor) {
  Scenario s = base();
  s.rope = attnlab::Rope{};
  s.positions = {0, 4, 8, 12, 16, 20};
  s.rope->scaling.kind = RopeScaling::Kind::linear;
  s.rope->scaling.factor = 4;
  const Trace scaled = attnlab::compute(s);
  s.rope->scaling = {};
  s.positions = {0, 1, 2, 3, 4, 5};
  const double err = trace_error(scaled, attnlab::compute(s));
  std::cout << "  linear factor 4 vs positions / 4: " << err << "\n";
  EXPECT_LE(err, 1e-13);
}

TEST(QkNorm, ScalingTheProjectionsChangesTheScoresOnlyThroughEps) {
  Scenario s = everything(QkNorm::Scope::head);
  s.softcap = 0;
  s.qk_norm->eps = 1e-12;
  const Trace a = attnlab::compute(s);
  *s.full.W_q *= 1000.0;
  *s.full.W_k *= 1000.0;
  *s.full.b_q *= 1000.0;
  *s.full.b_k *= 1000.0;
  const Trace b = attnlab::compute(s);
  double err = 0;
  for (std::size_t h = 0; h < 4; ++h) err = std::max(err, relative_error(b.heads[h].scores, a.heads[h].scores));
  std::cout << "  QK-norm, W and b x1000: scores differ by " << err << "\n";
  EXPECT_LE(err, 1e-10);
  EXPECT_GT(relative_error(b.heads[0].Q, a.heads[0].Q), 10.0) << "while Q itself grew";
}

TEST(QkNorm, EachNormalisedRowHasRootMeanSquareOneTimesTheGain) {
  for (const QkNorm::Scope scope : {QkNorm::Scope::head, QkNorm::Scope::width}) {
    Scenario s = everything(scope);
    s.qk_norm->w_q.setOnes();
    s.qk_norm->w_k.setOnes();
    s.qk_norm->eps = 1e-14;
    const Trace t = attnlab::compute(s);
    for (Eigen::Index i = 0; i < 6; ++i) {
      double whole = 0;
      for (std::size_t h = 0; h < 4; ++h) {
        const double ms = t.heads[h].Q_norm.row(i).squaredNorm() / 2;
        if (scope == QkNorm::Scope::head) {
          EXPECT_NEAR(ms, 1.0, 1e-12);
        }
        whole += ms / 4;
      }
      EXPECT_NEAR(whole, 1.0, 1e-12) << "over the whole width";
    }
  }
}

TEST(QkNorm, OverTheWidthWithOneHeadIsOverTheHead) {
  Scenario s = attnlab::testing::random_scenario(5, 6, 1, 3);
  s.qk_norm = QkNorm{};
  s.qk_norm->w_q = numbers(6, 0.5, 0.1);
  s.qk_norm->w_k = numbers(6, 1.0, -0.1);
  const Trace head = attnlab::compute(s);
  s.qk_norm->scope = QkNorm::Scope::width;
  const double err = trace_error(attnlab::compute(s), head);
  std::cout << "  one head, width vs head: " << err << "\n";
  EXPECT_LE(err, 1e-14);
}

TEST(QkNorm, PlusOneIsTheWeightsPlusOne) {
  Scenario s = everything(QkNorm::Scope::head);
  const Trace plain = attnlab::compute(s);
  s.qk_norm->plus_one = true;
  s.qk_norm->w_q.array() -= 1.0;
  s.qk_norm->w_k.array() -= 1.0;
  EXPECT_LE(trace_error(attnlab::compute(s), plain), 1e-15);
}

TEST(Softcap, BoundsTheScaledScoresAndVanishesWhenLarge) {
  Scenario s = base();
  *s.full.W_q *= 20.0;
  s.softcap = 2;
  const Trace t = attnlab::compute(s);
  for (std::size_t h = 0; h < 4; ++h) {
    EXPECT_LE(t.capped(h).cwiseAbs().maxCoeff(), 2.0);
    EXPECT_GT(t.scaled(h).cwiseAbs().maxCoeff(), 2.0) << "runaway scores to cap";
  }
  s.softcap = 1e9;
  const Trace wide = attnlab::compute(s);
  s.softcap = 0;
  const double err = trace_error(attnlab::compute(s), wide);  // the stages of the one without a softcap
  std::cout << "  softcap 1e9 vs none: " << err << "\n";
  EXPECT_LE(err, 1e-9);
}

TEST(Softcap, ComesBeforeAlibisBiasAndTheMask) {
  Scenario s = base();
  s.softcap = 0.5;
  s.alibi = attnlab::Alibi{};
  s.mask.causal = true;
  const Trace t = attnlab::compute(s);
  for (std::size_t h = 0; h < 4; ++h)
    for (Eigen::Index i = 0; i < 6; ++i)
      for (Eigen::Index j = 0; j < 6; ++j) {
        const double masked = t.masked(h)(i, j);
        if (j > i) EXPECT_EQ(masked, -INFINITY);
        else EXPECT_EQ(masked, 0.5 * std::tanh(t.heads[h].scores(i, j) * t.scale / 0.5) + t.bias_at(h, i, j));
      }
}

TEST(NewStages, TheTwoLayoutsAreTransposes) {
  for (const QkNorm::Scope scope : {QkNorm::Scope::head, QkNorm::Scope::width}) {
    const Scenario rows = everything(scope);
    const Trace a = attnlab::compute(rows), b = attnlab::compute(attnlab::with_layout(rows, Layout::columns));
    for (const StageId id : {StageId::Q_norm, StageId::K_norm, StageId::Q_rot, StageId::capped, StageId::masked})
      for (int h = 0; h < 4; ++h) {
        ASSERT_TRUE(attnlab::has_stage(b, id));
        EXPECT_LE(relative_error(Matrix(attnlab::stage_matrix(b, id, h).transpose()), attnlab::stage_matrix(a, id, h)),
                  1e-13)
            << attnlab::stage_name(id);
      }
    EXPECT_LE(relative_error(Matrix(b.output.transpose()), a.output), 1e-13);
  }
}

TEST(NewStages, OnlyTheirFeatureMakesThem) {
  const Trace t = attnlab::compute(base());
  for (const StageId id : {StageId::Q_norm, StageId::K_norm, StageId::capped}) EXPECT_FALSE(attnlab::has_stage(t, id));
  const Trace all = attnlab::compute(everything(QkNorm::Scope::head));
  for (const StageId id : {StageId::Q_norm, StageId::K_norm, StageId::capped}) EXPECT_TRUE(attnlab::has_stage(all, id));
}

TEST(NewStages, RecomputingAfterEachEditGivesTheBitsOfAFreshComputation) {
  Scenario s = base();
  Trace t;
  const auto step = [&](const char* what) {
    attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
    EXPECT_LE(trace_error(t, attnlab::compute(s)), 0.0) << what;
  };
  step("plain");
  s.softcap = 1.0;
  step("softcap on");
  EXPECT_FALSE(t.recomputed.projections) << "a softcap changes no projection";
  s.qk_norm = QkNorm{};
  step("QK-norm on");
  s.qk_norm->scope = QkNorm::Scope::width;
  step("QK-norm over the width");
  (*s.full.W_q)(0, 0) += 1.0;  // head 1's column: over the width every head's queries change
  step("an edit of head 1's W_q");
  s.rope = attnlab::Rope{};
  step("RoPE on");
  s.rope->scaling.kind = RopeScaling::Kind::linear;
  s.rope->scaling.factor = 2;
  step("linear scaling");
  s.rope->scaling.factor = 3;
  step("another factor");
  s.qk_norm->eps = 0.5;
  step("eps");
  s.qk_norm.reset();
  step("QK-norm off");
  s.softcap = 0;
  step("softcap off");
}

TEST(NewStages, TheFirstHeadFirstGivesTheSameTrace) {
  for (const QkNorm::Scope scope : {QkNorm::Scope::head, QkNorm::Scope::width}) {
    const Scenario s = everything(scope);
    Trace t;
    bool ready = false;
    const attnlab::FirstHead first{2, [&](const Trace& partial) {
                                     ready = true;
                                     EXPECT_LE(relative_error(partial.heads[2].weights, attnlab::compute(s).heads[2].weights), 0.0);
                                   }};
    attnlab::compute_into(attnlab::resolve(s), Layout::rows, t, nullptr, attnlab::Recompute::all, &first);
    EXPECT_TRUE(ready);
    EXPECT_LE(trace_error(t, attnlab::compute(s)), 0.0);
  }
}

TEST(NewStages, SingleQueryAgreesWithTheTrace) {
  for (const QkNorm::Scope scope : {QkNorm::Scope::head, QkNorm::Scope::width}) {
    Scenario s = everything(scope);
    s.heads_off = {1};
    const attnlab::Model m = attnlab::resolve(s);
    const Trace t = attnlab::compute(m, Layout::rows);
    double worst = 0;
    for (int h = 0; h < 4; ++h)
      for (int i = 0; i < 6; ++i) {
        const attnlab::SingleQuery q = attnlab::single_query(m, h, i);
        worst = std::max(worst, (q.q_norm - t.heads[std::size_t(h)].Q_norm.row(i).transpose()).cwiseAbs().maxCoeff());
        worst = std::max(worst, (q.q_rot - t.heads[std::size_t(h)].Q_rot.row(i).transpose()).cwiseAbs().maxCoeff());
        worst = std::max(worst, (q.scores - t.heads[std::size_t(h)].scores.row(i).transpose()).cwiseAbs().maxCoeff());
        worst = std::max(worst, (q.weights - t.heads[std::size_t(h)].weights.row(i).transpose()).cwiseAbs().maxCoeff());
        worst = std::max(worst, (q.output - t.heads[std::size_t(h)].output.row(i).transpose()).cwiseAbs().maxCoeff());
      }
    std::cout << "  single queries vs the trace: " << worst << "\n";
    EXPECT_LE(worst, 1e-12);
  }
}

TEST(NewStages, DecodingAgreesWithTheTrace) {
  for (const QkNorm::Scope scope : {QkNorm::Scope::head, QkNorm::Scope::width}) {
    const Scenario s = everything(scope);
    const attnlab::Model m = attnlab::resolve(s);
    const Trace t = attnlab::compute(m, Layout::rows);
    const attnlab::Decode d = attnlab::decode(s, m, 2);
    double worst = 0;
    for (const attnlab::DecodeStep& step : d.steps) {
      for (std::size_t h = 0; h < 4; ++h)
        for (std::size_t c = 0; c < step.cache.size(); ++c)
          worst = std::max(worst, std::abs(step.weights[h](Eigen::Index(c)) - t.heads[h].weights(step.token, step.cache[c])));
      worst = std::max(worst, (step.output - t.output.row(step.token).transpose()).cwiseAbs().maxCoeff());
    }
    std::cout << "  decoding vs the trace: " << worst << "\n";
    EXPECT_LE(worst, 1e-12);
  }
}

TEST(NewStages, CrossAttentionWithEveryStage) {
  Scenario s = everything(QkNorm::Scope::width);
  s.mask = {};
  s.Z = Matrix(attnlab::testing::random_scenario(4, 8, 1, 9).X);
  s.context_positions = {0, 100, 200, 300};
  const Trace t = attnlab::compute(s);
  EXPECT_EQ(t.heads[0].K_norm.rows(), 4);
  EXPECT_EQ(t.k_inverse_rms.size(), 4u);
  const Trace c = attnlab::compute(attnlab::with_layout(s, Layout::columns));
  EXPECT_LE(relative_error(Matrix(c.output.transpose()), t.output), 1e-13);
}

TEST(NewStages, EveryKeyRoundTripsThroughTheFileInBothLayouts) {
  for (const Layout layout : {Layout::rows, Layout::columns}) {
    Scenario s = attnlab::with_layout(everything(QkNorm::Scope::width), layout);
    s.qk_norm->plus_one = true;
    s.qk_norm->eps = 1e-5;
    const Scenario back = attnlab::scenario_from_json(attnlab::scenario_to_json(s));
    ASSERT_TRUE(back.qk_norm && back.rope);
    EXPECT_EQ(back.qk_norm->scope, QkNorm::Scope::width);
    EXPECT_TRUE(back.qk_norm->plus_one);
    EXPECT_EQ(back.qk_norm->eps, 1e-5);
    EXPECT_EQ(back.qk_norm->w_q, s.qk_norm->w_q);
    EXPECT_EQ(back.softcap, s.softcap);
    EXPECT_TRUE(back.rope->scaling == s.rope->scaling);
    EXPECT_LE(trace_error(attnlab::compute(back), attnlab::compute(s)), 0.0);
  }
  Scenario s = base();
  s.rope = attnlab::Rope{};
  s.rope->scaling.kind = RopeScaling::Kind::longrope;
  s.rope->scaling.short_factors = {1, 2};
  s.rope->scaling.long_factors = {3, 4};
  s.rope->scaling.attention_factor = 1.25;
  EXPECT_TRUE(attnlab::scenario_from_json(attnlab::scenario_to_json(s)).rope->scaling == s.rope->scaling);
}

TEST(NewStages, BadValuesAreRefusedNamingTheField) {
  Scenario s = everything(QkNorm::Scope::head);
  s.qk_norm->w_q = numbers(3, 1, 0);
  EXPECT_EQ(refusal(s), "qk_norm.w_q: expected 2 numbers (d_k), got 3");
  s = everything(QkNorm::Scope::width);
  s.qk_norm->w_k = numbers(8, 1, 0);
  EXPECT_EQ(refusal(s), "qk_norm.w_k: expected 4 numbers (G*d_k), got 8");
  s = everything(QkNorm::Scope::head);
  s.qk_norm->w_k(1) = NAN;
  EXPECT_EQ(refusal(s).rfind("qk_norm.w_k[1]: expected a finite number", 0), 0u) << refusal(s);
  s = everything(QkNorm::Scope::head);
  s.qk_norm->eps = 0;
  EXPECT_EQ(refusal(s), "qk_norm.eps: expected a positive number up to 1, got 0");
  s = everything(QkNorm::Scope::head);
  s.softcap = INFINITY;
  EXPECT_EQ(refusal(s), "softcap: expected a positive number up to 1e12 (or 0: none), got inf");
  s = everything(QkNorm::Scope::head);
  s.rope->scaling.factor = 0;
  EXPECT_EQ(refusal(s), "rope.scaling.factor: expected a positive number up to 1e12, got 0");
  s.rope->scaling.factor = 8;
  s.rope->scaling.high_freq_factor = 1;
  EXPECT_EQ(refusal(s), "rope.scaling.high_freq_factor: expected more than low_freq_factor = 1, got 1");
  s.rope->scaling.kind = RopeScaling::Kind::longrope;
  s.rope->scaling.short_factors = {1.0};
  EXPECT_EQ(refusal(s), "rope.scaling.long_factors: expected R/2 = 1 factors (one per pair), got 0")
      << "d_k = 2: one pair";
  s.rope->scaling.long_factors = {-1.0};
  EXPECT_EQ(refusal(s), "rope.scaling.long_factors[0]: expected a positive number up to 1e12, got -1");
}

TEST(NewStages, BadFilesAreRefusedNamingTheField) {
  const std::string X = R"("X": [[1, 0], [0, 1]])";
  EXPECT_EQ(file_refusal("{" + X + R"(, "softcap": -1})"), "softcap: expected a positive number (or 0: none), got -1");
  EXPECT_EQ(file_refusal("{" + X + R"(, "softcap": "big"})"), "softcap: expected a number, got string \"big\"");
  EXPECT_EQ(file_refusal("{" + X + R"(, "qk_norm": {"scope": "row"}})"),
            "qk_norm.scope: expected \"head\" or \"width\", got string \"row\"");
  EXPECT_EQ(file_refusal("{" + X + R"(, "qk_norm": {"w_q": [1, 2, 3]}})"), "qk_norm.w_q: expected 2 numbers (d_k), got 3");
  EXPECT_EQ(file_refusal("{" + X + R"(, "qk_norm": {"plus_one": 1}})"), "qk_norm.plus_one: expected true or false, got 1");
  EXPECT_EQ(file_refusal("{" + X + R"(, "rope": {"scaling": {"type": "yarn"}}})"),
            "rope.scaling.type: expected \"linear\", \"llama3\" or \"longrope\", got string \"yarn\"");
  EXPECT_EQ(file_refusal("{" + X + R"(, "rope": {"scaling": {"type": "linear", "low_freq_factor": 2}}})"),
            "rope.scaling.low_freq_factor: unknown key");
  EXPECT_EQ(file_refusal("{" + X + R"(, "rope": {"scaling": {"type": "longrope", "short_factors": [1]}}})"),
            "rope.scaling.long_factors: expected one factor per pair (R/2 numbers), got nothing");
  EXPECT_EQ(file_refusal("{" + X + R"(, "rope": {"scaling": {"type": "longrope", "short_factors": [1], "long_factors": [2]}}})"),
            "(accepted)");
}

TEST(NewStages, SensitivityRefusesWhatItCannotDifferentiate) {
  Scenario s = base();
  s.qk_norm = QkNorm{};
  EXPECT_THROW(attnlab::sensitivity(s, attnlab::parse_cell_ref("heads[0].weights[0][0]")), attnlab::ScenarioError);
}

}  // namespace test_model_stages
