// The one cell syntax (cell_ref.h): parsing, writing back, and the scenario numbers it names.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "attnlab/cell_ref.h"
#include "attnlab/edits.h"
#include "attnlab/model.h"
#include "attnlab/positions.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"
#include "attnlab/stage.h"
#include "test_support.h"

namespace test_cell_ref {

namespace {

using attnlab::CellRef;
using attnlab::Layout;
using attnlab::Scenario;
using attnlab::parse_cell_ref;

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

Scenario preset(const std::string& name) { return attnlab::load_scenario(attnlab::testing::preset_path(name)); }

TEST(CellRef, ParsesEveryShapeAndWritesItBack) {
  struct Case {
    const char* text;
    CellRef want;
  } cases[] = {
      {"scale", {"scale", -1, false, {}}},
      {"rope.base", {"rope.base", -1, false, {}}},
      {"alibi[3]", {"alibi", -1, false, {3}}},
      {"b_v[1]", {"b_v", -1, false, {1}}},
      {"X[0][1]", {"X", -1, false, {0, 1}}},
      {"heads[1].W_k[0][0]", {"W_k", 1, false, {0, 0}}},
      {"kv_heads[0].W_v[2][1]", {"W_v", 0, true, {2, 1}}},
      {"heads[12].weights[1][2]", {"weights", 12, false, {1, 2}}},
      {"output[0][-1]", {"output", -1, false, {0, -1}}},  // negative: refused by the reader
  };
  for (const Case& c : cases) {
    const CellRef got = parse_cell_ref(c.text);
    EXPECT_EQ(got, c.want) << c.text;
    EXPECT_EQ(got.text(), c.text);
    EXPECT_EQ(parse_cell_ref(got.text()), got) << "round trip of " << c.text;
  }
}

TEST(CellRef, AStageCellIsWrittenAsTheParserAndTheSensitivityReadIt) {
  const Scenario s = preset("vaswani-q3-two-heads");  // two heads
  const attnlab::Model m = attnlab::resolve(s);
  for (const attnlab::StageRow& row : attnlab::stage_table()) {
    const std::optional<CellRef> ref = attnlab::stage_cell_ref(row.id, 1, 0, 1);
    ASSERT_EQ(ref.has_value(), row.cell_name != nullptr) << row.name;
    if (!ref) continue;
    EXPECT_EQ(parse_cell_ref(ref->text()), *ref) << ref->text();
    EXPECT_EQ(ref->head, row.per_head ? 1 : -1) << ref->text();
    if (!row.target) continue;
    const attnlab::TraceCell cell = attnlab::trace_cell(m, s.layout, parse_cell_ref(ref->text()));
    EXPECT_EQ(cell.stage, row.id) << ref->text();
    EXPECT_EQ(cell.head, row.per_head ? 1 : -1) << ref->text();
  }
  EXPECT_EQ(attnlab::stage_cell_ref(attnlab::StageId::head_output, 1, 2, 0)->text(), "heads[1].output[2][0]");
  EXPECT_EQ(attnlab::stage_cell_ref(attnlab::StageId::output, 1, 2, 0)->text(), "output[2][0]");
  EXPECT_FALSE(attnlab::stage_cell_ref(attnlab::StageId::W_o, 0, 0, 0));
  EXPECT_EQ(parse_cell_ref("heads[1].W_q").at(0, 2).text(), "heads[1].W_q[0][2]");
}

TEST(CellRef, TheWindowsWordsCountHeadsFromZero) {
  EXPECT_EQ(attnlab::cell_ref_words(parse_cell_ref("heads[1].W_q[0][2]")), "W_q[0][2] of head 1");
  EXPECT_EQ(attnlab::cell_ref_words(parse_cell_ref("kv_heads[0].W_k[1][0]")),
            "W_k[1][0] of K/V head 0");
  EXPECT_EQ(attnlab::cell_ref_words(parse_cell_ref("output[0][1]")), "output[0][1]");
  EXPECT_EQ(attnlab::head_words(parse_cell_ref("heads[2].weights[0][0]")), "head 2");
  EXPECT_EQ(attnlab::head_words(parse_cell_ref("X[0][0]")), "");
}

TEST(CellRef, MalformedTextIsRefusedQuotingIt) {
  for (const char* bad : {"", "[0]", "X[", "X[0", "X[]", "X[a]", "X[0]]", "X[0][1][2]", "X [0]", "heads[1]W_q",
                          "heads[1].", "heads[x].W_q", "1X", "X[0]x", "X[1234567890]", "rope.", "W_q[0][1]=2"}) {
    const std::string why = refusal([&] { parse_cell_ref(bad); });
    EXPECT_NE(why.find(std::string("cell \"") + bad + "\""), std::string::npos) << why;
  }
  EXPECT_EQ(refusal([] { parse_cell_ref("heads[-1].W_q[0][0]"); }), "heads[-1].W_q: expected a head index h >= 0");
}

TEST(CellRef, ReadsAndWritesMatrixAndBiasCellsAsStored) {
  Scenario s = attnlab::testing::random_scenario(3, 4, 2, 5);
  EXPECT_EQ(attnlab::scenario_value(s, parse_cell_ref("X[2][1]")), s.X(2, 1));
  attnlab::set_scenario_value(s, parse_cell_ref("W_q[1][3]"), -2.0);
  EXPECT_EQ((*s.full.W_q)(1, 3), -2.0);
  // A bias: [i] is its entry; [row][col] as it is shown (a row in the rows layout).
  attnlab::set_scenario_value(s, parse_cell_ref("b_q[2]"), 0.25);
  EXPECT_EQ((*s.full.b_q)(2), 0.25);
  EXPECT_EQ(attnlab::scenario_value(s, parse_cell_ref("b_q[0][2]")), 0.25);
  Scenario c = attnlab::with_layout(s, Layout::columns);
  EXPECT_EQ(attnlab::scenario_value(c, parse_cell_ref("b_q[2][0]")), 0.25);
  EXPECT_EQ(attnlab::scenario_value(c, parse_cell_ref("X[1][2]")), s.X(2, 1)) << "columns: X is stored transposed";

  Scenario h = preset("udl-12-2-multihead");
  attnlab::set_scenario_value(h, parse_cell_ref("heads[1].W_k[0][0]"), 1.5);
  EXPECT_EQ((*h.heads[1].W_k)(0, 0), 1.5);
  EXPECT_EQ(attnlab::scenario_value(h, parse_cell_ref("heads[1].W_k[0][0]")), 1.5);
}

TEST(CellRef, RefusalsNameTheReferenceAndTheShape) {
  Scenario s = attnlab::testing::random_scenario(3, 4, 1, 5);
  const Scenario kept = s;
  const auto value = [&](const char* text) { return refusal([&] { attnlab::scenario_value(s, parse_cell_ref(text)); }); };
  EXPECT_EQ(value("X[9][0]"), "X[9][0]: no such cell in a 3x4 matrix");
  EXPECT_EQ(value("X[1]"), "X[1]: a matrix cell takes two indices, X[row][col]");
  EXPECT_EQ(value("b_q[4]"), "b_q[4]: no such entry in a vector of 4");
  EXPECT_EQ(value("X"), "X: expected X[row][col]");
  EXPECT_EQ(value("W_x[0][0]"), "W_x: no such matrix (X, Z, W_q, W_k, W_v, b_q, b_k, b_v, W_o, b_o, or heads[h].W_q for head h's own)");
  EXPECT_EQ(value("b_k[0]"), "b_k: omitted (zeros); add it before editing a cell");
  EXPECT_EQ(value("heads[0].W_q[0][0]"), "heads[0].W_q: this scenario has no per-head weights; edit the full W_q");
  EXPECT_EQ(value("scale[0]"), "scale[0]: expected scale");
  EXPECT_EQ(value("rope.base"), "rope.base: the scenario has no RoPE");
  EXPECT_EQ(value("alibi[0]"), "alibi[0]: the scenario has no ALiBi");
  const auto set = [&](const char* text, double v) { return refusal([&] { attnlab::set_scenario_value(s, parse_cell_ref(text), v); }); };
  EXPECT_EQ(set("X[0][0]", NAN), "X[0][0]: expected a finite value between -1e6 and 1e6, got nan");
  EXPECT_EQ(set("X[0][0]", 2e6), "X[0][0]: expected a finite value between -1e6 and 1e6, got 2000000");
  EXPECT_EQ(set("scale", 0), "scale: expected a positive number up to 1e12, got 0");
  EXPECT_EQ(set("scale", INFINITY), "scale: expected a positive number up to 1e12, got inf");
  EXPECT_EQ(attnlab::scenario_to_json(s), attnlab::scenario_to_json(kept)) << "a refused write changes nothing";
}

TEST(CellRef, ScaleRopeBaseAndAlibiSlopes) {
  Scenario s = preset("udl-12-2-multihead");
  const double d_k = double(attnlab::resolve(s).d_k);
  EXPECT_NEAR(attnlab::scenario_value(s, parse_cell_ref("scale")), 1 / std::sqrt(d_k), 1e-15);
  attnlab::set_scenario_value(s, parse_cell_ref("scale"), 0.25);
  EXPECT_EQ(s.scale.kind, attnlab::Scale::Kind::value);
  EXPECT_EQ(attnlab::resolve(s).scale, 0.25);

  Scenario r = preset("modern-llama-gqa-rope");
  attnlab::set_scenario_value(r, parse_cell_ref("rope.base"), 100.0);
  EXPECT_EQ(r.rope->base, 100.0);
  EXPECT_NE(refusal([&] { attnlab::set_scenario_value(r, parse_cell_ref("rope.base"), 1.0); }).find("rope.base: expected a number above 1"),
            std::string::npos);

  Scenario a = preset("modern-alibi-slopes");
  a.alibi->slopes.clear();  // the paper's slopes, implied
  const std::vector<double> paper = attnlab::positional::alibi_slopes(a.head_count());
  EXPECT_EQ(attnlab::scenario_value(a, parse_cell_ref("alibi[1]")), paper[1]);
  EXPECT_TRUE(a.alibi->slopes.empty()) << "reading leaves the slopes implied";
  attnlab::set_scenario_value(a, parse_cell_ref("alibi[1]"), 0.0);
  ASSERT_EQ(a.alibi->slopes.size(), paper.size());
  EXPECT_EQ(a.alibi->slopes[0], paper[0]) << "the other slopes made explicit unchanged";
  EXPECT_EQ(a.alibi->slopes[1], 0.0);
  EXPECT_NE(refusal([&] { attnlab::scenario_value(a, parse_cell_ref("alibi[9]")); }).find("alibi[9]: no such head"), std::string::npos);
  EXPECT_NE(refusal([&] { attnlab::set_scenario_value(a, parse_cell_ref("alibi[0]"), -1); }).find("alibi[0]: expected a slope"),
            std::string::npos);
}

}  // namespace

}  // namespace test_cell_ref
