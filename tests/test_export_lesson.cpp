// attnlab/export/lesson_slides.h and `attnlab-cli export --lesson`: one 1920x1080 slide per step
// (3840x2160 at --scale 2), a predict slide before each reveal; the slide's cells have the
// colormap colour of the core's values, and a predict slide shows none of them. Every preset's
// slides draw large cells of one size within 0.7x, no text over a figure (issue 26); the PDF
// handout has one page per step, each page the step's slide.
#include <gtest/gtest.h>
#include <stb_image.h>  // implementation inside Debian's libstb.so

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/export/engine_figures.h"
#include "attnlab/export/lesson_slides.h"
#include "attnlab/export/pdf.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_export_lesson {

namespace {

namespace fs = std::filesystem;
using namespace attnlab;
using namespace attnlab::exporter;

// Width and height from a PNG's IHDR chunk.
std::pair<int, int> png_size(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char b[24] = {};
  in.read(reinterpret_cast<char*>(b), 24);
  auto be = [&b](int at) { return int(b[at]) << 24 | int(b[at + 1]) << 16 | int(b[at + 2]) << 8 | int(b[at + 3]); };
  return {be(16), be(20)};
}

// The colour of an attention weight in the exporter's default sequential map.
Rgba8 exporter_color(double weight) {
  const Rgb8 c = MapValue({Colormap::Viridis, 0.0, 1.0}, weight);
  return {c.r, c.g, c.b, 255};
}

int error(Rgba8 a, Rgba8 b) { return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)}); }

struct Slide {
  Scenario s;
  Trace t;
  lesson::Lesson lesson;
};

Slide load(const std::string& name) {
  Slide x;
  x.s = load_scenario(attnlab::testing::preset_path(name));
  x.t = compute(x.s);
  x.lesson = lesson::lesson_of(x.s);
  return x;
}

std::size_t step_of(const lesson::Lesson& lesson, StageId kind) {
  for (std::size_t i = 0; i < lesson.steps.size(); ++i)
    if (lesson.steps[i].kind == kind) return i;
  return lesson.steps.size();
}

TEST(ExportLesson, WeightsCellsHaveTheColourOfTheCoresWeights) {
  for (const char* name : {"vaswani-q2-is-attends", "udl-12-2-multihead"}) {
    const Slide x = load(name);
    const std::size_t i = step_of(x.lesson, StageId::weights);
    ASSERT_LT(i, x.lesson.steps.size()) << name;
    const int head = std::max(0, x.lesson.steps[i].head);
    const Matrix& w = x.t.heads[std::size_t(head)].weights;  // stored in the file's layout
    for (int scale : {1, 2}) {
      std::vector<SlideGrid> grids;
      const Canvas c = render_slide(x.s, x.t, x.lesson, i, false, {scale, 2, {}}, &grids);
      ASSERT_EQ(c.width(), kSlideWidth * scale);
      ASSERT_EQ(grids.size(), 1u);
      const SlideGrid& g = grids[0];
      ASSERT_EQ(g.rows, w.rows());
      const int cell = g.grid.w / g.cols, worst = [&] {
        int e = 0;
        for (int r = 0; r < g.rows; ++r)
          for (int col = 0; col < g.cols; ++col) {
            // Near a corner: clear of the value printed in the middle and of a highlight frame.
            const Rgba8 got = c.pixel(g.grid.x + col * cell + cell / 5, g.grid.y + r * cell + cell - cell / 5);
            e = std::max(e, error(got, exporter_color(w(r, col))));
          }
        return e;
      }();
      EXPECT_LE(worst, 2) << name << " at scale " << scale;
    }
  }
}

TEST(ExportLesson, APredictSlideShowsNoneOfTheHiddenColours) {
  const Slide x = load("vaswani-q2-is-attends");
  const std::size_t i = step_of(x.lesson, StageId::weights);
  ASSERT_TRUE(x.lesson.steps[i].predict);
  std::vector<SlideGrid> grids;
  const Canvas c = render_slide(x.s, x.t, x.lesson, i, true, {}, &grids);
  const Matrix& w = x.t.heads[0].weights;
  std::set<std::uint32_t> hidden;
  for (Eigen::Index k = 0; k < w.size(); ++k) {
    const Rgba8 v = exporter_color(w.data()[k]);
    hidden.insert(std::uint32_t(v.r) << 16 | std::uint32_t(v.g) << 8 | v.b);
  }
  long leaked = 0, grey = 0;
  for (int y = 0; y < c.height(); ++y)
    for (int x0 = 0; x0 < c.width(); ++x0) {
      const Rgba8 p = c.pixel(x0, y);
      leaked += hidden.count(std::uint32_t(p.r) << 16 | std::uint32_t(p.g) << 8 | p.b);
      grey += p == kHiddenCell;
    }
  EXPECT_EQ(leaked, 0) << "pixels in a hidden weight's colour";
  EXPECT_GT(grey, 9 * 100) << "the nine cells are grey";
}

