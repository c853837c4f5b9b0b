// Scenario edits (attnlab/edits.h): what belongs to a token follows it, edits undo each other,
// resizing keeps what overlaps (each head's band its own leading columns), random growth is
// deterministic, every edited scenario still resolves and computes, refusals name the field, and
// the one cell-edit syntax parses and stores.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/edits.h"
#include "attnlab/matrix_text.h"
#include "attnlab/model.h"
#include "attnlab/scenario.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_edits {

namespace {

using attnlab::Fill;
using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::Sequence;
using attnlab::Vector;

const char* const kPresets[] = {
    "vaswani-q1-decoder-over-encoder", "vaswani-q2-is-attends", "vaswani-q3-two-heads",
    "mlm-general-attention",           "udl-12-2-multihead",    "pytorch-unscaled",
    "phuong-hutter-alg3-single-query", "phuong-hutter-alg4-masked", "phuong-hutter-alg5-multihead",
};

Scenario preset(const std::string& name) {
  return attnlab::load_scenario(attnlab::testing::preset_path(name));
}

// Rows-convention view of a stored matrix (columns layout stores the transpose).
Matrix rows_of(const Matrix& stored, Layout l) { return l == Layout::rows ? stored : Matrix(stored.transpose()); }

// Self-attention of 5 labelled tokens, an explicit mask (diagonal allowed, the rest from a
// pattern) and padding of token 3, in layout `l`.
Scenario labelled_scenario(Layout l, bool cross) {
  Scenario s = attnlab::testing::random_scenario(5, 3, 1, 7);
  s.tokens = {"a", "b", "c", "d", "e"};
  Matrix cells(5, 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) cells(i, j) = i == j || (i * 3 + j) % 4 == 0 ? 1.0 : 0.0;
  s.mask.cells = cells;
  s.mask.padding = {3};
  if (cross) {
    attnlab::set_cross_attention(s, true);
    s.Z = attnlab::testing::random_scenario(5, 3, 1, 9).X;  // keys differ from the queries
    s.context_tokens = {"v", "w", "x", "y", "z"};
  }
  return l == Layout::rows ? s : attnlab::with_layout(s, l);
}

// Token i's embedding as a row, whatever the layout.
Vector embedding(const Matrix& stored, Layout l, int i) { return rows_of(stored, l).row(i).transpose(); }
// Mask cell of (query i, key j), whatever the layout.
double cell(const Scenario& s, int i, int j) { return rows_of(*s.mask.cells, s.layout)(i, j); }
bool padded(const Scenario& s, int j) {
  return std::find(s.mask.padding.begin(), s.mask.padding.end(), j) != s.mask.padding.end();
}

void expect_same_tokens(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.X, b.X);
  EXPECT_EQ(a.Z.has_value(), b.Z.has_value());
  if (a.Z && b.Z) {
    EXPECT_EQ(*a.Z, *b.Z);
  }
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.context_tokens, b.context_tokens);
  ASSERT_EQ(a.mask.cells.has_value(), b.mask.cells.has_value());
  if (a.mask.cells) {
    EXPECT_EQ(*a.mask.cells, *b.mask.cells);
  }
  EXPECT_EQ(a.mask.padding, b.mask.padding);
}

// Resolves and computes `s`; fails the test with the core's message otherwise.
void expect_computes(const Scenario& s, const std::string& what) {
  try {
    attnlab::resolve(s);
    const attnlab::Trace t = attnlab::compute(s);
    EXPECT_EQ(static_cast<int>(t.heads.size()), s.head_count()) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
}

// Runs `edit` and expects a ScenarioError whose message starts with `field` followed by ':'.
void expect_refused(const std::function<void()>& edit, const std::string& field) {
  try {
    edit();
    ADD_FAILURE() << "expected a refusal naming " << field;
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(field + ":", 0), 0u) << e.what();
  }
}

// ---- Tokens ---------------------------------------------------------------------------------------

class LayoutEdits : public ::testing::TestWithParam<Layout> {};
INSTANTIATE_TEST_SUITE_P(BothLayouts, LayoutEdits, ::testing::Values(Layout::rows, Layout::columns),
                         [](const auto& info) { return info.param == Layout::rows ? "rows" : "columns"; });

TEST_P(LayoutEdits, ReorderSelfAttentionKeepsEachTokensEmbeddingLabelMaskAndPadding) {
  const Scenario before = labelled_scenario(GetParam(), false);
  const std::vector<int> order = {2, 0, 4, 3};  // token 1 removed, the others shuffled
  Scenario after = before;
  attnlab::reorder_tokens(after, Sequence::X, order);
  ASSERT_EQ(after.n_x(), 4);
  for (int i = 0; i < 4; ++i) {
    const int k = order[std::size_t(i)];
    EXPECT_EQ(embedding(after.X, after.layout, i), embedding(before.X, before.layout, k)) << i;
    EXPECT_EQ(after.tokens[std::size_t(i)], before.tokens[std::size_t(k)]);
    EXPECT_EQ(padded(after, i), padded(before, k)) << i;
    for (int j = 0; j < 4; ++j)  // self-attention: both axes of the mask follow
      EXPECT_EQ(cell(after, i, j), cell(before, k, order[std::size_t(j)])) << i << "," << j;
  }
  expect_computes(after, "reordered");
}

TEST_P(LayoutEdits, SetTokenEmbeddingWritesOnlyThatTokensRowOrColumn) {
  const Scenario before = labelled_scenario(GetParam(), true);
  Scenario after = before;
  const Vector x = (Vector(3) << 0.5, -1.25, 2.0).finished();
  attnlab::set_token_embedding(after, Sequence::X, 1, x);
  for (int i = 0; i < before.n_x(); ++i)
    EXPECT_EQ(embedding(after.X, after.layout, i),
              i == 1 ? x : embedding(before.X, before.layout, i))
        << i;
  EXPECT_EQ(*after.Z, *before.Z);
  attnlab::set_token_embedding(after, Sequence::Z, 2, x);
  EXPECT_EQ(embedding(*after.Z, after.layout, 2), x);
  expect_computes(after, "embeddings set");
  expect_refused([&] { attnlab::set_token_embedding(after, Sequence::X, 9, x); }, "X");
  expect_refused([&] { attnlab::set_token_embedding(after, Sequence::X, 0, Vector::Zero(2)); },
                 "X");
  Scenario self = labelled_scenario(GetParam(), false);
  expect_refused([&] { attnlab::set_token_embedding(self, Sequence::Z, 0, x); }, "Z");
}

