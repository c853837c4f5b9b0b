// FlashAttention-2's forward loop (core/include/attnlab/flash.h, attnlab-cli flash) against an
// independent NumPy online softmax (scripts/gen_fixtures_flash.py, tests/fixtures/flash/*.json) on
// random scenarios with every kind of mask, ALiBi, GQA, RoPE and cross-attention: every tile's m, l,
// alpha and O, the skipped tiles, and the finished output equal to compute()'s head output.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/flash.h"
#include "attnlab/number_format.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_flash {

namespace {

using namespace attnlab;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr double kReferenceTolerance = 1e-12;  // relative to max(1, |reference|): NumPy vs core
constexpr double kComputeTolerance = 1e-12;    // relative, the finished output vs compute()'s
constexpr std::size_t kMinFlashFixtures = 20;  // gen_fixtures_flash.py writes 21

fs::path fixture_dir() { return fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "fixtures"; }

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  return json::parse(in);
}

std::vector<std::string> flash_fixtures() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fixture_dir() / "flash", ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// |a - b| / max(1, |b|) over the entries of `actual` against `expected` (null = -infinity), with
/// infinities required to match exactly; the largest error goes into `max_err`.
void compare(const std::string& what, const json& expected, const nlohmann::ordered_json& actual, double& max_err) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].is_array()) {
      compare(what + "[" + std::to_string(i) + "]", expected[i], actual[i], max_err);
      continue;
    }
    ASSERT_EQ(expected[i].is_null(), actual[i].is_null()) << what << "[" << i << "]";
    if (expected[i].is_null()) continue;
    const double b = expected[i].get<double>(), a = actual[i].get<double>();
    const double err = std::abs(a - b) / std::max(1.0, std::abs(b));
    max_err = std::max(max_err, err);
    EXPECT_LE(err, kReferenceTolerance) << what << "[" << i << "]: " << a << " vs " << b;
  }
}