// Pixels in slide cell (i, j) of `g` darker than the hatching (glyphs: "−∞" in masked ink), one
// pixel in from the cell's edges.
int dark_pixels(const Canvas& c, const SlideGrid& g, int i, int j) {
  const int x0 = g.grid.x + j * g.grid.w / g.cols, x1 = g.grid.x + (j + 1) * g.grid.w / g.cols;
  const int y0 = g.grid.y + i * g.grid.h / g.rows, y1 = g.grid.y + (i + 1) * g.grid.h / g.rows;
  int dark = 0;
  for (int y = y0 + 1; y < y1 - 1; ++y)
    for (int x = x0 + 1; x < x1 - 1; ++x) {
      const Rgba8 p = c.pixel(x, y);
      dark += std::max({p.r, p.g, p.b}) < palette::masked_hatch.r - 20;
    }
  return dark;
}

// Issue 26: a decode step's caches printed "−∞" in the rows of evicted tokens under a legend
// "masked (−∞)". A cache holds no −∞: on every decode slide of the KV-cache preset the evicted
// cells are hatched and blank (no glyph in their pixels) and the legend says "evicted", nothing else.
TEST(ExportLesson, EvictedCacheRowsAreBlankUnderTheLegendEvicted) {
  const Slide x = load("modern-kv-cache-window-sinks");
  int evicted = 0;
  for (std::size_t i = 0; i < x.lesson.steps.size(); ++i) {
    const lesson::Step& step = x.lesson.steps[i];
    if (step.kind != StageId::decode) continue;
    const std::vector<HeatmapFigure> figures = decode_figures(x.s, step, std::max(step.head, 0), {});
    std::vector<SlideGrid> grids;
    const Canvas c = render_slide(x.s, x.t, x.lesson, i, false, {}, &grids);
    ASSERT_EQ(grids.size(), figures.size()) << slide_stem(x.lesson, i, false);
    for (std::size_t k = 0; k < figures.size(); ++k) {
      const HeatmapFigure& f = figures[k];
      std::vector<std::string> legend;
      for (const TextItem& t : figure_layout(f, {true}).texts)
        if (t.role == "legend") legend.push_back(t.text);
      int here = 0;
      for (int r = 0; r < f.values.rows(); ++r)
        for (int col = 0; col < f.values.cols(); ++col)
          if (is_masked(f, r, col)) {
            ++here;
            EXPECT_EQ(cell_text(f, r, col, 2), "");
            EXPECT_EQ(dark_pixels(c, grids[k], r, col), 0) << slide_stem(x.lesson, i, false) << " " << f.title
                                                           << " cell " << r << "," << col << ": a glyph in an evicted cell";
          }
      EXPECT_EQ(legend, here ? std::vector<std::string>{"evicted"} : std::vector<std::string>{})
          << slide_stem(x.lesson, i, false) << " " << f.title;
      evicted += here;
    }
    if (!step.predict) continue;
    // Before the reveal not even the legend says that something was evicted: its swatch is blank page.
    const Canvas before = render_slide(x.s, x.t, x.lesson, i, true, {});
    const SlideLayout placed = slide_layout(x.s, x.t, x.lesson, i, true, {});
    for (std::size_t k = 0; k < figures.size(); ++k) {
      const FigureLayout l = figure_layout(figures[k], {true});
      if (!l.has_masked) continue;
      const RectI s = l.masked_swatch.scaled(placed.figures[k].zoom);
      long inked = 0;
      for (int y = s.y; y < s.y + s.h; ++y)
        for (int x0 = s.x; x0 < s.x + s.w; ++x0)
          inked += !(before.pixel(placed.figures[k].box.x + x0, placed.figures[k].box.y + y) == palette::page);
      EXPECT_EQ(inked, 0) << slide_stem(x.lesson, i, true) << " " << figures[k].title << ": the legend's swatch";
    }
  }
  EXPECT_GT(evicted, 0) << "no decode slide of the preset shows an evicted token";
}