TEST_P(LayoutEdits, ReorderCrossAttentionMovesOnlyTheAxisOfItsSequence) {
  const Scenario before = labelled_scenario(GetParam(), true);
  const std::vector<int> order = {4, 1, 0};
  Scenario queries = before, keys = before;
  attnlab::reorder_tokens(queries, Sequence::X, order);
  attnlab::reorder_tokens(keys, Sequence::Z, order);
  ASSERT_EQ(queries.n_x(), 3);
  ASSERT_EQ(keys.n_z(), 3);
  EXPECT_EQ(*queries.Z, *before.Z);
  EXPECT_EQ(queries.mask.padding, before.mask.padding);  // padding names keys: X's order leaves it
  EXPECT_EQ(keys.X, before.X);
  for (int i = 0; i < 3; ++i) {
    const int k = order[std::size_t(i)];
    EXPECT_EQ(embedding(queries.X, before.layout, i), embedding(before.X, before.layout, k));
    EXPECT_EQ(embedding(*keys.Z, before.layout, i), embedding(*before.Z, before.layout, k));
    EXPECT_EQ(keys.context_tokens[std::size_t(i)], before.context_tokens[std::size_t(k)]);
    EXPECT_EQ(padded(keys, i), padded(before, k));
    for (int j = 0; j < 5; ++j) {
      EXPECT_EQ(cell(queries, i, j), cell(before, k, j));
      EXPECT_EQ(cell(keys, j, i), cell(before, j, k));
    }
  }
  expect_computes(queries, "queries reordered");
  expect_computes(keys, "keys reordered");
}

TEST_P(LayoutEdits, ReorderingInOneLayoutEqualsReorderingInTheOther) {
  const Scenario rows = labelled_scenario(Layout::rows, GetParam() == Layout::columns);
  Scenario a = rows, b = attnlab::with_layout(rows, Layout::columns);
  for (Sequence seq : {Sequence::X, Sequence::Z}) {
    attnlab::reorder_tokens(a, seq, {3, -1, 0, 1});
    attnlab::reorder_tokens(b, seq, {3, -1, 0, 1});
  }
  expect_same_tokens(attnlab::with_layout(b, Layout::rows), a);
}

TEST_P(LayoutEdits, InsertThenRemoveAndMoveThereAndBackRestoreTheScenario) {
  for (bool cross : {false, true})
    for (Sequence seq : {Sequence::X, Sequence::Z}) {
      if (seq == Sequence::Z && !cross) continue;
      const Scenario original = labelled_scenario(GetParam(), cross);
      const int n = seq == Sequence::X ? original.n_x() : original.n_z();
      for (int at = 0; at <= n; ++at) {
        Scenario s = original;
        attnlab::insert_token(s, seq, at);
        ASSERT_EQ(seq == Sequence::X ? s.n_x() : s.n_z(), n + 1);
        const Matrix& m = seq == Sequence::X ? s.X : *s.Z;
        EXPECT_TRUE(embedding(m, s.layout, at).isZero(0)) << "a new token's embedding is zero";
        EXPECT_EQ((seq == Sequence::X ? s.tokens : s.context_tokens)[std::size_t(at)], "new");
        expect_computes(s, "inserted at " + std::to_string(at));
        attnlab::remove_token(s, seq, at);
        expect_same_tokens(s, original);
      }
      for (int i = 0; i + 1 < n; ++i) {
        Scenario s = original;
        attnlab::move_token(s, seq, i, +1);
        EXPECT_FALSE(s.X == original.X && (!s.Z || *s.Z == *original.Z)) << "the move changed nothing";
        attnlab::move_token(s, seq, i + 1, -1);
        expect_same_tokens(s, original);
      }
    }
}

TEST(TokenEdits, InsertedLabelsAreUniqueAndOutOfRangeMovesDoNothing) {
  Scenario s = labelled_scenario(Layout::rows, false);
  attnlab::insert_token(s, Sequence::X, 99);  // clamped: appended
  attnlab::insert_token(s, Sequence::X, -4);  // clamped: first
  EXPECT_EQ(s.tokens.back(), "new");
  EXPECT_EQ(s.tokens.front(), "new2");
  const Scenario kept = s;
  attnlab::move_token(s, Sequence::X, 0, -1);
  attnlab::move_token(s, Sequence::X, s.n_x() - 1, +1);
  attnlab::remove_token(s, Sequence::X, s.n_x());
  expect_same_tokens(s, kept);
}

TEST(TokenEdits, RemovingTheLastTokenIsRefusedNamingTheSequence) {
  Scenario s = attnlab::testing::random_scenario(1, 2, 1, 3);
  expect_refused([&] { attnlab::remove_token(s, Sequence::X, 0); }, "X");
  EXPECT_EQ(s.n_x(), 1);
  attnlab::set_cross_attention(s, true);
  expect_refused([&] { attnlab::remove_token(s, Sequence::Z, 0); }, "Z");
}

TEST(TokenEdits, AFirstLabelNamesTheOthersAsShownAndSelfAttentionKeysFollow) {
  Scenario s = attnlab::testing::random_scenario(3, 2, 1, 4);
  attnlab::set_token_label(s, Sequence::X, 1, "cat");
  EXPECT_EQ(s.tokens, (std::vector<std::string>{"#0", "cat", "#2"}));
  s.context_tokens = s.tokens;  // self-attention with key labels given separately
  attnlab::set_token_label(s, Sequence::X, 2, "sat");
  EXPECT_EQ(s.context_tokens[2], "sat");
  expect_refused([&] { attnlab::set_token_label(s, Sequence::X, 3, "x"); }, "X");
  expect_refused([&] { attnlab::set_token_label(s, Sequence::Z, 0, "z"); }, "Z");  // no Z
  attnlab::set_cross_attention(s, true);
  attnlab::set_token_label(s, Sequence::Z, 0, "key");
  EXPECT_EQ(s.context_tokens[0], "key");
  EXPECT_EQ(s.tokens[0], "#0") << "in cross-attention the queries keep theirs";
}

TEST(TokenEdits, CrossAndBackKeepsXAndTheMaskOverlap) {
  const Scenario self = labelled_scenario(Layout::rows, false);
  Scenario s = self;
  attnlab::set_cross_attention(s, true);
  ASSERT_TRUE(s.Z);
  EXPECT_EQ(*s.Z, s.X);
  EXPECT_EQ(s.context_tokens, s.tokens);
  expect_computes(s, "cross");
  attnlab::remove_token(s, Sequence::Z, 4);  // 4 keys now; the fifth comes back allowed
  attnlab::set_cross_attention(s, false);
  EXPECT_FALSE(s.Z);
  EXPECT_EQ(s.X, self.X);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(cell(s, i, j), j < 4 ? cell(self, i, j) : 1.0);
  EXPECT_EQ(s.mask.padding, self.mask.padding);
  expect_computes(s, "self again");
}

TEST(TokenEdits, SelfAttentionIsRefusedWhileZIsWiderThanX) {
  Scenario s = preset("vaswani-q1-decoder-over-encoder");
  attnlab::set_context_width(s, s.d_x() + 1, Fill{});
  expect_refused([&] { attnlab::set_cross_attention(s, false); }, "Z");
  EXPECT_TRUE(s.Z);
}

// ---- Widths ---------------------------------------------------------------------------------------

