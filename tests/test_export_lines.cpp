// Attention as lines (attnlab/export/lines.h, `attnlab-cli export --what lines`): the SVG's lines
// read back, each one's opacity against the trace's weight of its head, query and key.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <tuple>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/export/lesson_slides.h"
#include "attnlab/export/lines.h"
#include "attnlab/lesson.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_export_lines {

namespace {

namespace fs = std::filesystem;
using namespace attnlab;
using namespace attnlab::exporter;

using Line = std::tuple<int, int, int>;  // head, query, key

/// Every <line class="attention"> of an SVG: (head, query, key) -> stroke-opacity.
std::map<Line, double> svg_lines(const std::string& svg) {
  static const std::regex line(
      "<line class=\"attention\" data-head=\"(\\d+)\" data-query=\"(\\d+)\" data-key=\"(\\d+)\"[^>]*"
      "stroke-opacity=\"([^\"]+)\"/>");
  std::map<Line, double> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line); it != std::sregex_iterator(); ++it) {
    const Line key{std::stoi((*it)[1]), std::stoi((*it)[2]), std::stoi((*it)[3])};
    EXPECT_EQ(out.count(key), 0u) << "a second line for head " << std::get<0>(key);
    out[key] = std::stod((*it)[4]);
  }
  return out;
}

/// Checks the lines against the trace: one per (head, query, key) whose weight is at least
/// kMinLineWeight, its opacity the weight to the 6 significant digits written, none for smaller
/// weights. `only_head` -1: every head. Returns how many lines were checked.
int check_lines(const std::string& svg, const Scenario& s, const Trace& t, int only_head) {
  const std::map<Line, double> lines = svg_lines(svg);
  const bool rows = s.layout == Layout::rows;
  double worst = 0;
  std::size_t expected = 0;
  for (int h = 0; h < int(t.heads.size()); ++h) {
    if (only_head >= 0 && h != only_head) continue;
    const Matrix& w = t.heads[std::size_t(h)].weights;  // rows: n_x by n_z; columns: n_z by n_x
    const int n_x = int(rows ? w.rows() : w.cols()), n_z = int(rows ? w.cols() : w.rows());
    for (int i = 0; i < n_x; ++i)
      for (int j = 0; j < n_z; ++j) {
        const double weight = rows ? w(i, j) : w(j, i);
        const auto it = lines.find({h, i, j});
        if (weight < kMinLineWeight) {
          EXPECT_EQ(it, lines.end()) << "head " << h << " query " << i << " key " << j << " weight " << weight;
          continue;
        }
        ++expected;
        if (it == lines.end()) {
          ADD_FAILURE() << "no line for head " << h << " query " << i << " key " << j << " weight " << weight;
          continue;
        }
        worst = std::max(worst, std::fabs(it->second - weight) / weight);
      }
  }
  EXPECT_EQ(lines.size(), expected) << "lines of other heads, or outside the matrices";
  std::printf("%zu lines, largest relative error of an opacity %.3g\n", lines.size(), worst);
  EXPECT_LE(worst, 5e-6);
  return int(expected);
}

TEST(ExportLines, OpacitiesAreTheWeightsOfEveryHead) {
  const Scenario s = load_scenario(attnlab::testing::preset_path("vaswani-q3-two-heads"));
  const Trace t = compute(s);
  ASSERT_EQ(t.heads.size(), 2u);
  EXPECT_EQ(check_lines(lines_svg(lines_figure(s, t)), s, t, -1), 2 * 3 * 3);
  EXPECT_GT(check_lines(lines_svg(lines_figure(s, t, 1)), s, t, 1), 0);
}