TEST(ExportLesson, CellsAnEditRemovedAreSkipped) {
  Slide x = load("vaswani-q2-is-attends");
  x.lesson.steps = {{StageId::weights, 7, "", false, {{40, 40}, {0, 0}}}};
  std::vector<SlideGrid> grids;
  const Canvas c = render_slide(x.s, x.t, x.lesson, 0, false, {}, &grids);
  EXPECT_EQ(grids.size(), 1u);  // head 7 of 1: the last head; cell (40, 40) not drawn, no crash
  EXPECT_EQ(c.width(), kSlideWidth);
}

// Whether the accent frame crosses the middle of tile (r0, c0, rows, cols)'s top and left edges.
bool framed(const Canvas& c, const SlideGrid& g, int r0, int c0, int rows, int cols) {
  const double cell = g.grid.w / double(g.cols);  // the zoom is fractional: no whole-pixel pitch
  const auto at = [&](double x, double y) { return c.pixel(int(std::lround(x)), int(std::lround(y))); };
  const double x = g.grid.x + c0 * cell, y = g.grid.y + r0 * cell;
  const Rgba8 accent{178, 92, 0, 255};
  return error(at(x + cols * cell / 2, y), accent) <= 2 && error(at(x, y + rows * cell / 2), accent) <= 2;
}

// A tiles step's slide: the scores with the tiling, the step's tile framed where FORMAT.md's loop
// order puts it (tile k of 2 x 2 blocks over 8 keys: query block k / 4, key block k % 4), then the
// block's m, l, alpha and O; before the reveal the scores keep their colours, the rest is grey.
TEST(ExportLesson, ATilesSlideFramesTheStepsTileAndHidesOnlyTheBlocksState) {
  const Slide x = load("modern-flashattention-tiles");
  for (std::size_t i = 0; i < x.lesson.steps.size(); ++i) {
    const lesson::Step& step = x.lesson.steps[i];
    if (step.kind != StageId::tiles || step.block_rows != 2) continue;
    std::vector<SlideGrid> grids;
    const Canvas c = render_slide(x.s, x.t, x.lesson, i, false, {}, &grids);
    ASSERT_EQ(grids.size(), 3u) << "scores, m l alpha, O";
    ASSERT_EQ(grids[0].rows, 8);
    ASSERT_EQ(grids[1].cols, 3);
    for (int k = 0; k < 16; ++k)
      EXPECT_EQ(framed(c, grids[0], 2 * (k / 4), 2 * (k % 4), 2, 2), k == step.tile) << "step " << i << " tile " << k;
    if (!step.predict) continue;
    std::vector<SlideGrid> hidden_grids;
    const Canvas h = render_slide(x.s, x.t, x.lesson, i, true, {}, &hidden_grids);
    const SlideGrid& m = hidden_grids[1];
    const int cell = m.grid.w / m.cols;
    EXPECT_EQ(error(h.pixel(m.grid.x + cell / 5, m.grid.y + cell / 5), kHiddenCell), 0) << "m is a grey ?";
    const SlideGrid& s = hidden_grids[0];
    const int sc = s.grid.w / s.cols;
    const Matrix masked = x.t.masked(0);
    const Rgb8 want = MapValue({Colormap::RdBu, -masked.array().isFinite().select(masked.cwiseAbs(), 0).maxCoeff(),
                                masked.array().isFinite().select(masked.cwiseAbs(), 0).maxCoeff()}, masked(0, 0));
    EXPECT_LE(error(h.pixel(s.grid.x + sc / 5, s.grid.y + sc - sc / 5), {want.r, want.g, want.b, 255}), 2)
        << "the scores stay visible: the class predicts m from them";
  }
}

// A decode step without a prefill, as the presenter's authoring adds it: an empty cache, no figure.
TEST(ExportLesson, ADecodeStepWithAnEmptyCacheDrawsNoFigure) {
  Slide x = load("modern-kv-cache-window-sinks");
  lesson::Step step;
  step.kind = StageId::decode;
  x.lesson.steps = {step};
  std::vector<SlideGrid> grids;
  const Canvas c = render_slide(x.s, x.t, x.lesson, 0, false, {}, &grids);
  EXPECT_TRUE(grids.empty());
  EXPECT_EQ(c.width(), kSlideWidth);
}