// Top-left min(rows) x min(cols) block of two matrices (in the rows convention).
void expect_overlap_kept(const Matrix& before, const Matrix& after, const std::string& what) {
  const long r = std::min(before.rows(), after.rows()), c = std::min(before.cols(), after.cols());
  EXPECT_EQ(after.topLeftCorner(r, c), before.topLeftCorner(r, c)) << what;
}

TEST_P(LayoutEdits, ModelWidthKeepsTheOverlapOfXAndEveryProjectionsInputSide) {
  Scenario before = attnlab::testing::random_scenario(3, 4, 2, 11);
  before = attnlab::with_layout(before, GetParam());
  const Layout l = GetParam();
  for (int d : {6, 2}) {
    Scenario s = before;
    attnlab::set_model_width(s, d, Fill{});
    EXPECT_EQ(s.d_x(), d);
    expect_overlap_kept(rows_of(before.X, l), rows_of(s.X, l), "X");
    for (auto W : {&attnlab::Projections::W_q, &attnlab::Projections::W_k, &attnlab::Projections::W_v}) {
      EXPECT_EQ(rows_of(*(s.full.*W), l).rows(), d);
      expect_overlap_kept(rows_of(*(before.full.*W), l), rows_of(*(s.full.*W), l), "W");
    }
    EXPECT_EQ(rows_of(*s.W_o, l).cols(), d) << "d_out was d_model: W_o follows";
    if (d > 4) {
      EXPECT_TRUE(rows_of(s.X, l).rightCols(d - 4).isZero(0)) << "zeros fill";
    }
    expect_computes(s, "d_model " + std::to_string(d));
  }
}

TEST_P(LayoutEdits, KeyAndValueWidthsKeepEachHeadsLeadingColumnsOfTheFullMatrices) {
  const Layout l = GetParam();
  const Scenario before = attnlab::with_layout(attnlab::testing::random_scenario(3, 4, 2, 12), l);
  for (int d : {3, 1}) {  // d_k = d_v = 2 per head before
    Scenario s = before;
    attnlab::set_key_width(s, d, Fill{});
    attnlab::set_value_width(s, d, Fill{});
    const int keep = std::min(d, 2);
    for (int h = 0; h < 2; ++h) {
      for (auto W : {&attnlab::Projections::W_q, &attnlab::Projections::W_k, &attnlab::Projections::W_v})
        EXPECT_EQ(rows_of(*(s.full.*W), l).middleCols(h * d, keep),
                  rows_of(*(before.full.*W), l).middleCols(h * 2, keep)) << "head " << h;
      EXPECT_EQ(s.full.b_q->segment(h * d, keep), before.full.b_q->segment(h * 2, keep));
      // W_o reads head h's outputs from its band of rows.
      EXPECT_EQ(rows_of(*s.W_o, l).middleRows(h * d, keep), rows_of(*before.W_o, l).middleRows(h * 2, keep));
    }
    expect_computes(s, "d_k = d_v = " + std::to_string(d));
  }
}

TEST(WidthEdits, PerHeadWeightsEachKeepTheirOwnLeadingColumns) {
  const Scenario before = preset("udl-12-2-multihead");  // columns layout, two heads of their own
  ASSERT_TRUE(before.per_head());
  const Layout l = before.layout;
  Scenario s = before;
  const int d_k = int(rows_of(*before.heads[0].W_q, l).cols());
  attnlab::set_key_width(s, d_k + 2, Fill{});
  for (std::size_t h = 0; h < before.heads.size(); ++h) {
    const Matrix was = rows_of(*before.heads[h].W_q, l), now = rows_of(*s.heads[h].W_q, l);
    EXPECT_EQ(now.cols(), d_k + 2);
    EXPECT_EQ(now.leftCols(d_k), was) << "head " << h;
    EXPECT_TRUE(now.rightCols(2).isZero(0));
  }
  expect_computes(s, "per-head d_k");
  attnlab::set_key_width(s, d_k, Fill{});
  for (std::size_t h = 0; h < before.heads.size(); ++h) EXPECT_EQ(*s.heads[h].W_q, *before.heads[h].W_q);
}

TEST(WidthEdits, RandomGrowthIsDeterministicForASeedAndDiffersPerMatrixAndSeed) {
  const Scenario before = attnlab::testing::random_scenario(3, 2, 1, 13);
  Fill fill;
  fill.random = true;
  fill.spec.seed = 42;
  Scenario a = before, b = before, c = before;
  attnlab::set_model_width(a, 5, fill);
  attnlab::set_model_width(b, 5, fill);
  fill.spec.seed = 43;
  attnlab::set_model_width(c, 5, fill);
  EXPECT_EQ(a.X, b.X);
  EXPECT_EQ(*a.full.W_q, *b.full.W_q);
  const Matrix new_x = a.X.rightCols(3), new_q = a.full.W_q->bottomRows(3);
  EXPECT_FALSE(new_x.isZero(0));
  EXPECT_NE(new_x, c.X.rightCols(3)) << "another seed, other numbers";
  EXPECT_NE(new_q, a.full.W_k->bottomRows(3)) << "W_q and W_k draw from their own streams";
  expect_overlap_kept(before.X, a.X, "X");
}

TEST(WidthEdits, ContextWidthResizesZAndTheKeyValueInputsOnly) {
  const Scenario before = preset("vaswani-q1-decoder-over-encoder");
  Scenario s = before;
  const int d_z = before.d_z();
  attnlab::set_context_width(s, d_z + 1, Fill{});
  EXPECT_EQ(s.d_z(), d_z + 1);
  EXPECT_EQ(s.X, before.X);
  expect_overlap_kept(rows_of(*before.Z, s.layout), rows_of(*s.Z, s.layout), "Z");
  expect_computes(s, "d_z + 1");
  Scenario self = attnlab::testing::random_scenario(2, 2, 1, 1);
  const Scenario self_before = self;
  attnlab::set_context_width(self, 5, Fill{});  // no Z: nothing to do
  expect_same_tokens(self, self_before);
}

TEST(WidthEdits, SizesBelowOneAreRefusedNamingTheWidth) {
  Scenario s = attnlab::testing::random_scenario(2, 2, 1, 1);
  expect_refused([&] { attnlab::set_model_width(s, 0, Fill{}); }, "d_model");
  expect_refused([&] { attnlab::set_context_width(s, 0, Fill{}); }, "d_z");
  expect_refused([&] { attnlab::set_key_width(s, -1, Fill{}); }, "d_k");
  expect_refused([&] { attnlab::set_value_width(s, 0, Fill{}); }, "d_v");
}

// ---- Heads ----------------------------------------------------------------------------------------

