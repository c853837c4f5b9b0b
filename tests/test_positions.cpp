// Positions, grouped-query heads, RoPE, ALiBi, windows and the sinusoidal encoding: the invariants
// issue 14 names, each with the error it measured. The references are in
// scripts/gen_fixtures_modern.py (tests/fixtures/modern_*.json, checked by test_fixtures.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/edits.h"
#include "attnlab/positions.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_positions {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::Trace;

using attnlab::testing::relative_error;

/// Every per-head stage and the output of two traces, largest relative error.
double trace_error(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.heads.size(), b.heads.size());
  double worst = relative_error(a.output, b.output);
  for (std::size_t h = 0; h < a.heads.size() && h < b.heads.size(); ++h) {
    worst = std::max(worst, relative_error(a.heads[h].scores, b.heads[h].scores));
    worst = std::max(worst, relative_error(a.heads[h].weights, b.heads[h].weights));
    worst = std::max(worst, relative_error(a.heads[h].output, b.heads[h].output));
  }
  return worst;
}

/// 6 tokens of width 8 in 4 heads (d_k = d_v = 2), random weights and biases.
Scenario base() { return attnlab::testing::random_scenario(6, 8, 4, 14); }

TEST(GroupedQuery, AsManyKeyValueHeadsAsQueryHeadsIsPlainMultiHeadAttention) {
  const Scenario plain = base();
  Scenario grouped = plain;
  grouped.num_kv_heads = 4;
  const double err = trace_error(attnlab::compute(grouped), attnlab::compute(plain));
  std::cout << "  G = H vs plain: " << err << "\n";
  EXPECT_EQ(err, 0.0);
}

TEST(GroupedQuery, OneKeyValueHeadEqualsHeadsThatAllHaveTheSameKeysAndValues) {
  Scenario mqa = base();
  attnlab::set_kv_head_count(mqa, 1);  // W_k, W_v keep head 0's band
  ASSERT_EQ(mqa.num_kv_heads, 1);
  Scenario same = base();
  // Every head's band of W_k, W_v, b_k, b_v set to head 0's.
  Matrix& Wk = *same.full.W_k;
  Matrix& Wv = *same.full.W_v;
  for (int h = 1; h < 4; ++h) {
    Wk.middleCols(2 * h, 2) = Wk.middleCols(0, 2);
    Wv.middleCols(2 * h, 2) = Wv.middleCols(0, 2);
    if (same.full.b_k) same.full.b_k->segment(2 * h, 2) = same.full.b_k->segment(0, 2);
    if (same.full.b_v) same.full.b_v->segment(2 * h, 2) = same.full.b_v->segment(0, 2);
  }
  const Trace a = attnlab::compute(mqa), b = attnlab::compute(same);
  const double err = trace_error(a, b);
  std::cout << "  G = 1 vs shared K/V weights: " << err << "\n";
  EXPECT_LE(err, 1e-12);
  for (const attnlab::HeadTrace& h : a.heads) EXPECT_EQ(h.kv_head, 0);
}

TEST(GroupedQuery, ConsecutiveQueryHeadsShareAKeyValueHead) {
  Scenario s = base();
  attnlab::set_kv_head_count(s, 2);
  const Trace t = attnlab::compute(s);
  const int expected[] = {0, 0, 1, 1};
  for (int h = 0; h < 4; ++h) EXPECT_EQ(t.heads[std::size_t(h)].kv_head, expected[h]);
  EXPECT_EQ(t.heads[0].K, t.heads[1].K);
  EXPECT_EQ(t.heads[2].V, t.heads[3].V);
  EXPECT_NE(t.heads[1].K, t.heads[2].K);
  EXPECT_EQ(attnlab::valid_kv_head_counts(s), (std::vector<int>{1, 2, 4}));
}

TEST(Rope, ScoresAreUnchangedWhenEveryPositionShiftsByTheSameAmount) {
  for (auto style : {attnlab::Rope::Style::half, attnlab::Rope::Style::interleaved}) {
    Scenario s = base();
    s.rope = attnlab::Rope{style, 10000.0, 0, {}};
    s.positions = {0, 1, 2, 3, 4, 5};
    Scenario shifted = s;
    shifted.positions = {100, 101, 102, 103, 104, 105};
    const Trace a = attnlab::compute(s), b = attnlab::compute(shifted);
    double err = 0;
    for (std::size_t h = 0; h < a.heads.size(); ++h) err = std::max(err, relative_error(b.heads[h].scores, a.heads[h].scores));
    std::cout << "  RoPE shift by 100 (" << (style == attnlab::Rope::Style::half ? "half" : "interleaved")
              << "): scores " << err << "\n";
    EXPECT_LE(err, 1e-12);
    EXPECT_GT(relative_error(b.heads[0].Q_rot, a.heads[0].Q_rot), 1e-3) << "the rotations themselves differ";
  }
}