TEST(ExportLessonCli, OneSlidePerStepAndOneBeforeEachReveal) {
  const attnlab::testing::ScratchDir scratch("attnlab_lesson_");
  const fs::path& dir = scratch.root();
  const std::string cli = std::string("env -u DISPLAY ") + ATTNLAB_CLI + " export ";
  auto r = attnlab::testing::run_shell(cli + attnlab::testing::preset_path("udl-12-2-multihead") + " --lesson --out " +
                                       (dir / "udl").string() + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const lesson::Lesson lesson = load("udl-12-2-multihead").lesson;
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir / "udl")) files.insert(e.path().filename().string());
  std::set<std::string> expected;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    expected.insert(slide_stem(lesson, i, false) + ".png");
    if (lesson.steps[i].predict) expected.insert(slide_stem(lesson, i, true) + ".png");
  }
  EXPECT_EQ(files, expected);
  EXPECT_TRUE(files.count("step07_weights_predict.png"));
  EXPECT_EQ(png_size(dir / "udl" / "step01_inputs.png"), std::make_pair(1920, 1080));
  r = attnlab::testing::run_shell(cli + attnlab::testing::preset_path("vaswani-q2-is-attends") +
                                  " --lesson --scale 2 --out " + (dir / "q2").string() + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(png_size(dir / "q2" / "step07_weights.png"), std::make_pair(3840, 2160));
  // Bad usage: one line, exit 2.
  for (const char* bad : {" --lesson --what weights", " --lesson --format svg", " --lesson --scale 4"}) {
    r = attnlab::testing::run_shell(cli + attnlab::testing::preset_path("vaswani-q2-is-attends") + bad + " --out " +
                                    (dir / "bad").string() + " 2>&1");
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
  }
}

// ---- figure size: large, consistent, never under the text (issue 26 point 4)

bool overlap(RectI a, RectI b) { return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h; }

bool inside_slide(RectI r) { return r.x >= 0 && r.y >= 0 && r.x + r.w <= kSlideWidth && r.y + r.h <= kSlideHeight; }

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The smallest numbers a slide that sets the lesson's size prints in the cells of a matrix of up
// to 8 x 8 (issue 26: up to 8 tokens, a class reads the numbers), em size in slide pixels:
// FlashAttention's tiles slides printed 12 px numbers on a 1920 x 1080 slide, where the 100 px
// rule for a 3x3 matrix never looked (an 8 x 8, a 2 x 3 and a 2 x 4 matrix).
constexpr double kReadableNumbers = 16;
constexpr int kReadableSide = 8;

// One slide's figures against the rules; returns how many 3x3 matrices it drew. `numbers`: the
// smallest numbers it printed.
int check_slide(const SlideLayout& l, const std::string& where, double& smallest, double& largest, double& numbers) {
  int three_by_three = 0;
  for (std::size_t i = 0; i < l.figures.size(); ++i) {
    const SlideFigure& f = l.figures[i];
    smallest = std::min(smallest, f.cell);
    largest = std::max(largest, f.cell);
    if (f.rows == 3 && f.cols == 3 && l.sets_lesson_cell) {  // not small multiples of every head
      ++three_by_three;
      EXPECT_GE(f.cell, 100.0) << where << ": a 3x3 matrix";
    }
    if (l.sets_lesson_cell && f.rows <= kReadableSide && f.cols <= kReadableSide) {
      numbers = std::min(numbers, f.value_px);
      EXPECT_GE(f.value_px, kReadableNumbers) << where << ": figure " << i << "'s numbers (" << f.rows << "x" << f.cols << ")";
    }
    EXPECT_TRUE(inside_slide(f.box)) << where << ": figure " << i << " leaves the slide";
    EXPECT_NEAR(f.grid.w, f.cols * f.cell, 1.0) << where;
    for (const RectI& t : l.text) EXPECT_FALSE(overlap(t, f.box)) << where << ": text over figure " << i;
    for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(overlap(l.figures[j].box, f.box)) << where << ": figures overlap";
  }
  for (const RectI& t : l.text) EXPECT_TRUE(inside_slide(t)) << where << ": text leaves the slide";
  return three_by_three;
}