TEST(HeadEdits, HeadCountRefusalsMatchTheCoresAndPerHeadScenariosRefuse) {
  Scenario s = attnlab::testing::random_scenario(2, 4, 1, 1);
  attnlab::set_head_count(s, 2);
  EXPECT_EQ(s.num_heads, 2);
  expect_computes(s, "two heads");
  Scenario zero = s;
  zero.num_heads = 0;
  std::string core_message;
  try {
    attnlab::validate(zero);
  } catch (const attnlab::ScenarioError& e) {
    core_message = e.what();
  }
  try {
    attnlab::set_head_count(s, 0);
    ADD_FAILURE() << "0 heads accepted";
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), core_message) << "the same words as resolve()";
  }
  EXPECT_EQ(s.num_heads, 2);
  Scenario per_head = preset("udl-12-2-multihead");
  expect_refused([&] { attnlab::set_head_count(per_head, 3); }, "num_heads");
}

// The counts offered are exactly those resolve() accepts (the validator is the reference), for
// square and unequal widths, omitted projections and cross-attention.
TEST(HeadEdits, ValidHeadCountsAreExactlyTheCountsTheCoreAccepts) {
  std::vector<std::pair<std::string, Scenario>> cases = {
      {"d 4", attnlab::testing::random_scenario(2, 4, 1, 1)},
      {"d 12", attnlab::testing::random_scenario(2, 12, 2, 2)},
      {"vaswani-q2", preset("vaswani-q2-is-attends")},
      {"vaswani-q1 (no W)", preset("vaswani-q1-decoder-over-encoder")},
      {"mlm", preset("mlm-general-attention")}};
  Scenario unequal = attnlab::testing::random_scenario(2, 12, 1, 3);
  attnlab::set_value_width(unequal, 8, Fill{});  // H*d_k = 12, H*d_v = 8: common divisors 1, 2, 4
  cases.emplace_back("d_k 12, d_v 8", unequal);
  for (const auto& [name, s] : cases) {
    std::vector<int> accepted;
    for (int h = 1; h <= 64; ++h) {
      Scenario edited = s;
      edited.num_heads = h;
      try {
        attnlab::validate(edited);
        accepted.push_back(h);
      } catch (const attnlab::ScenarioError&) {
      }
    }
    EXPECT_EQ(attnlab::valid_head_counts(s), accepted) << name;
  }
  EXPECT_EQ(attnlab::valid_head_counts(unequal), (std::vector<int>{1, 2, 4}));
  EXPECT_TRUE(attnlab::valid_head_counts(preset("udl-12-2-multihead")).empty()) << "per-head";
}

// ---- Every edit of every preset ------------------------------------------------------------------

TEST(EditsOfPresets, EveryEditedPresetStillResolvesAndComputes) {
  using Edit = std::function<void(Scenario&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"insert X", [](Scenario& s) { attnlab::insert_token(s, Sequence::X, 1); }},
      {"remove X", [](Scenario& s) { if (s.n_x() > 1) attnlab::remove_token(s, Sequence::X, 0); }},
      {"move X", [](Scenario& s) { attnlab::move_token(s, Sequence::X, 0, +1); }},
      {"insert Z", [](Scenario& s) { attnlab::insert_token(s, Sequence::Z, 0); }},
      {"remove Z", [](Scenario& s) { if (s.n_z() > 1) attnlab::remove_token(s, Sequence::Z, 1); }},
      {"cross", [](Scenario& s) { attnlab::set_cross_attention(s, true); }},
      {"d_model+1", [](Scenario& s) { attnlab::set_model_width(s, s.d_x() + 1, Fill{}); }},
      {"d_model-1", [](Scenario& s) { attnlab::set_model_width(s, std::max(1, s.d_x() - 1), Fill{}); }},
      {"d_z+2", [](Scenario& s) { attnlab::set_context_width(s, s.d_z() + 2, Fill{}); }},
      {"d_k=3", [](Scenario& s) { attnlab::set_key_width(s, 3, Fill{}); }},
      {"d_v=1", [](Scenario& s) { attnlab::set_value_width(s, 1, Fill{}); }},
      {"cell", [](Scenario& s) { attnlab::set_cell(s, attnlab::parse_cell_edit("X[0][0]=2.5")); }},
  };
  int checked = 0;
  for (const char* name : kPresets) {
    const Scenario original = preset(name);
    for (const auto& [what, edit] : edits) {
      Scenario s = original;
      edit(s);
      expect_computes(s, std::string(name) + ": " + what);
      ++checked;
    }
    if (!original.cross_attention()) continue;
    Scenario self = original;
    if (self.d_z() == self.d_x()) {
      attnlab::set_cross_attention(self, false);
      expect_computes(self, std::string(name) + ": self");
    }
  }
  EXPECT_EQ(checked, 9 * 12);
}

// ---- One cell -------------------------------------------------------------------------------------

TEST(CellEdits, ParsesTheThreeShapesOfTheSyntax) {
  const attnlab::CellEdit a = attnlab::parse_cell_edit("W_q[0][1]=0.5");
  EXPECT_EQ(a.matrix, "W_q");
  EXPECT_EQ(a.head, -1);
  EXPECT_EQ(a.row, 0);
  EXPECT_EQ(a.col, 1);
  EXPECT_EQ(a.value_text, "0.5");
  EXPECT_EQ(a.source(), "W_q");
  const attnlab::CellEdit b = attnlab::parse_cell_edit("heads[1].b_k[0][2]=-1.5");
  EXPECT_EQ(b.matrix, "b_k");
  EXPECT_EQ(b.head, 1);
  EXPECT_EQ(b.col, 2);
  EXPECT_EQ(b.value_text, "-1.5");
  EXPECT_EQ(b.source(), "heads[1].b_k");
  const attnlab::CellEdit c = attnlab::parse_cell_edit("X[12][0]=3");
  EXPECT_EQ(c.matrix, "X");
  EXPECT_EQ(c.row, 12);
  EXPECT_EQ(c.value_text, "3");
  EXPECT_EQ(attnlab::parse_cell_edit("W_o[0][0]=abc").value_text, "abc") << "values are set_cell's";
}

TEST(CellEdits, MalformedTextIsRefusedNamingTheProblem) {
  for (const char* bad : {"W_q[0][1]", "W_q[0]=1", "[0][1]=1", "W_q[a][1]=1", "W_q[0][1x]=1", "W_q 0 1=2"})
    expect_refused([&] { attnlab::parse_cell_edit(bad); }, std::string("cell edit \"") + bad + "\"");
  expect_refused([&] { attnlab::parse_cell_edit("W_x[0][0]=1"); }, "W_x");
  expect_refused([&] { attnlab::parse_cell_edit("heads[1].W_o[0][0]=1"); }, "heads[1].W_o");
  expect_refused([&] { attnlab::parse_cell_edit("heads[-1].W_q[0][0]=1"); }, "heads[-1].W_q");
}

