// attnlab/trace_diff.h and `attnlab-cli compare`: identical traces differ by 0, a one-cell edit is
// found downstream of it only, shapes that differ are refused with one line, the columns layout
// reports the transposed cell, -inf against a finite value is "inf".
#include <algorithm>
#include <cmath>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/cell_ref.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_diff.h"
#include "test_support.h"

namespace test_trace_diff {

namespace {

namespace fs = std::filesystem;
using namespace attnlab;

/// The scenario with W_q[0][0] (as stored) moved by 0.75: in the rows layout, input 0's weight into
/// Q's column 0, which is head 0's.
Scenario with_wq00_edited(const Scenario& s) {
  Scenario b = s;
  const CellRef ref = parse_cell_ref("W_q[0][0]");
  set_scenario_value(b, ref, scenario_value(s, ref) + 0.75);
  return b;
}

const StageDiff& find(const std::vector<StageDiff>& d, const std::string& stage, int head) {
  for (const StageDiff& s : d)
    if (s.stage == stage && s.head == head) return s;
  throw std::runtime_error("no stage " + stage);
}

TEST(TraceDiff, IdenticalTracesDifferByZeroAtTheFirstCell) {
  const Trace t = compute(attnlab::testing::random_scenario(4, 6, 2, 3));
  const auto d = diff_traces(t, t);
  ASSERT_EQ(d.size(), 2 * 8 + 2u);  // Q K V scores scaled masked weights output per head, concat, output
  EXPECT_EQ(d.front().stage, "Q");
  EXPECT_EQ(d.back().stage, "output");
  EXPECT_EQ(d.back().head, -1);
  for (const StageDiff& s : d) {
    EXPECT_EQ(s.max_abs_diff, 0.0) << s.stage;
    EXPECT_EQ(s.row, 0);
    EXPECT_EQ(s.col, 0);
  }
}

TEST(TraceDiff, OneCellEditIsFoundDownstreamOnly) {
  const Scenario a = attnlab::testing::random_scenario(4, 6, 2, 11);
  const auto d = diff_traces(compute(a), compute(with_wq00_edited(a)));
  for (const char* stage : {"Q", "scores", "scaled", "masked", "weights", "output"})
    EXPECT_GT(find(d, stage, 0).max_abs_diff, 1e-9) << stage << " of head 0";
  for (const char* stage : {"K", "V"}) EXPECT_EQ(find(d, stage, 0).max_abs_diff, 0.0) << stage;
  for (const char* stage : {"Q", "K", "V", "scores", "weights", "output"})
    EXPECT_EQ(find(d, stage, 1).max_abs_diff, 0.0) << stage << " of head 1 (reads other columns of W_q)";
  EXPECT_GT(find(d, "concat", -1).max_abs_diff, 0.0);
  EXPECT_GT(find(d, "output", -1).max_abs_diff, 0.0);
  // Q changes in its column 0 only, by 0.75 X[i][0]: the largest where |X[i][0]| is.
  const StageDiff& q = find(d, "Q", 0);
  Eigen::Index i_max = 0;
  a.X.col(0).cwiseAbs().maxCoeff(&i_max);
  EXPECT_EQ(q.row, i_max);
  EXPECT_EQ(q.col, 0);
  const double err = std::fabs(q.max_abs_diff - 0.75 * std::fabs(a.X(i_max, 0)));
  EXPECT_LT(err, 1e-12) << "|max_abs_diff - 0.75 |X[i][0]|| = " << err;
}

TEST(TraceDiff, ColumnsLayoutReportsTheTransposedCell) {
  const Scenario a = attnlab::testing::random_scenario(5, 6, 2, 19), b = with_wq00_edited(a);
  const auto rows = diff_traces(compute(a), compute(b));
  const auto cols = diff_traces(compute(with_layout(a, Layout::columns)), compute(with_layout(b, Layout::columns)));
  ASSERT_EQ(rows.size(), cols.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(rows[k].stage, cols[k].stage);
    const double err = std::fabs(rows[k].max_abs_diff - cols[k].max_abs_diff);
    EXPECT_LT(err, 1e-9) << rows[k].stage << ": rows vs columns differ by " << err;
    if (rows[k].max_abs_diff == 0) continue;
    EXPECT_EQ(cols[k].row, rows[k].col) << rows[k].stage << " head " << rows[k].head;
    EXPECT_EQ(cols[k].col, rows[k].row) << rows[k].stage << " head " << rows[k].head;
  }
}

TEST(TraceDiff, MinusInfinityAgainstAFiniteValueIsInfinitelyFarAndInBothIsEqual) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(cell_abs_diff(-inf, -inf), 0.0);
  EXPECT_EQ(cell_abs_diff(-inf, 1.0), inf);
  EXPECT_EQ(cell_abs_diff(2.0, -inf), inf);
  EXPECT_EQ(cell_abs_diff(std::nan(""), std::nan("")), 0.0);
  EXPECT_EQ(cell_abs_diff(1.0, -2.5), 3.5);
  Scenario a = attnlab::testing::random_scenario(4, 6, 1, 5), b = a;
  a.mask.causal = true;  // key 1 masked for query 0 in a, not in b
  const auto d = diff_traces(compute(a), compute(a));
  EXPECT_EQ(find(d, "masked", 0).max_abs_diff, 0.0);  // -inf in both
  const auto d2 = diff_traces(compute(a), compute(b));
  const StageDiff& m = find(d2, "masked", 0);
  EXPECT_EQ(m.max_abs_diff, inf);
  EXPECT_EQ(m.row, 0);  // the first masked cell, row-major: query 0, key 1
  EXPECT_EQ(m.col, 1);
  EXPECT_TRUE(std::isfinite(find(d2, "weights", 0).max_abs_diff));
}

TEST(TraceDiff, ShapesThatDifferAreRefusedNamingTheFirstStage) {
  const Scenario a = attnlab::testing::random_scenario(4, 6, 2, 3);
  auto message = [](const Scenario& x, const Scenario& y) -> std::string {
    try {
      diff_traces(compute(x), compute(y));
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message(a, attnlab::testing::random_scenario(5, 6, 2, 3)), "heads[0].Q: 4x3 in A, 5x3 in B");
  EXPECT_EQ(message(a, attnlab::testing::random_scenario(4, 6, 1, 3)), "heads: 2 in A, 1 in B");
  EXPECT_EQ(message(a, with_layout(a, Layout::columns)), "layout: rows in A, columns in B");
}

// ---- attnlab-cli compare ------------------------------------------------------------------------

const attnlab::testing::ScratchDir scratch_dir("attnlab_compare_");

fs::path scratch() {
  fs::create_directories(scratch_dir.root());
  return scratch_dir.root();
}

using CliRun = attnlab::testing::Outputs;

CliRun cli(const std::string& args) { return attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " " + args); }

std::string saved(const Scenario& s, const std::string& name) {
  const fs::path path = scratch() / name;
  save_scenario(s, path.string());
  return path.string();
}

TEST(CompareCli, PrintsEveryStageAsJsonWithHeadNullForConcatAndOutput) {
  const Scenario a = attnlab::testing::random_scenario(4, 6, 2, 11);
  const std::string fa = saved(a, "a.json"), fb = saved(with_wq00_edited(a), "b.json");
  const CliRun same = cli("compare " + fa + " " + fa);
  ASSERT_EQ(same.status, 0) << same.err;
  const nlohmann::json identical = nlohmann::json::parse(same.out);  // kept: the loop iterates into it
  for (const auto& s : identical["stages"]) {
    EXPECT_EQ(s["max_abs_diff"], 0.0) << s.dump();
    EXPECT_EQ(s["at"], nlohmann::json({0, 0}));
  }
  const CliRun r = cli("compare " + fa + " " + fb);
  ASSERT_EQ(r.status, 0) << r.err;  // differing is not an error
  const auto stages = nlohmann::json::parse(r.out)["stages"];
  ASSERT_EQ(stages.size(), 18u);
  EXPECT_EQ(stages[0]["stage"], "Q");
  EXPECT_EQ(stages[0]["head"], 0);
  EXPECT_GT(stages[0]["max_abs_diff"].get<double>(), 0.0);
  EXPECT_EQ(stages[1]["stage"], "K");
  EXPECT_EQ(stages[1]["max_abs_diff"], 0.0);
  EXPECT_TRUE(stages[17]["head"].is_null());
  EXPECT_EQ(stages[17]["stage"], "output");
  EXPECT_TRUE(stages[16]["head"].is_null());
  EXPECT_EQ(stages[16]["stage"], "concat");
}

TEST(CompareCli, InfinityIsTheStringInf) {
  Scenario a = attnlab::testing::random_scenario(4, 6, 1, 5), b = a;
  a.mask.causal = true;
  const CliRun r = cli("compare " + saved(a, "causal.json") + " " + saved(b, "open.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);  // kept: the loop iterates into it
  for (const auto& s : report["stages"])
    if (s["stage"] == "masked") {
      EXPECT_EQ(s["max_abs_diff"], "inf");
    }
}

TEST(CompareCli, TextIsAnAlignedTable) {
  const Scenario a = attnlab::testing::random_scenario(4, 6, 2, 11);
  const CliRun r = cli("compare " + saved(a, "a.json") + " " + saved(with_wq00_edited(a), "b.json") + " --format text");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  const auto at_column = line.find("at");
  EXPECT_EQ(line.rfind("stage", 0), 0u) << line;
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    EXPECT_EQ(line.find('['), at_column) << line;  // every `at` starts under its header
  }
  EXPECT_EQ(rows, 18);
}

TEST(CompareCli, DifferentShapesAndInvalidFilesExitOneWithOneLine) {
  const std::string a = saved(attnlab::testing::random_scenario(4, 6, 2, 3), "a.json");
  const CliRun shape = cli("compare " + a + " " + saved(attnlab::testing::random_scenario(5, 6, 2, 3), "five.json"));
  EXPECT_EQ(shape.status, 1);
  EXPECT_TRUE(shape.out.empty());
  EXPECT_NE(shape.err.find("heads[0].Q: 4x3 in A, 5x3 in B"), std::string::npos) << shape.err;
  EXPECT_EQ(std::count(shape.err.begin(), shape.err.end(), '\n'), 1) << shape.err;
  std::ofstream(scratch() / "broken.json") << "{\"format\": ";
  const CliRun invalid = cli("compare " + a + " " + (scratch() / "broken.json").string());
  EXPECT_EQ(invalid.status, 1);
  EXPECT_EQ(std::count(invalid.err.begin(), invalid.err.end(), '\n'), 1) << invalid.err;
  EXPECT_EQ(cli("compare " + a).status, 2);  // bad usage: docs/HOSTILE_INPUT.md has the message
  // A path that cannot be read is invalid input (exit 1), as for validate, not bad usage.
  const std::string nonexistent = (scratch() / "nonexistent.json").string();
  const CliRun missing = cli("compare " + a + " " + nonexistent);
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(missing.out.empty());
  EXPECT_EQ(missing.err.rfind(nonexistent + ": ", 0), 0u) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_EQ(cli("compare " + a + " " + a + " --format csv").status, 2);
}

}  // namespace

}  // namespace test_trace_diff