TEST(ExportLessonLayout, EveryPresetsSlidesDrawLargeCellsWithinSevenTenthsAndNoTextOverAFigure) {
  int three_by_three = 0;
  for (const std::string& name : preset_names()) {
    const Slide x = load(name);
    double smallest = 1e9, largest = 0, numbers = 1e9;
    int beside = 0, slides = 0;
    std::string cells;
    for (std::size_t i = 0; i < x.lesson.steps.size(); ++i)
      for (bool hidden : {false, true}) {
        if (lesson::needs_model(x.lesson.steps[i])) continue;  // the window's only (export refuses it)
        if (hidden && !x.lesson.steps[i].predict) continue;
        const SlideLayout l = slide_layout(x.s, x.t, x.lesson, i, hidden, {});
        const std::string where = name + " " + slide_stem(x.lesson, i, hidden);
        double low = 1e9, high = 0;
        three_by_three += check_slide(l, where, low, high, numbers);
        if (l.figures.empty()) continue;
        cells += " " + std::to_string(int(std::lround(low)));
        if (!l.sets_lesson_cell) {
          // A matrix too large for the lesson's size, or every head side by side: never larger
          // than it fits or than the lesson's cell, reported with a star.
          EXPECT_LE(low, l.fit + 1e-9) << where;
          cells += "*";
        } else {
          smallest = std::min(smallest, low);
          largest = std::max(largest, high);
        }
        beside += l.text_beside;
        ++slides;
      }
    std::cout << name << ": cells" << cells << " px (*: an oversized matrix or every head, not counted), ratio " << smallest / largest << ", "
              << beside << " of " << slides << " slides with the text beside, numbers (up to 8 x 8) of at least " << numbers << " px\n";
    if (largest > 0) {
      EXPECT_GE(smallest / largest, 0.7) << name;
    }
  }
  EXPECT_GT(three_by_three, 0) << "the 100 px rule checked no 3x3 matrix";
}

std::string rect_text(const RectI& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" + std::to_string(r.h);
}

// Issue 26: the figure jumped a few pixels when the deck advanced from a predict slide to its
// reveal. Every preset's predict steps: the same figures at the same place and size on both (the
// text differs), in the layout and where the slide drew the cells.
TEST(ExportLesson, APredictSlideAndItsRevealPlaceTheFiguresAlike) {
  int compared = 0;
  for (const std::string& name : preset_names()) {
    const Slide x = load(name);
    for (std::size_t i = 0; i < x.lesson.steps.size(); ++i) {
      if (!x.lesson.steps[i].predict || lesson::needs_model(x.lesson.steps[i])) continue;
      const std::string where = name + " " + slide_stem(x.lesson, i, true);
      const SlideLayout before = slide_layout(x.s, x.t, x.lesson, i, true, {});
      const SlideLayout after = slide_layout(x.s, x.t, x.lesson, i, false, {});
      ASSERT_EQ(before.figures.size(), after.figures.size()) << where;
      for (std::size_t f = 0; f < after.figures.size(); ++f) {
        EXPECT_EQ(rect_text(before.figures[f].box), rect_text(after.figures[f].box)) << where << " figure " << f;
        EXPECT_EQ(rect_text(before.figures[f].grid), rect_text(after.figures[f].grid)) << where << " figure " << f;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0);
  const Slide q2 = load("vaswani-q2-is-attends");
  const std::size_t i = step_of(q2.lesson, StageId::weights);
  std::vector<SlideGrid> before, after;
  render_slide(q2.s, q2.t, q2.lesson, i, true, {}, &before);
  render_slide(q2.s, q2.t, q2.lesson, i, false, {}, &after);
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(rect_text(before[0].grid), rect_text(after[0].grid)) << "the cells drawn";
}

// The run of non-page pixels along row y through x (inclusive ends).
std::pair<int, int> coloured_run(const Canvas& c, int x, int y) {
  int left = x, right = x;
  while (left > 0 && !(c.pixel(left - 1, y) == palette::page)) --left;
  while (right + 1 < c.width() && !(c.pixel(right + 1, y) == palette::page)) ++right;
  return {left, right};
}

TEST(ExportLessonLayout, TheSlidesPixelsShowTheLayoutsCells) {
  // Vaswani Q2's scores slide (issue 26: 250 px wide, a third of the Q slide's) and its weights.
  const Slide x = load("vaswani-q2-is-attends");
  for (StageId kind : {StageId::scores, StageId::weights, StageId::Q}) {
    const std::size_t i = step_of(x.lesson, kind);
    ASSERT_LT(i, x.lesson.steps.size()) << stage_name(kind);
    const SlideLayout l = slide_layout(x.s, x.t, x.lesson, i, false, {});
    ASSERT_EQ(l.figures.size(), 1u) << stage_name(kind);
    const SlideFigure& f = l.figures[0];
    const Canvas c = render_slide(x.s, x.t, x.lesson, i, false, {});
    // A line through the first row a fifth of a cell below its top: clear of the values and labels.
    const auto [left, right] = coloured_run(c, f.grid.x + f.grid.w / 2, f.grid.y + int(f.cell / 5));
    const double measured_cell = double(right - left + 1) / f.cols;
    std::cout << stage_name(kind) << ": " << f.rows << "x" << f.cols << ", cell " << f.cell << " px in the layout, "
              << measured_cell << " px on the pixels, zoom " << f.zoom << "\n";
    EXPECT_NEAR(left, f.grid.x, 1) << stage_name(kind);
    EXPECT_NEAR(right + 1, f.grid.x + f.grid.w, 1) << stage_name(kind);
    if (f.rows == 3 && f.cols == 3) {
      EXPECT_GE(measured_cell, 100.0) << stage_name(kind);
    }
  }
}

// ---- the PDF handout, read back by a reader written here from the PDF specification: the
// cross-reference table, the page tree, each page's image (inflated by stb_image's zlib decoder,
// its PNG predictors undone below), compared pixel for pixel with the step's PNG slide.

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Pdf {
  std::string bytes;
  std::vector<std::size_t> offsets;  // by object number; [0] unused
  std::string object(int n) const {
    const std::size_t at = offsets.at(std::size_t(n));
    return bytes.substr(at, bytes.find("endobj", at) - at);
  }
};

// The cross-reference table, every entry checked to point at its own "N 0 obj".
Pdf parse_pdf(std::string bytes) {
  Pdf pdf{std::move(bytes), {}};
  const std::string& b = pdf.bytes;
  EXPECT_EQ(b.compare(0, 7, "%PDF-1."), 0);
  EXPECT_NE(b.rfind("%%EOF"), std::string::npos);
  const std::size_t xref = std::stoul(b.substr(b.rfind("startxref") + 9));
  EXPECT_EQ(b.compare(xref, 5, "xref\n"), 0) << "startxref points at " << xref;
  std::istringstream table(b.substr(xref + 5));
  int first = 0, count = 0;
  table >> first >> count;
  std::string offset, generation, kind;
  for (int k = 0; k < count && table >> offset >> generation >> kind; ++k) {
    pdf.offsets.push_back(std::stoul(offset));
    if (k == 0) continue;
    const std::string name = std::to_string(k) + " 0 obj";
    EXPECT_EQ(b.compare(pdf.offsets.back(), name.size(), name), 0) << "xref entry " << k;
  }
  EXPECT_EQ(int(pdf.offsets.size()), count);
  return pdf;
}

int number_after(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(key);
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + key.size()));
}