TEST(CellEdits, SetCellWritesTheStoredCellAndABiasAsItIsShown) {
  Scenario s = attnlab::testing::random_scenario(3, 4, 2, 5);
  attnlab::set_cell(s, attnlab::parse_cell_edit("W_q[1][3]=-2"));
  EXPECT_EQ((*s.full.W_q)(1, 3), -2.0);
  attnlab::set_cell(s, attnlab::parse_cell_edit("b_q[0][2]= 0.25 "));  // rows: b is a row
  EXPECT_EQ((*s.full.b_q)(2), 0.25);
  Scenario c = attnlab::with_layout(s, Layout::columns);
  attnlab::set_cell(c, attnlab::parse_cell_edit("b_q[3][0]=7"));  // columns: b is a column
  EXPECT_EQ((*c.full.b_q)(3), 7.0);
  expect_refused([&] { attnlab::set_cell(c, attnlab::parse_cell_edit("b_q[0][3]=7")); }, "b_q[0][3]");
  Scenario h = preset("udl-12-2-multihead");
  const Scenario h_before = h;
  attnlab::set_cell(h, attnlab::parse_cell_edit("heads[1].W_q[0][1]=-1.5"));
  EXPECT_EQ((*h.heads[1].W_q)(0, 1), -1.5);
  EXPECT_EQ(*h.heads[0].W_q, *h_before.heads[0].W_q);
  expect_computes(h, "heads[1].W_q edited");
}

TEST(CellEdits, RefusalsNameTheCellOrTheMatrix) {
  Scenario s = attnlab::testing::random_scenario(3, 4, 1, 5);
  const Scenario kept = s;
  const auto set = [&](const std::string& text) { attnlab::set_cell(s, attnlab::parse_cell_edit(text)); };
  try {
    set("W_q[5][0]=1");
    ADD_FAILURE();
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "W_q[5][0]: no such cell in a 4x4 matrix");
  }
  try {
    set("X[0][0]=abc");
    ADD_FAILURE();
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "X[0][0]: expected a number, got \"abc\"");
  }
  expect_refused([&] { set("X[0][0]=inf"); }, "X[0][0]");
  expect_refused([&] { set("X[0][0]=2e6"); }, "X[0][0]");
  expect_refused([&] { set("X[-1][0]=1"); }, "X[-1][0]");
  expect_refused([&] { set("Z[0][0]=1"); }, "Z");                      // self-attention
  expect_refused([&] { set("b_k[0][0]=1"); }, "b_k");                  // omitted
  expect_refused([&] { set("heads[0].W_q[0][0]=1"); }, "heads[0].W_q");  // no per-head weights
  EXPECT_EQ(s.X, kept.X);
  EXPECT_EQ(*s.full.W_q, *kept.full.W_q);
  Scenario h = preset("udl-12-2-multihead");
  const auto set_h = [&](const std::string& text) { attnlab::set_cell(h, attnlab::parse_cell_edit(text)); };
  expect_refused([&] { set_h("W_q[0][0]=1"); }, "W_q");                  // which head?
  expect_refused([&] { set_h("heads[2].W_q[0][0]=1"); }, "heads[2].W_q");  // two heads
}

TEST(CellEdits, CellEditOfASourceEqualsParsingTheSameText) {
  const attnlab::CellEdit a = attnlab::cell_edit_of("heads[3].W_v", 2, 1, "4");
  const attnlab::CellEdit b = attnlab::parse_cell_edit("heads[3].W_v[2][1]=4");
  EXPECT_EQ(a.source(), b.source());
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.value_text, b.value_text);
}

}  // namespace

namespace {

// Switching a head off: its weights stay, its block of the concatenation is zero, the output is the
// others' alone; on again restores the scenario exactly. On every preset and every head.
TEST(HeadEdits, SwitchingAHeadOffZeroesOnlyItsOutputAndOnUndoesIt) {
  for (const char* name : kPresets) {
    const Scenario original = preset(name);
    for (int h = 0; h < original.head_count(); ++h) {
      Scenario s = original;
      attnlab::set_head_off(s, h, true);
      ASSERT_EQ(s.heads_off, std::vector<int>{h});
      const Scenario rows = attnlab::with_layout(s, Layout::rows);
      const attnlab::Model m = attnlab::resolve(rows);
      const attnlab::Trace on = attnlab::compute(attnlab::with_layout(original, Layout::rows));
      const attnlab::Trace off = attnlab::compute(rows);
      for (int g = 0; g < m.num_heads; ++g) {
        EXPECT_EQ(off.heads[std::size_t(g)].weights, on.heads[std::size_t(g)].weights) << name << " head " << g;
        const Matrix expected = g == h ? Matrix(Matrix::Zero(on.heads[std::size_t(g)].output.rows(), m.d_v))
                                       : on.heads[std::size_t(g)].output;
        EXPECT_EQ(off.heads[std::size_t(g)].output, expected) << name << " head " << g;
        EXPECT_EQ(off.concat.middleCols(g * m.d_v, m.d_v), expected) << name << " head " << g;
      }
      const Matrix output = m.has_W_o() ? Matrix((off.concat * *m.W_o).rowwise() + m.b_o.transpose()) : off.concat;
      EXPECT_LT((off.output - output).cwiseAbs().maxCoeff(), 1e-12) << name << " head " << h;
      attnlab::set_head_off(s, h, false);
      EXPECT_EQ(attnlab::scenario_to_json(s), attnlab::scenario_to_json(original)) << name;
    }
  }
}

TEST(HeadEdits, HeadsOffStayAscendingRoundTripAndFollowTheHeadCount) {
  Scenario s = preset("vaswani-q3-two-heads");
  attnlab::set_head_count(s, 4);
  attnlab::set_head_off(s, 3, true);
  attnlab::set_head_off(s, 1, true);
  attnlab::set_head_off(s, 1, true);  // twice off is off once
  EXPECT_EQ(s.heads_off, (std::vector<int>{1, 3}));
  EXPECT_EQ(attnlab::scenario_from_string(attnlab::scenario_to_text(s)).heads_off, s.heads_off);
  attnlab::set_head_count(s, 2);
  EXPECT_EQ(s.heads_off, std::vector<int>{1});
  EXPECT_NO_THROW(attnlab::validate(s));
  EXPECT_THROW(attnlab::set_head_off(s, 2, true), attnlab::ScenarioError);
  try {
    attnlab::set_head_off(s, -1, true);
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_STREQ(e.what(), "heads_off: no head -1 (2 heads, 0 to 1)");
  }
}

TEST(HeadEdits, HeadsOffTheCoreRefusesNameTheEntry) {
  Scenario s = preset("vaswani-q3-two-heads");
  s.heads_off = {0, 2};
  EXPECT_THROW(
      {
        try {
          attnlab::validate(s);
        } catch (const attnlab::ScenarioError& e) {
          EXPECT_STREQ(e.what(), "heads_off[1]: expected a query head from 0 to 1, got 2");
          throw;
        }
      },
      attnlab::ScenarioError);
  s.heads_off = {1, 1};
  try {
    attnlab::validate(s);
    ADD_FAILURE() << "a head listed twice";
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_STREQ(e.what(), "heads_off[1]: head 1 is listed twice");
  }
  try {
    attnlab::scenario_from_string(R"({"X": [[1]], "heads_off": ["a"]})");
    ADD_FAILURE() << "a string for a head";
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("heads_off[0]: expected a query head index"), std::string::npos) << e.what();
  }
}

}  // namespace