TEST(Rope, PositionZeroDoesNotTurnAndRotationsKeepLengths) {
  Scenario s = base();
  s.rope = attnlab::Rope{};
  const Trace t = attnlab::compute(s);
  EXPECT_EQ(t.heads[0].Q_rot.row(0), t.heads[0].Q.row(0));
  for (Eigen::Index i = 0; i < t.heads[0].Q.rows(); ++i)
    EXPECT_NEAR(t.heads[0].Q_rot.row(i).norm(), t.heads[0].Q.row(i).norm(), 1e-12);
}

TEST(Rope, TheTwoLayoutsAreTransposes) {
  Scenario s = base();
  s.rope = attnlab::Rope{attnlab::Rope::Style::interleaved, 500.0, 2, {}};
  s.positions = {7, 3, 3, 0, 9, 12};
  const Trace rows = attnlab::compute(s), cols = attnlab::compute(attnlab::with_layout(s, Layout::columns));
  for (std::size_t h = 0; h < rows.heads.size(); ++h) {
    EXPECT_LE(relative_error(Matrix(cols.heads[h].Q_rot.transpose()), rows.heads[h].Q_rot), 1e-13);
    EXPECT_LE(relative_error(Matrix(cols.heads[h].K_rot.transpose()), rows.heads[h].K_rot), 1e-13);
    EXPECT_LE(relative_error(Matrix(cols.heads[h].weights.transpose()), rows.heads[h].weights), 1e-13);
  }
}

TEST(Alibi, SlopeZeroIsNoAlibi) {
  const Scenario plain = base();
  Scenario zero = plain;
  zero.alibi = attnlab::Alibi{{0.0, 0.0, 0.0, 0.0}};
  const double err = trace_error(attnlab::compute(zero), attnlab::compute(plain));
  std::cout << "  ALiBi slope 0 vs none: " << err << "\n";
  EXPECT_LE(err, 1e-12);  // the ALiBi path normalises each row in a different order
}

TEST(Alibi, ThePapersSlopes) {
  const std::vector<double> four = attnlab::positional::alibi_slopes(4);
  EXPECT_EQ(four, (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625}));
  // 6 heads: the 4-head slopes, then the 1st and 3rd of the 8-head sequence 2^(-k).
  const std::vector<double> six = attnlab::positional::alibi_slopes(6);
  EXPECT_EQ(six, (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125}));
  EXPECT_EQ(attnlab::positional::alibi_slopes(1), (std::vector<double>{std::exp2(-8.0)}));
}

TEST(Alibi, TheBiasIsMinusSlopeTimesDistanceAddedBeforeTheMask) {
  Scenario s = base();
  s.alibi = attnlab::Alibi{};
  s.positions = {0, 2, 4, 6, 8, 10};
  s.mask.causal = true;
  const Trace t = attnlab::compute(s);
  const Matrix masked = t.masked(1);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      const double bias = -0.0625 * std::abs(2.0 * i - 2.0 * j);
      EXPECT_DOUBLE_EQ(t.bias_at(1, i, j), bias);
      if (j > i) EXPECT_EQ(masked(i, j), -INFINITY);
      else EXPECT_DOUBLE_EQ(masked(i, j), t.heads[1].scores(i, j) * t.scale + bias);
    }
}

TEST(Window, AWindowAsWideAsTheSequenceWithCausalIsCausal) {
  Scenario causal = base();
  causal.mask.causal = true;
  Scenario window = causal;
  window.mask.window = 6;
  EXPECT_EQ(trace_error(attnlab::compute(window), attnlab::compute(causal)), 0.0);
  window.mask.window = 3;  // Mistral: the 3 most recent, the query's own included
  const Trace t = attnlab::compute(window);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(t.allowed(i, j), j <= i && i - j < 3) << i << "," << j;
}

TEST(Positions, CausalReadsPositionsAndTheDefaultsChangeNothing) {
  Scenario s = base();
  s.mask.causal = true;
  const Trace plain = attnlab::compute(s);
  s.positions = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(trace_error(attnlab::compute(s), plain), 0.0);
  s.positions = {5, 4, 3, 2, 1, 0};  // reversed: the last token comes first
  const Trace reversed = attnlab::compute(s);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(reversed.allowed(i, j), j >= i);
}