/// The largest |a - b| / max |b| between the run's output and the trace's head output.
double relative_to_compute(const FlashRun& run, const Trace& t) {
  const Matrix& Y = t.heads[std::size_t(run.head)].output;
  const Matrix expected = t.layout == Layout::rows ? Y : Matrix(Y.transpose());
  const double scale = std::max(expected.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  return (run.output - expected).cwiseAbs().maxCoeff() / scale;
}

class FlashFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(FlashFixture, EveryTileMatchesTheNumPyOnlineSoftmaxAndTheOutputEqualsCompute) {
  const json doc = read_json(fixture_dir() / "flash" / GetParam());
  const json source = read_json(fixture_dir() / doc.at("fixture").get<std::string>());
  const Trace trace = compute(scenario_from_json(source.at("scenario")));
  double max_ref = 0, max_compute = 0;
  for (const json& expected : doc.at("runs")) {
    const int head = expected.at("head").get<int>() - 1;
    const int br = expected.at("block")[0].get<int>(), bc = expected.at("block")[1].get<int>();
    const std::string name = "head " + std::to_string(head + 1) + " " + std::to_string(br) + "x" + std::to_string(bc);
    const FlashRun run = flash_attention(trace, head, br, bc);
    const nlohmann::ordered_json actual = flash_to_json(run);
    EXPECT_EQ(actual.at("skipped").get<int>(), expected.at("skipped").get<int>()) << name;
    ASSERT_EQ(actual.at("tiles").size(), expected.at("tiles").size()) << name;
    for (std::size_t k = 0; k < expected.at("tiles").size(); ++k) {
      const json& e = expected["tiles"][k];
      const auto& a = actual["tiles"][k];
      const std::string tile = name + " tile " + std::to_string(k);
      EXPECT_EQ(a.at("q_block").get<int>(), e.at("q_block").get<int>()) << tile;
      EXPECT_EQ(a.at("k_block").get<int>(), e.at("k_block").get<int>()) << tile;
      EXPECT_EQ(a.at("skipped").get<bool>(), e.at("skipped").get<bool>()) << tile << ": skipped exactly when all its scores are masked";
      for (const char* key : {"m", "l", "alpha", "O"}) compare(tile + " " + key, e.at(key), a.at(key), max_ref);
    }
    compare(name + " output", expected.at("output"), actual.at("output"), max_ref);
    const double err = relative_to_compute(run, trace);
    max_compute = std::max(max_compute, err);
    EXPECT_LE(err, kComputeTolerance) << name << ": finished output vs compute()'s head output";
  }
  std::cout << "[ flash ] " << GetParam() << ": max relative error vs NumPy " << max_ref << ", vs compute "
            << max_compute << "\n";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FlashFixture, ::testing::ValuesIn(flash_fixtures()), [](const auto& info) {
  std::string s = fs::path(info.param).stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FlashFixture);

/// A fixture number, null for -infinity.
double number(const json& v) { return v.is_null() ? -std::numeric_limits<double>::infinity() : v.get<double>(); }

/// |a - b| / max(1, |b|), 0 when both are the same infinity; the largest goes into `max_err`.
void expect_close(const std::string& what, double a, double b, double& max_err) {
  const double err = a == b ? 0.0 : std::abs(a - b) / std::max(1.0, std::abs(b));
  max_err = std::max(max_err, err);
  EXPECT_LE(err, kReferenceTolerance) << what << ": " << a << " vs " << b;
}

/// Row r of a fixture tile's O in the fixture's layout (a column in the columns layout).
double o_of(const json& tile, std::size_t r, std::size_t c, bool rows) { return rows ? tile["O"][r][c] : tile["O"][c][r]; }

/// flash_row_step() for every query of every tile of `expected` (a fixture run): the state before
/// from the NumPy loop's previous tile, the tile's largest score from the source fixture's masked
/// scores, m and alpha from the NumPy tile.
void check_row_steps(const Trace& t, const json& masked, const json& expected, double& max_err) {
  const int head = expected.at("head").get<int>() - 1;
  const FlashRun run = flash_attention(t, head, expected["block"][0], expected["block"][1]);
  const bool rows = t.layout == Layout::rows;
  const json& tiles = expected.at("tiles");
  ASSERT_EQ(run.tiles.size(), tiles.size());
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    const FlashTile& tile = run.tiles[k];
    for (Eigen::Index r = 0; r < tile.rows; ++r) {
      const FlashRowStep x = flash_row_step(run, t, k, tile.row0 + r);
      const std::string at =
          "head " + std::to_string(head + 1) + " tile " + std::to_string(k) + " row " + std::to_string(r);
      const json* before = tile.k_block > 0 ? &tiles[k - 1] : nullptr;
      expect_close(at + " m before", x.m_before, before ? number((*before)["m"][r]) : number(nullptr), max_err);
      EXPECT_EQ(x.nothing_seen(), !before || (*before)["m"][r].is_null()) << at;
      expect_close(at + " l before", x.l_before, before ? number((*before)["l"][r]) : 0.0, max_err);
      for (Eigen::Index c = 0; c < x.o_before.size(); ++c)
        expect_close(at + " o before", x.o_before(c),
                     before ? o_of(*before, std::size_t(r), std::size_t(c), rows) : 0.0, max_err);
      double top = -std::numeric_limits<double>::infinity();
      for (Eigen::Index j = tile.col0; j < tile.col0 + tile.cols; ++j) {
        const std::size_t i = std::size_t(tile.row0 + r);
        top = std::max(top, number(rows ? masked[i][std::size_t(j)] : masked[std::size_t(j)][i]));
      }
      expect_close(at + " tile max", x.tile_max, top, max_err);
      expect_close(at + " m", x.m, number(tiles[k]["m"][r]), max_err);
      expect_close(at + " alpha", x.alpha, number(tiles[k]["alpha"][r]), max_err);
    }
  }
}

TEST_P(FlashFixture, EveryRowStepHasTheNumPyStateBeforeTheTilesMaxAndTheRescale) {
  const json doc = read_json(fixture_dir() / "flash" / GetParam());
  const json source = read_json(fixture_dir() / doc.at("fixture").get<std::string>());
  const Trace trace = compute(scenario_from_json(source.at("scenario")));
  double max_err = 0;
  for (const json& expected : doc.at("runs")) {
    const std::size_t head = expected.at("head").get<std::size_t>() - 1;
    check_row_steps(trace, source.at("expected").at("heads").at(head).at("masked"), expected, max_err);
  }
  std::cout << "[ flash_row_step ] " << GetParam() << ": max relative error vs NumPy " << max_err << "\n";
}

TEST(FlashFixtures, AreThere) {
  EXPECT_GE(flash_fixtures().size(), kMinFlashFixtures) << "run /usr/bin/python3 scripts/gen_fixtures_flash.py";
}

/// A causal head of 8 tokens, d_k = d_v = 4 (one head of width 4).
Trace causal_eight() {
  Scenario s = attnlab::testing::random_scenario(8, 4, 1, 7);
  s.mask.causal = true;
  return compute(s);
}

TEST(Flash, CausalTwoByTwoSkipsTheTilesAboveTheDiagonalAndCountsMemoryExactly) {
  const FlashRun run = flash_attention(causal_eight(), 0, 2, 2);
  ASSERT_EQ(run.tiles.size(), 16u);
  EXPECT_EQ(run.skipped, 6);  // 4 x 4 tiles, the 6 strictly above the diagonal
  for (const FlashTile& tile : run.tiles) EXPECT_EQ(tile.skipped, tile.k_block > tile.q_block);
  // Tiled: Q read once (8 x 4), K and V blocks (2 x (4 + 4)) for the 10 computed tiles, O written once.
  EXPECT_EQ(run.memory.tiled_read, 8 * 4 + 10 * 2 * 8);
  EXPECT_EQ(run.memory.tiled_written, 8 * 4);
  // Standard: Q, K read; S written and read; A written and read with V; O written.
  EXPECT_EQ(run.memory.standard_read, 32 + 32 + 64 + 64 + 32);
  EXPECT_EQ(run.memory.standard_written, 64 + 64 + 32);
  EXPECT_NE(flash_memory_line(run.memory).find("tiled: 192 elements read, 32 written; standard: 224 read, 160"),
            std::string::npos)
      << flash_memory_line(run.memory);
}

TEST(Flash, ARowBeforeItsFirstVisibleKeyHasMinusInfinityZeroAndAlphaZero) {
  const FlashRun run = flash_attention(causal_eight(), 0, 1, 1);
  const FlashTile& first = run.tiles[0];  // query 0, key 0: the first key it sees
  EXPECT_EQ(first.alpha(0), 0.0);
  EXPECT_EQ(first.l(0), 1.0);  // exp(S - m) with m = S
  const FlashTile& skipped = run.tiles[1];  // query 0, key 1: masked, m carries over
  EXPECT_TRUE(skipped.skipped);
  EXPECT_EQ(skipped.alpha(0), 1.0);
  EXPECT_EQ(skipped.m(0), first.m(0));
}

TEST(Flash, BlocksLargerThanTheSequenceAreOneTile) {
  const FlashRun run = flash_attention(causal_eight(), 0, 100, 9);
  ASSERT_EQ(run.tiles.size(), 1u);
  EXPECT_EQ(run.tiles[0].rows, 8);
  EXPECT_EQ(run.tiles[0].cols, 8);
  EXPECT_LE(relative_to_compute(run, causal_eight()), kComputeTolerance);
}

TEST(Flash, RefusesBlocksBelowOneAndHeadsOutOfRange) {
  const Trace t = causal_eight();
  EXPECT_THROW(flash_attention(t, 0, 0, 2), std::invalid_argument);
  EXPECT_THROW(flash_attention(t, 0, 2, -1), std::invalid_argument);
  EXPECT_THROW(flash_attention(t, 1, 2, 2), std::invalid_argument);
  EXPECT_THROW(flash_attention(t, -1, 2, 2), std::invalid_argument);
}

TEST(Flash, ARowStepRefusesATileOrAQueryOutsideTheRun) {
  const Trace t = causal_eight();
  const FlashRun run = flash_attention(t, 0, 2, 2);
  EXPECT_THROW(flash_row_step(run, t, 16, 0), std::out_of_range);
  EXPECT_THROW(flash_row_step(run, t, 5, 0), std::out_of_range);  // tile 5 is (1, 1): queries 2-3
  EXPECT_EQ(flash_row_step(run, t, 5, 3).m_before, run.tiles[4].m(1));
  EXPECT_TRUE(flash_row_step(run, t, 4, 3).nothing_seen());  // (1, 0): the block's first tile
}

TEST(FlashCli, WritesTheRunAsJsonWithTheHeadZeroBasedAndNullForMinusInfinity) {
  const auto r = attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " flash " +
                                          attnlab::testing::preset_path("modern-mistral-sliding-window") + " --block 3x3");
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("head"), 0);  // counted from 0, as everywhere (numbering.h)
  EXPECT_EQ(doc.at("block"), json::array({3, 3}));
  ASSERT_EQ(doc.at("tiles").size(), 9u);  // 8 tokens: blocks of 3, 3, 2
  EXPECT_TRUE(doc["tiles"][1]["skipped"].get<bool>());
  EXPECT_EQ(doc["tiles"][0]["O"].size(), 3u);
  EXPECT_EQ(doc.at("memory").at("unit"), "elements");
  const Trace t = compute(load_scenario(attnlab::testing::preset_path("modern-mistral-sliding-window")));
  const Matrix& Y = t.heads[0].output;
  ASSERT_EQ(doc.at("output").size(), std::size_t(Y.rows()));
  for (Eigen::Index i = 0; i < Y.rows(); ++i)
    for (Eigen::Index j = 0; j < Y.cols(); ++j)
      EXPECT_NEAR(doc["output"][i][j].get<double>(), Y(i, j), 1e-12 * std::max(1.0, std::abs(Y(i, j))));
}