std::vector<int> kids(const std::string& pages) {
  const std::size_t from = pages.find("/Kids [") + 7;
  std::istringstream refs(pages.substr(from, pages.find(']', from) - from));  // "3 0 R 6 0 R ..."
  std::vector<int> out;
  std::string n, zero, r;
  while (refs >> n >> zero >> r) out.push_back(std::stoi(n));
  return out;
}

int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// PNG-filtered rows (a filter byte each) back to w x h x bpp bytes.
std::vector<std::uint8_t> unfilter(const std::string& rows, int w, int h, int bpp) {
  const std::size_t stride = std::size_t(w) * bpp;
  std::vector<std::uint8_t> out(stride * h);
  for (std::size_t y = 0; y < std::size_t(h); ++y) {
    const auto* in = reinterpret_cast<const std::uint8_t*>(rows.data()) + y * (stride + 1);
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= std::size_t(bpp) ? out[y * stride + x - bpp] : 0, b = y ? out[(y - 1) * stride + x] : 0;
      const int c = x >= std::size_t(bpp) && y ? out[(y - 1) * stride + x - bpp] : 0;
      const int predicted = in[0] == 1 ? a : in[0] == 2 ? b : in[0] == 3 ? (a + b) / 2 : in[0] == 4 ? paeth(a, b, c) : 0;
      out[y * stride + x] = std::uint8_t(in[1 + x] + predicted);
    }
  }
  return out;
}