// ---- Layout, scale, mask, positions, whole matrices: the window's other edits ---------------------

namespace scenario_edits {

// Every file in assets/presets: the textbook ones and today's attention (RoPE, ALiBi, GQA, ...).
std::vector<std::string> every_preset() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Two scenarios are the same when they write the same file.
std::string text_of(const Scenario& s) { return attnlab::scenario_to_text(s); }

// d_k as resolve() sees it (RoPE needs it even).
int key_width(const Scenario& s) { return attnlab::resolve(s).d_k; }

using Edit = std::function<void(Scenario&)>;

// The window's edits of this section on `s`, each expected to leave it computing.
std::vector<std::pair<std::string, Edit>> edits_for(const Scenario& s) {
  const Layout other = s.layout == Layout::rows ? Layout::columns : Layout::rows;
  std::string spread;  // positions 0 2 4 ...
  for (int i = 0; i < s.n_x(); ++i) spread += std::to_string(2 * i) + " ";
  std::vector<std::pair<std::string, Edit>> edits = {
      {"layout", [other](Scenario& e) { attnlab::set_layout(e, other); }},
      {"no scale", [](Scenario& e) { attnlab::set_scale_kind(e, attnlab::Scale::Kind::none); }},
      {"scale value", [](Scenario& e) { attnlab::set_scale_kind(e, attnlab::Scale::Kind::value); }},
      {"scale 0.5", [](Scenario& e) { attnlab::set_scale(e, 0.5); }},
      {"T = 2", [](Scenario& e) { attnlab::set_temperature(e, 2.0); }},
      {"toggle cell", [](Scenario& e) { attnlab::toggle_mask_cell(e, 0, 0); }},
      {"window 2", [](Scenario& e) { attnlab::set_mask_window(e, 2); }},
      {"causal", [](Scenario& e) { attnlab::set_causal(e, true); }},
      {"clear mask", [](Scenario& e) { attnlab::clear_mask(e); }},
      {"bake", [](Scenario& e) { attnlab::bake_mask(e); }},
      {"pad last key", [](Scenario& e) { attnlab::set_padding(e, e.n_z() - 1, e.n_z() > 1); }},
      {"positions", [spread](Scenario& e) { attnlab::set_positions(e, Sequence::X, spread); }},
      {"positions 0..n", [](Scenario& e) { attnlab::reset_positions(e, Sequence::X); }},
      {"alibi", [](Scenario& e) { attnlab::set_alibi(e, true); }},
      {"softcap 2", [](Scenario& e) { attnlab::set_softcap(e, 2.0); }},
      {"qk-norm", [](Scenario& e) { attnlab::set_qk_norm(e, true); }},
      {"qk-norm over the width, 1 + w", [](Scenario& e) {
         attnlab::set_qk_norm(e, true);
         attnlab::set_qk_norm_scope(e, attnlab::QkNorm::Scope::width);
         attnlab::set_qk_norm_plus_one(e, true);
       }},
      {"cell X[0][0]", [](Scenario& e) { attnlab::set_matrix_cell(e, "X", 0, 0, 1.5); }},
      {"paste X", [](Scenario& e) { attnlab::paste_matrix(e, "X", attnlab::matrix_to_csv(e.X * 0.5)); }},
      {"restore", [s](Scenario& e) { attnlab::restore_scenario(e, s); }},
  };
  if (s.d_x() % 2 == 0)  // sin/cos pairs
    edits.push_back({"encoding", [](Scenario& e) { attnlab::set_sinusoidal_encoding(e, true); }});
  if (key_width(s) % 2 == 0) {
    edits.push_back({"rope", [](Scenario& e) { attnlab::set_rope(e, true); }});
    edits.push_back({"rope style", [](Scenario& e) {
                       attnlab::set_rope(e, true);
                       attnlab::set_rope_style(e, attnlab::Rope::Style::interleaved);
                     }});
    edits.push_back({"rope base", [](Scenario& e) {
                       attnlab::set_rope(e, true);
                       attnlab::set_rope_base(e, 500.0);
                     }});
    for (const auto kind : {attnlab::RopeScaling::Kind::linear, attnlab::RopeScaling::Kind::llama3,
                            attnlab::RopeScaling::Kind::longrope})
      edits.push_back({"rope scaling " + std::to_string(int(kind)), [kind](Scenario& e) {
                         attnlab::set_rope(e, true);
                         attnlab::set_rope_scaling(e, kind);
                         attnlab::set_rope_scaling_number(e, "factor", 4.0);
                         attnlab::set_rope_scaling_number(e, "original_positions", 2.0);
                       }});
    edits.push_back({"rope dims 2", [](Scenario& e) {
                       attnlab::set_rope(e, true);
                       attnlab::set_rope_dims(e, 2);
                     }});
  }
  if (!s.per_head()) {
    for (const char* m : {"W_q", "W_k", "W_v", "b_q", "b_k", "b_v"})
      edits.push_back({std::string("add or omit ") + m, [m](Scenario& e) {
                         const bool there = std::string(m)[0] == 'W' ? (m[2] == 'q' ? e.full.W_q : m[2] == 'k' ? e.full.W_k : e.full.W_v).has_value()
                                                                     : (m[2] == 'q' ? e.full.b_q : m[2] == 'k' ? e.full.b_k : e.full.b_v).has_value();
                         if (there) attnlab::remove_matrix(e, m);
                         else attnlab::add_matrix(e, m);
                       }});
  }
  edits.push_back({"add or omit W_o", [](Scenario& e) {
                     if (e.W_o) attnlab::remove_matrix(e, "W_o");
                     else attnlab::add_matrix(e, "W_o");
                   }});
  edits.push_back({"W_o and b_o", [](Scenario& e) {
                     if (!e.W_o) attnlab::add_matrix(e, "W_o");
                     if (!e.b_o) attnlab::add_matrix(e, "b_o");
                   }});
  return edits;
}

TEST(ScenarioEdits, EveryEditWorksOnEveryPreset) {
  const std::vector<std::string> names = every_preset();
  ASSERT_GE(names.size(), 15u);
  for (const std::string& name : names) {
    const Scenario original = preset(name);
    for (const auto& [what, edit] : edits_for(original)) {
      Scenario s = original;
      try {
        edit(s);
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << ": " << what << " refused: " << e.what();
        continue;
      }
      // A square omitted W's identity only fits when d_k = d_x: that edit may be refused by resolve.
      if (what.rfind("add or omit W_", 0) == 0 && what != "add or omit W_o") {
        try {
          attnlab::resolve(s);
        } catch (const attnlab::ScenarioError&) {
          continue;
        }
      }
      expect_computes(s, name + ": " + what);
    }
  }
}

TEST(ScenarioEdits, InversePairsUndoEachOther) {
  for (const std::string& name : every_preset()) {
    SCOPED_TRACE(name);
    const Scenario original = preset(name);
    const std::string before = text_of(original);
    const auto there_and_back = [&](const char* what, const Edit& there, const Edit& back) {
      Scenario s = original;
      there(s);
      back(s);
      EXPECT_EQ(text_of(s), before) << what;
    };
    const Layout other = original.layout == Layout::rows ? Layout::columns : Layout::rows;
    there_and_back("layout", [&](Scenario& s) { attnlab::set_layout(s, other); },
                   [&](Scenario& s) { attnlab::set_layout(s, original.layout); });
    if (original.mask.cells)
      there_and_back("toggle twice", [](Scenario& s) { attnlab::toggle_mask_cell(s, 0, 0); },
                     [](Scenario& s) { attnlab::toggle_mask_cell(s, 0, 0); });
    const bool causal = original.mask.causal;
    there_and_back("causal", [&](Scenario& s) { attnlab::set_causal(s, !causal); },
                   [&](Scenario& s) { attnlab::set_causal(s, causal); });
    const int window = original.mask.window;
    there_and_back("window", [](Scenario& s) { attnlab::set_mask_window(s, 5); },
                   [&](Scenario& s) { attnlab::set_mask_window(s, window); });
    const int key = original.n_z() - 1;
    if (!padded(original, key))
      there_and_back("padding", [&](Scenario& s) { attnlab::set_padding(s, key, true); },
                     [&](Scenario& s) { attnlab::set_padding(s, key, false); });
    if (!original.rope)
      there_and_back("rope", [](Scenario& s) { attnlab::set_rope(s, true); }, [](Scenario& s) { attnlab::set_rope(s, false); });
    if (!original.alibi)
      there_and_back("alibi", [](Scenario& s) { attnlab::set_alibi(s, true); }, [](Scenario& s) { attnlab::set_alibi(s, false); });
    if (original.positions.empty())
      there_and_back("positions", [](Scenario& s) { attnlab::set_positions(s, Sequence::X, "7"); },
                     [](Scenario& s) { attnlab::reset_positions(s, Sequence::X); });
    if (!original.W_o)
      there_and_back("W_o", [](Scenario& s) { attnlab::add_matrix(s, "W_o"); }, [](Scenario& s) { attnlab::remove_matrix(s, "W_o"); });
    if (original.W_o && !original.b_o)
      there_and_back("b_o", [](Scenario& s) { attnlab::add_matrix(s, "b_o"); }, [](Scenario& s) { attnlab::remove_matrix(s, "b_o"); });
    if (!original.per_head() && !original.full.b_v)
      there_and_back("b_v", [](Scenario& s) { attnlab::add_matrix(s, "b_v"); }, [](Scenario& s) { attnlab::remove_matrix(s, "b_v"); });
  }
}

TEST(ScenarioEdits, BakingKeepsWhatTheMaskAllowsAndLeavesOnlyCells) {
  for (const std::string& name : every_preset()) {
    Scenario s = preset(name);
    attnlab::set_causal(s, true);
    attnlab::set_padding(s, 0, s.n_z() > 1);
    const attnlab::BoolArray allowed = attnlab::resolve(s).allowed;
    attnlab::bake_mask(s);
    EXPECT_FALSE(s.mask.causal || s.mask.window || !s.mask.padding.empty()) << name;
    ASSERT_TRUE(s.mask.cells.has_value()) << name;
    EXPECT_TRUE((attnlab::resolve(s).allowed == allowed).all()) << name;
  }
}

TEST(ScenarioEdits, AddedMatricesHaveTheShapesTheCoreResolves) {
  Scenario s = preset("vaswani-q3-two-heads");
  attnlab::add_matrix(s, "W_o");
  attnlab::add_matrix(s, "b_o");
  Scenario omitted = s;
  attnlab::remove_matrix(omitted, "W_o");
  EXPECT_FALSE(omitted.b_o.has_value()) << "b_o goes with W_o";
  for (const char* b : {"b_q", "b_k", "b_v"})
    if (!(b[2] == 'q' ? s.full.b_q : b[2] == 'k' ? s.full.b_k : s.full.b_v)) attnlab::add_matrix(s, b);
  const attnlab::Model m = attnlab::resolve(s);
  EXPECT_EQ(s.W_o->rows(), long(m.num_heads) * m.d_v);
  EXPECT_EQ(s.full.b_q->size(), long(m.num_heads) * m.d_k);
  EXPECT_EQ(s.full.b_v->size(), long(m.num_kv_heads) * m.d_v);
  EXPECT_EQ(s.b_o->size(), s.W_o->cols());
  std::string column;  // one number per line: a column, pasted into a bias shown as a row
  for (long i = 0; i < s.b_o->size(); ++i) column += std::to_string(i + 1) + "\n";
  attnlab::paste_matrix(s, "b_o", column);
  EXPECT_EQ((*s.b_o)(s.b_o->size() - 1), double(s.b_o->size()));
}

// A paste of X with two more tokens (rows layout) or one fewer (columns layout) asks for that
// count, then resizes the tokens and takes the values in one edit; other shapes are refused.
TEST(ScenarioEdits, APasteCanResizeTheTokens) {
  Scenario s = preset("vaswani-q2-is-attends");
  const int n = s.n_x();
  Matrix bigger(n + 2, s.X.cols());
  for (Eigen::Index i = 0; i < bigger.size(); ++i) bigger.data()[i] = 0.5 * double(i);
  const std::string text = attnlab::matrix_to_csv(bigger);
  EXPECT_EQ(attnlab::paste_token_count(s, "X", text), n + 2);
  EXPECT_EQ(attnlab::paste_token_count(s, "W_q", text), 0) << "only X and Z hold tokens";
  EXPECT_EQ(attnlab::paste_token_count(s, "X", attnlab::matrix_to_csv(s.X)), 0) << "it fits as it is";
  attnlab::paste_matrix_resizing_tokens(s, "X", text);
  EXPECT_EQ(s.n_x(), n + 2);
  EXPECT_EQ(s.X, bigger);
  EXPECT_EQ(s.tokens.size(), std::size_t(n + 2));
  EXPECT_EQ(s.tokens.back(), "new2");
  EXPECT_NO_THROW(attnlab::compute(s));

  Scenario c = attnlab::with_layout(preset("vaswani-q2-is-attends"), attnlab::Layout::columns);
  const Matrix fewer = c.X.leftCols(c.n_x() - 1);
  EXPECT_EQ(attnlab::paste_token_count(c, "X", attnlab::matrix_to_csv(fewer)), c.n_x() - 1);
  attnlab::paste_matrix_resizing_tokens(c, "X", attnlab::matrix_to_csv(fewer));
  EXPECT_EQ(c.X, fewer);
  EXPECT_NO_THROW(attnlab::compute(c));
  const Matrix wider = Matrix::Ones(c.X.rows() + 1, c.X.cols() + 1);
  EXPECT_EQ(attnlab::paste_token_count(c, "X", attnlab::matrix_to_csv(wider)), 0) << "a width is no token count";
  expect_refused([&] { attnlab::paste_matrix_resizing_tokens(c, "X", attnlab::matrix_to_csv(wider)); }, "X");
}

// Typed slopes, one per head, become the scenario's; an empty line gives the paper's back.
TEST(ScenarioEdits, AlibiSlopesAreTyped) {
  Scenario s = preset("vaswani-q2-is-attends");
  attnlab::set_alibi(s, true);
  std::string typed;
  std::vector<double> want;
  for (int h = 0; h < s.head_count(); ++h) {
    typed += (h ? " " : "") + std::to_string(0.25 * (h + 1));
    want.push_back(0.25 * (h + 1));
  }
  attnlab::set_alibi_slopes(s, typed);
  EXPECT_EQ(s.alibi->slopes, want);
  const attnlab::Trace t = attnlab::compute(s);
  EXPECT_EQ(t.slopes, want) << "the trace uses the typed slopes";
  attnlab::set_alibi_slopes(s, "  ");
  EXPECT_TRUE(s.alibi->slopes.empty()) << "an empty line: the paper's slopes";
}

// QK-norm's 1 + w keeps the gains: switching it rewrites the weights, the trace does not move.
TEST(ScenarioEdits, QkNormsPlusOneKeepsTheGains) {
  Scenario s = preset("vaswani-q3-two-heads");
  attnlab::set_qk_norm(s, true);
  s.qk_norm->w_q = Vector::LinSpaced(attnlab::resolve(s).d_k, 0.5, 1.5);
  const attnlab::Trace before = attnlab::compute(s);
  attnlab::set_qk_norm_plus_one(s, true);
  EXPECT_NEAR(s.qk_norm->w_q(0), -0.5, 1e-15);
  const attnlab::Trace after = attnlab::compute(s);
  EXPECT_LE((after.output - before.output).cwiseAbs().maxCoeff(), 1e-14);
  attnlab::set_qk_norm_scope(s, attnlab::QkNorm::Scope::width);
  EXPECT_EQ(s.qk_norm->w_q.size(), 0) << "the weights of one head do not fit the width";
  attnlab::validate(s);
}

// LongRoPE's factors start at one per pair (R/2) and are typed on a line.
TEST(ScenarioEdits, LongropeFactorsFitThePairs) {
  Scenario s = preset("vaswani-q3-two-heads");
  attnlab::set_rope(s, true);
  attnlab::set_rope_scaling(s, attnlab::RopeScaling::Kind::longrope);
  EXPECT_EQ(int(s.rope->scaling.long_factors.size()), attnlab::resolve(s).d_k / 2);
  attnlab::validate(s);
  attnlab::set_rope_scaling_factors(s, true, "3");
  EXPECT_EQ(s.rope->scaling.long_factors, std::vector<double>{3.0});
}

TEST(ScenarioEdits, RefusalsNameTheField) {
  Scenario s = preset("vaswani-q2-is-attends");
  expect_refused([&] { attnlab::toggle_mask_cell(s, 99, 0); }, "mask.cells");
  expect_refused([&] { attnlab::set_mask_window(s, -1); }, "mask.window");
  expect_refused([&] { attnlab::set_padding(s, s.n_z(), true); }, "mask.padding");
  expect_refused([&] { attnlab::set_positions(s, Sequence::X, "1 x"); }, "positions");
  expect_refused([&] { attnlab::set_positions(s, Sequence::X, "-3"); }, "positions");
  expect_refused([&] { attnlab::set_positions(s, Sequence::Z, "1"); }, "context_positions");
  expect_refused([&] { attnlab::set_rope_base(s, 100); }, "rope");
  expect_refused([&] { attnlab::set_alibi_slopes(s, "0.5"); }, "alibi");
  attnlab::set_alibi(s, true);
  expect_refused([&] { attnlab::set_alibi_slopes(s, "0.5 x"); }, "alibi[1]");
  expect_refused([&] { attnlab::set_alibi_slopes(s, "-0.5"); }, "alibi[0]");
  expect_refused([&] { attnlab::set_alibi_slopes(s, "inf"); }, "alibi[0]");
  expect_refused([&] { attnlab::set_alibi_slopes(s, std::string(s.head_count() + 1, '1').insert(1, " ")); }, "alibi");
  attnlab::set_alibi(s, false);
  attnlab::set_rope(s, true);
  expect_refused([&] { attnlab::set_rope_base(s, 1); }, "rope.base");
  expect_refused([&] { attnlab::set_rope_dims(s, -2); }, "rope.dims");
  expect_refused([&] { attnlab::set_rope_scaling_number(s, "factor", 0); }, "rope.scaling.factor");
  expect_refused([&] { attnlab::set_rope_scaling_number(s, "theta", 2); }, "rope.scaling.theta");
  expect_refused([&] { attnlab::set_rope_scaling_factors(s, false, "1 x"); }, "rope.scaling.short_factors[1]");
  expect_refused([&] { attnlab::set_softcap(s, -1); }, "softcap");
  expect_refused([&] { attnlab::set_qk_norm_scope(s, attnlab::QkNorm::Scope::width); }, "qk_norm");
  expect_refused([&] { attnlab::set_scale(s, 0); }, "scale");
  expect_refused([&] { attnlab::set_temperature(s, -1); }, "scale");
  expect_refused([&] { attnlab::set_typed_head_count(s, "two"); }, "num_heads");
  expect_refused([&] { attnlab::set_typed_head_count(s, "0"); }, "num_heads");
  expect_refused([&] { attnlab::remove_matrix(s, "X"); }, "X");
  expect_refused([&] { attnlab::add_matrix(s, "Z"); }, "Z");
  expect_refused([&] { attnlab::add_matrix(s, "nosuch"); }, "nosuch");
  if (s.W_o) {
    expect_refused([&] { attnlab::add_matrix(s, "W_o"); }, "W_o");
    attnlab::remove_matrix(s, "W_o");
  }
  expect_refused([&] { attnlab::remove_matrix(s, "W_o"); }, "W_o");
  expect_refused([&] { attnlab::add_matrix(s, "b_o"); }, "b_o");
  expect_refused([&] { attnlab::paste_matrix(s, "X", "1 2\n3"); }, "X");
  expect_refused([&] { attnlab::paste_matrix(s, "X", "1"); }, "X");
  expect_refused([&] { attnlab::paste_matrix(s, "X", attnlab::matrix_to_csv(s.X * 1e7)); }, "X");
  expect_refused([&] { attnlab::set_matrix_cell(s, "X", 0, 0, 2e6); }, "X[0][0]");
  expect_refused([&] { attnlab::set_matrix_cell(s, "X", 99, 0, 1); }, "X[99][0]");
  EXPECT_EQ(attnlab::parse_head_count(" 4"), 4);
}

}  // namespace scenario_edits
}  // namespace test_edits