TEST(FlashCli, TextListsEveryTileAndTheMemoryLine) {
  const auto r = attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " flash " +
                                          attnlab::testing::preset_path("phuong-hutter-alg4-masked") + " --block 2x2 --format text");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* text : {"head 0, blocks 2x2: 4 tiles", "(1, 1)", " alpha", "memory: tiled:"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  // A table: a header, then one line per query of each computed tile and one per skipped tile (3
  // queries: tile (0, 0) 2 lines, the skipped (0, 1) and (1, 0) one each, (1, 1) one): 1 + 5 lines.
  const std::size_t table = r.out.find("tile "), output = r.out.find("\noutput =");
  ASSERT_NE(table, std::string::npos);
  EXPECT_EQ(std::count(r.out.begin() + long(table), r.out.begin() + long(output), '\n'), 1 + 5) << r.out;
}

TEST(FlashCli, AColumnsLayoutFileGetsOAndOutputInColumns) {
  const auto r = attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " flash " +
                                          attnlab::testing::preset_path("phuong-hutter-alg4-masked") + " --block 64x64");
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  const Trace t = compute(load_scenario(attnlab::testing::preset_path("phuong-hutter-alg4-masked")));
  EXPECT_EQ(doc.at("output").size(), std::size_t(t.heads[0].output.rows()));     // d_v rows
  EXPECT_EQ(doc.at("output")[0].size(), std::size_t(t.heads[0].output.cols()));  // one column per query
}

}  // namespace

}  // namespace test_flash