// The RGB pixels of a page's image, and its size.
std::vector<std::uint8_t> page_pixels(const Pdf& pdf, int page, int& w, int& h) {
  const std::string image = pdf.object(number_after(pdf.object(page), "/Im0 "));
  w = number_after(image, "/Width ");
  h = number_after(image, "/Height ");
  EXPECT_NE(image.find("/ColorSpace /DeviceRGB"), std::string::npos);
  EXPECT_NE(image.find("/Predictor 15"), std::string::npos);
  const std::size_t data = image.find("stream\n") + 7;
  const std::string deflated = image.substr(data, std::size_t(number_after(image, "/Length ")));
  int size = 0;
  char* rows = stbi_zlib_decode_malloc(deflated.data(), int(deflated.size()), &size);
  if (!rows || size != h * (3 * w + 1)) {
    ADD_FAILURE() << "page " << page << ": " << size << " bytes inflated";
    std::free(rows);
    return {};
  }
  const std::vector<std::uint8_t> out = unfilter(std::string(rows, std::size_t(size)), w, h, 3);
  std::free(rows);
  return out;
}

// The pixels of `page` against the slide PNG `png`: the count of bytes that differ.
long differing(const Pdf& pdf, int page, const fs::path& png) {
  int w = 0, h = 0, pw = 0, ph = 0, channels = 0;
  const std::vector<std::uint8_t> pixels = page_pixels(pdf, page, w, h);
  const std::string bytes = read_bytes(png);
  unsigned char* slide = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()),
                                               &pw, &ph, &channels, 3);
  EXPECT_TRUE(slide != nullptr && pw == w && ph == h) << png << " " << pw << "x" << ph << " vs " << w << "x" << h;
  long diff = pixels.empty() || !slide || pw != w || ph != h ? -1 : 0;
  for (std::size_t k = 0; diff >= 0 && k < pixels.size(); ++k) diff += pixels[k] != slide[k];
  stbi_image_free(slide);
  return diff;
}

TEST(ExportLessonPdf, NoPagesIsAnErrorNotAnEmptyFile) { EXPECT_THROW(PdfPages().finish(), ExportError); }

TEST(ExportLessonCli, APdfHandoutHasOnePagePerStepEachTheStepsSlide) {
  const attnlab::testing::ScratchDir scratch("attnlab_lesson_pdf_");
  const fs::path& dir = scratch.root();
  const std::string cli = std::string("env -u DISPLAY ") + ATTNLAB_CLI + " export " +
                          attnlab::testing::preset_path("vaswani-q2-is-attends") + " --lesson";
  auto r = attnlab::testing::run_shell(cli + " --format png,pdf --out " + dir.string() + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const lesson::Lesson lesson = load("vaswani-q2-is-attends").lesson;
  const Pdf pdf = parse_pdf(read_bytes(dir / "lesson.pdf"));
  const std::string pages = pdf.object(number_after(pdf.object(1), "/Pages "));
  EXPECT_EQ(number_after(pages, "/Count "), int(lesson.steps.size()));
  const std::vector<int> page_objects = kids(pages);
  ASSERT_EQ(page_objects.size(), lesson.steps.size());
  for (std::size_t i = 0; i < page_objects.size(); ++i) {
    const std::string page = pdf.object(page_objects[i]);
    EXPECT_NE(page.find("/MediaBox [0 0 960 540]"), std::string::npos) << page;
    EXPECT_EQ(differing(pdf, page_objects[i], dir / (slide_stem(lesson, i, false) + ".png")), 0) << "page " << i + 1;
  }
  std::cout << "lesson.pdf: " << pdf.bytes.size() << " bytes, " << page_objects.size() << " pages\n";
}

TEST(ExportLessonCli, PdfRefusalsAreOneLineAndWriteNothing) {
  const attnlab::testing::ScratchDir scratch("attnlab_lesson_pdf_bad_");
  const fs::path out = scratch.root() / "bad";
  const std::string cli = std::string("env -u DISPLAY ") + ATTNLAB_CLI + " export " +
                          attnlab::testing::preset_path("vaswani-q2-is-attends");
  const std::pair<std::string, std::string> cases[] = {
      {" --lesson --format pdf,docx --out " + out.string(), "attnlab-cli: --format expects a list of png,svg,csv,numpy (gif with --sweep, pdf with --lesson), got 'docx'"},
      {" --lesson --format pdf,csv --out " + out.string(), "attnlab-cli: --lesson writes --format png slides or a pdf handout, got 'csv'"},
      {" --format pdf --out " + out.string(), "attnlab-cli: --format pdf is a lesson's handout: it needs --lesson"},
      {" --lesson --format pdf --out /proc/attnlab-no-such/lesson", "attnlab-cli: export: "}};
  for (const auto& [args, first_line] : cases) {
    const attnlab::testing::Outputs r = attnlab::testing::run_shell_apart(cli + args);
    const bool usage = first_line.find("export: ") == std::string::npos;
    EXPECT_EQ(r.status, usage ? 2 : 1) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.err.substr(0, first_line.size()), first_line) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), usage ? 2 : 1) << args << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// An export of every slide (LessonDeck: each step's content and frame made once) draws exactly the