// Cross-attention: queries from X on the left, keys from Z on the right; in the columns layout
// the weights transposed from the file's. Four heads (columns, 3 queries, 3 keys); one query
// against three keys (columns) and two against four (rows), where a transposition would show.
TEST(ExportLines, CrossAttention) {
  for (const char* name : {"phuong-hutter-alg5-multihead", "phuong-hutter-alg3-single-query",
                           "vaswani-q1-decoder-over-encoder"}) {
    SCOPED_TRACE(name);
    const Scenario s = load_scenario(attnlab::testing::preset_path(name));
    ASSERT_TRUE(s.cross_attention());
    const Trace t = compute(s);
    const LinesFigure f = lines_figure(s, t);
    EXPECT_EQ(f.queries, s.tokens);
    EXPECT_EQ(f.keys, s.context_tokens);
    check_lines(lines_svg(f), s, t, -1);
  }
}

// The CLI writes the same lines: --what lines --head 2, and lines beside a stage's figure.
TEST(ExportLines, CliWritesTheLinesFigure) {
  static const attnlab::testing::ScratchDir scratch("attnlab_export_lines_");
  const fs::path out = scratch.fresh("cli");
  const std::string file = attnlab::testing::preset_path("phuong-hutter-alg5-multihead");
  const auto r = attnlab::testing::run_shell("env -u DISPLAY " + std::string(ATTNLAB_CLI) + " export " + file +
                                             " --what weights,lines --head 2 --format png,svg --out " + out.string() +
                                             " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* name : {"head2_lines.svg", "head2_lines.png", "head2_weights.svg"})
    EXPECT_TRUE(fs::exists(out / name)) << name;
  std::ifstream in(out / "head2_lines.svg");
  const std::string svg{std::istreambuf_iterator<char>(in), {}};
  const Scenario s = load_scenario(file);
  check_lines(svg, s, compute(s), 2);
  const auto csv = attnlab::testing::run_shell(std::string(ATTNLAB_CLI) + " export " + file +
                                               " --what lines --format csv --out " + (out / "csv").string() + " 2>&1");
  EXPECT_EQ(csv.status, 2);
  EXPECT_NE(csv.out.find("--what lines draws --format png or svg, got 'csv'"), std::string::npos) << csv.out;
}

// A lesson's `lines` step: the step parses from a file's JSON and back; its slide draws the lines
// figure under the text, every head's without `head` (each head's swatch in its own colour, so
// its pixels are there exactly), head 1's alone with `"head": 1`.
TEST(ExportLines, LessonStepDrawsEveryHeadOrOne) {
  const Scenario s = load_scenario(attnlab::testing::preset_path("vaswani-q3-two-heads"));
  const Trace t = compute(s);
  const lesson::Lesson lesson =
      lesson::parse_lesson(nlohmann::json::parse(R"({"steps": [{"stage": "lines"}, {"stage": "lines", "head": 1}]})"));
  ASSERT_EQ(lesson.steps.size(), 2u);
  EXPECT_EQ(lesson.steps[0].kind, StageId::lines);
  EXPECT_EQ(lesson.steps[0].head, -1);
  EXPECT_EQ(lesson::to_json(lesson), nlohmann::json::parse(R"({"steps": [{"stage": "lines"}, {"stage": "lines", "head": 1}]})"));
  LessonDeck deck(s, t, lesson, SlideOptions{});
  auto count = [](const Canvas& c, Rgb8 rgb) {
    int n = 0;
    for (int y = 0; y < c.height(); ++y)
      for (int x = 0; x < c.width(); ++x) n += c.pixel(x, y) == Rgba8{rgb.r, rgb.g, rgb.b, 255};
    return n;
  };
  const Canvas every = deck.render(0, false), one = deck.render(1, false);
  std::printf("head 0's colour: %d and %d pixels, head 1's: %d and %d\n", count(every, HeadColor(0)),
              count(one, HeadColor(0)), count(every, HeadColor(1)), count(one, HeadColor(1)));
  EXPECT_GE(count(every, HeadColor(0)), 144);  // a 12 x 12 swatch at least
  EXPECT_GE(count(every, HeadColor(1)), 144);
  EXPECT_EQ(count(one, HeadColor(0)), 0);
  EXPECT_GE(count(one, HeadColor(1)), 144);
}

}  // namespace

}  // namespace test_export_lines
