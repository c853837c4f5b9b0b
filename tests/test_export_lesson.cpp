// attnlab/export/lesson_slides.h and `attnlab-cli export --lesson`: one 1920x1080 slide per step
// (3840x2160 at --scale 2), a predict slide before each reveal; the slide's cells have the
// colormap colour of the core's values, and a predict slide shows none of them.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/export/lesson_slides.h"
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

TEST(ExportLesson, CellsAnEditRemovedAreSkipped) {
  Slide x = load("vaswani-q2-is-attends");
  x.lesson.steps = {{StageId::weights, 7, "", false, {{40, 40}, {0, 0}}}};
  std::vector<SlideGrid> grids;
  const Canvas c = render_slide(x.s, x.t, x.lesson, 0, false, {}, &grids);
  EXPECT_EQ(grids.size(), 1u);  // head 7 of 1: the last head; cell (40, 40) not drawn, no crash
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

}  // namespace

}  // namespace test_export_lesson