// slides render_slide draws one at a time, prediction slides and their reveals included.
TEST(ExportLesson, TheDeckDrawsEverySlideByteForByteAsRenderSlide) {
  for (const char* name :
       {"vaswani-q2-is-attends", "udl-12-2-multihead", "modern-kv-cache-window-sinks"}) {
    const Slide x = load(name);
    SlideOptions o;
    LessonDeck deck(x.s, x.t, x.lesson, o);
    EXPECT_DOUBLE_EQ(deck.cell_cap(), lesson_cell_cap(x.s, x.t, x.lesson, o)) << name;
    int predicted = 0;
    for (std::size_t i = 0; i < x.lesson.steps.size(); ++i)
      for (bool hidden : {true, false}) {
        if (hidden && !x.lesson.steps[i].predict) continue;
        predicted += hidden;
        const Canvas one = render_slide(x.s, x.t, x.lesson, i, hidden, o),
                     from_deck = deck.render(i, hidden);
        ASSERT_EQ(one.width(), from_deck.width());
        EXPECT_TRUE(std::equal(one.data(), one.data() + std::size_t(one.width()) * one.height() * 4,
                               from_deck.data()))
            << name << " " << slide_stem(x.lesson, i, hidden);
      }
    std::cout << name << ": " << x.lesson.steps.size() << " steps, " << predicted
              << " prediction slides alike\n";
  }
}

// A model layer's slides say whose layer they show, and its heads as the model writes them.
TEST(ExportLesson, AModelLayersSlidesNameTheModelLayerAndHead) {
  Scenario s = attnlab::testing::random_scenario(5, 8, 4, 3);
  lesson::Step weights, inputs;
  weights.kind = StageId::weights;
  inputs.kind = StageId::inputs;
  EXPECT_EQ(slide_model_line(s, weights, 2), "");
  s.view["model"] = {{"folder", "/models/gpt2/"}, {"layer", 3}};
  EXPECT_EQ(slide_model_line(s, weights, 2), "gpt2 \xC2\xB7 layer 3 \xC2\xB7 head 3.2");
  EXPECT_EQ(slide_model_line(s, inputs, 2), "gpt2 \xC2\xB7 layer 3");
}

// Every head of a 12-head layer of 60 tokens on one slide: small multiples under captions, laid
// out to fill the slide, no text on them smaller than a class reads (they were 12 figures with
// their own titles, labels and colour bars at 4 px, the maps 205 px).
TEST(ExportLessonLayout, TwelveHeadsOfSixtyTokensFillTheirSlide) {
  Scenario s = attnlab::testing::random_scenario(60, 48, 12, 7);
  s.mask.causal = true;
  const Trace t = compute(s);
  const lesson::Lesson lesson = lesson::lesson_of(s);
  const std::size_t heads = step_of(lesson, StageId::heads);
  ASSERT_LT(heads, lesson.steps.size());
  const SlideLayout l = slide_layout(s, t, lesson, heads, false, {});
  ASSERT_EQ(l.figures.size(), 12u);
  int left = kSlideWidth, right = 0, top = kSlideHeight, bottom = 0;
  double smallest = 1e9;
  for (const SlideFigure& f : l.figures) {
    smallest = std::min(smallest, double(f.grid.w));
    EXPECT_TRUE(f.text_px == 0 || f.text_px >= 12) << "a figure's text at " << f.text_px << " px";
    left = std::min(left, f.box.x), right = std::max(right, f.box.x + f.box.w);
    top = std::min(top, f.box.y), bottom = std::max(bottom, f.box.y + f.box.h);
    EXPECT_TRUE(inside_slide(f.box));
  }
  std::cout << "12 heads of 60 tokens: maps of at least " << smallest << " px, spanning "
            << right - left << " x " << bottom - top << " px of the slide\n";
  EXPECT_GE(smallest, 250.0) << "each head's map";
  EXPECT_GE(right - left, 0.75 * kSlideWidth) << "the heads' width";
}

}  // namespace

}  // namespace test_export_lesson