TEST(SinusoidalEncoding, WithIdentityProjectionsQIsXPlusTheClosedForm) {
  Scenario s;
  s.X = Matrix::Zero(3, 4);
  s.X(1, 2) = 0.5;
  s.positions = {0, 7, 20};
  s.positional_encoding = attnlab::PositionalEncoding::sinusoidal;
  const Trace t = attnlab::compute(s);
  double worst = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      const double p = s.positions[std::size_t(r)], angle = p / std::pow(10000.0, (c - c % 2) / 4.0);
      const double expected = s.X(r, c) + (c % 2 == 0 ? std::sin(angle) : std::cos(angle));
      worst = std::max(worst, std::abs(t.X_pos(r, c) - expected));
      worst = std::max(worst, std::abs(t.heads[0].Q(r, c) - expected));
    }
  std::cout << "  X + PE vs closed form: " << worst << "\n";
  EXPECT_LE(worst, 1e-15);
}

TEST(Positions, EveryNewKeyRoundTripsThroughTheFile) {
  Scenario s = base();
  s.positions = {3, 1, 4, 1, 5, 9};
  s.rope = attnlab::Rope{attnlab::Rope::Style::interleaved, 500.0, 2, {}};
  s.alibi = attnlab::Alibi{{0.5, 0.25, 0.125, 0.0}};
  s.mask.causal = true;
  s.mask.window = 4;
  s.positional_encoding = attnlab::PositionalEncoding::sinusoidal;
  attnlab::set_kv_head_count(s, 2);
  const std::string text = attnlab::scenario_to_json(s).dump();
  const Scenario back = attnlab::scenario_from_string(text);
  EXPECT_EQ(back.positions, s.positions);
  EXPECT_EQ(back.num_kv_heads, 2);
  ASSERT_TRUE(back.rope);
  EXPECT_EQ(back.rope->style, attnlab::Rope::Style::interleaved);
  EXPECT_EQ(back.rope->base, 500.0);
  EXPECT_EQ(back.rope->dims, 2);
  ASSERT_TRUE(back.alibi);
  EXPECT_EQ(back.alibi->slopes, s.alibi->slopes);
  EXPECT_EQ(back.mask.window, 4);
  EXPECT_EQ(back.positional_encoding, attnlab::PositionalEncoding::sinusoidal);
  EXPECT_EQ(trace_error(attnlab::compute(back), attnlab::compute(s)), 0.0);
}

TEST(Positions, TokenEditsCarryTheirPositions) {
  Scenario s = base();
  s.positions = {10, 11, 12, 13, 14, 15};
  attnlab::remove_token(s, attnlab::Sequence::X, 1);
  EXPECT_EQ(s.positions, (std::vector<int>{10, 12, 13, 14, 15}));
  attnlab::insert_token(s, attnlab::Sequence::X, 0);
  EXPECT_EQ(s.positions, (std::vector<int>{16, 10, 12, 13, 14, 15}));
  attnlab::set_cross_attention(s, true);
  EXPECT_EQ(s.context_positions, s.positions);
  EXPECT_NO_THROW(attnlab::validate(s));
  attnlab::set_cross_attention(s, false);
  EXPECT_TRUE(s.context_positions.empty());
}

TEST(Recompute, TogglingRopeOrAlibiRecomputesTheStagesTheyChange) {
  Scenario s = base();
  Trace t;
  attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
  s.rope = attnlab::Rope{};
  attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
  EXPECT_LE(trace_error(t, attnlab::compute(s)), 0.0);
  s.alibi = attnlab::Alibi{};
  attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
  EXPECT_LE(trace_error(t, attnlab::compute(s)), 0.0);
  EXPECT_FALSE(t.recomputed.projections) << "ALiBi changes no projection: Q, K, V are kept";
  EXPECT_TRUE(t.recomputed.attention);
  s.mask.window = 2;
  attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
  EXPECT_FALSE(t.recomputed.projections) << "a window changes no projection";
  EXPECT_LE(trace_error(t, attnlab::compute(s)), 0.0);
  s.positions = {5, 6, 7, 8, 9, 10};
  attnlab::compute_into(attnlab::resolve(s), Layout::rows, t);
  EXPECT_LE(trace_error(t, attnlab::compute(s)), 0.0);
  EXPECT_LE(relative_error(t.heads[0].Q_rot, attnlab::compute(s).heads[0].Q_rot), 0.0);
}

TEST(SingleQuery, AgreesWithTheTraceWithRopeAndAlibi) {
  Scenario s = base();
  s.rope = attnlab::Rope{};
  s.alibi = attnlab::Alibi{};
  s.positions = {2, 3, 5, 7, 11, 13};
  const attnlab::Model m = attnlab::resolve(s);
  const Trace t = attnlab::compute(m, Layout::rows);
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < 6; ++i) {
      const attnlab::SingleQuery q = attnlab::single_query(m, h, i);
      for (int j = 0; j < 6; ++j) {
        EXPECT_NEAR(q.scores(j), t.heads[std::size_t(h)].scores(i, j), 1e-12);
        EXPECT_NEAR(q.weights(j), t.heads[std::size_t(h)].weights(i, j), 1e-12);
      }
    }
}

}  // namespace

}  // namespace test_positions
