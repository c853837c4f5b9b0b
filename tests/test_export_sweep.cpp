// `attnlab-cli export --sweep` and attnlab/export/{gif,sweep_frames}.h: the GIF read back with
// giflib's decoder (frame count, one size equal to the PNG frames', the loop extension, a weights
// cell's colour at both ends against the core's value), each frame's title carrying its value
// (SVG frames), the shared colour range, and every bad --sweep refused before anything is drawn.
#include <gif_lib.h>
#include <stb_image.h>  // implementation inside Debian's libstb.so

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/export/gif.h"
#include "attnlab/export/sweep_frames.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sweep.h"
#include "test_support.h"

namespace test_export_sweep {

namespace {

namespace fs = std::filesystem;
using namespace attnlab;
using namespace attnlab::exporter;

const attnlab::testing::ScratchDir scratch("attnlab_sweep_");

/// Absent until the CLI writes it: a refused sweep must leave it so.
fs::path fresh_dir(const std::string& name) { return scratch.fresh(name, false); }

using CliRun = attnlab::testing::Outputs;

/// attnlab-cli with no display, stdout and stderr apart.
CliRun cli(const std::string& args) {
  return attnlab::testing::run_shell_apart("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(ATTNLAB_CLI) + " " + args);
}

std::string preset(const std::string& name) { return attnlab::testing::preset_path(name); }

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct GifCloser {
  void operator()(GifFileType* g) const { DGifCloseFile(g, nullptr); }
};
using GifPtr = std::unique_ptr<GifFileType, GifCloser>;

GifPtr read_gif(const fs::path& path) {
  int error = 0;
  GifPtr gif(DGifOpenFileName(path.c_str(), &error));
  if (!gif) ADD_FAILURE() << path << ": " << GifErrorString(error);
  else if (DGifSlurp(gif.get()) != GIF_OK) ADD_FAILURE() << path << ": " << GifErrorString(gif->Error);
  return gif;
}

/// Colour of pixel (x, y) of frame k (frames are full size and use the global colour map).
Rgba8 gif_pixel(const GifFileType* gif, int k, int x, int y) {
  const SavedImage& image = gif->SavedImages[k];
  const ColorMapObject* map = image.ImageDesc.ColorMap ? image.ImageDesc.ColorMap : gif->SColorMap;
  const GifColorType c = map->Colors[image.RasterBits[y * image.ImageDesc.Width + x]];
  return {c.Red, c.Green, c.Blue, 255};
}

bool has_netscape_loop(const ExtensionBlock* blocks, int count) {
  for (int b = 0; b + 1 < count; ++b)
    if (blocks[b].Function == APPLICATION_EXT_FUNC_CODE && blocks[b].ByteCount == 11 &&
        std::memcmp(blocks[b].Bytes, "NETSCAPE2.0", 11) == 0)
      return blocks[b + 1].ByteCount == 3 && blocks[b + 1].Bytes[0] == 1 && blocks[b + 1].Bytes[1] == 0 &&
             blocks[b + 1].Bytes[2] == 0;  // sub-block 1, loop count 0: forever
  return false;
}

std::pair<int, int> png_size(const fs::path& path) {
  int w = 0, h = 0, n = 0;
  EXPECT_TRUE(stbi_info(path.c_str(), &w, &h, &n)) << path;
  return {w, h};
}

double distance(Rgba8 a, Rgba8 b) {
  return std::sqrt(double(a.r - b.r) * (a.r - b.r) + double(a.g - b.g) * (a.g - b.g) + double(a.b - b.b) * (a.b - b.b));
}

/// Largest distance between neighbouring colormap entries of the palette: "one palette step".
double palette_step(const std::vector<Rgba8>& palette, Colormap map) {
  double step = 0;
  Rgba8 previous{};
  bool first = true;
  for (const Rgba8& c : palette) {
    const Rgb8 at0 = MapColor(map, 0.0);
    if (first && !(c == Rgba8{at0.r, at0.g, at0.b, 255})) continue;  // the fixed greys come first
    if (!first) step = std::max(step, distance(previous, c));
    previous = c;
    first = false;
  }
  return step;
}

const char* const kQ2 = "vaswani-q2-is-attends";

TEST(ExportSweep, GifHasOneFramePerStepTheSizeOfThePngFramesAndLoops) {
  const fs::path dir = fresh_dir("gif");
  const CliRun r =
      cli("export " + preset(kQ2) +
          " --sweep scale=0.1:2:5 --what weights --head 0 --format gif,png --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const GifPtr gif = read_gif(dir / "head0_weights.gif");
  ASSERT_TRUE(gif);
  EXPECT_EQ(gif->ImageCount, 5);
  const auto [w, h] = png_size(dir / "head0_weights_000.png");
  EXPECT_EQ(gif->SWidth, w);
  EXPECT_EQ(gif->SHeight, h);
  for (int k = 0; k < gif->ImageCount; ++k) {
    const GifImageDesc& d = gif->SavedImages[k].ImageDesc;
    EXPECT_EQ(d.Left, 0);
    EXPECT_EQ(d.Top, 0);
    EXPECT_EQ(d.Width, w) << "frame " << k;
    EXPECT_EQ(d.Height, h) << "frame " << k;
    char name[32];
    std::snprintf(name, sizeof name, "head0_weights_%03d.png", k);
    EXPECT_EQ(png_size(dir / name), std::make_pair(w, h)) << name;
    GraphicsControlBlock gcb;
    ASSERT_EQ(DGifSavedExtensionToGCB(gif.get(), k, &gcb), GIF_OK);
    EXPECT_EQ(gcb.DelayTime, 10);
  }
  // giflib's decoder attaches the extensions before the first image to that image.
  const SavedImage& first = gif->SavedImages[0];
  EXPECT_TRUE(has_netscape_loop(first.ExtensionBlocks, first.ExtensionBlockCount) ||
              has_netscape_loop(gif->ExtensionBlocks, gif->ExtensionBlockCount));
  EXPECT_FALSE(fs::exists(dir / "head0_weights.png"));  // frames only, no still
}

TEST(ExportSweep, WeightsCellColourAtBothEndsIsTheColormapsColourOfTheCoresValue) {
  const fs::path dir = fresh_dir("colour");
  const std::string text = "scale=0.1:2:4";
  const CliRun r = cli("export " + preset(kQ2) + " --sweep " + text +
                       " --what weights --head 0 --format gif --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const GifPtr gif = read_gif(dir / "head0_weights.gif");
  ASSERT_TRUE(gif);
  ASSERT_EQ(gif->ImageCount, 4);

  const Scenario scenario = load_scenario(preset(kQ2));
  const Sweep sweep = parse_sweep(text);
  const SweepView view{StageId::weights, 0};
  const SweepPlan plan = plan_sweep(scenario, sweep, {view}, Colormaps{}, FigureStyle{})[0];
  EXPECT_EQ(plan.scale.lo, 0.0);
  EXPECT_EQ(plan.scale.hi, 1.0);
  const Scenario s0 = sweep_scenario(scenario, sweep, 0), s1 = sweep_scenario(scenario, sweep, 3);
  const Trace t0 = compute(s0), t1 = compute(s1);
  // The cell that changes most between the ends (an allowed one: its colour is the colormap's).
  const Matrix change = (t1.heads[0].weights - t0.heads[0].weights).cwiseAbs();
  Eigen::Index i = 0, j = 0;
  change.maxCoeff(&i, &j);
  ASSERT_GT(change(i, j), 0.05) << "the sweep should move this cell visibly";
  ASSERT_TRUE(t0.allowed(i, j));

  const std::vector<Rgba8> palette = gif_palette(plan.scale.map);
  const double step = palette_step(palette, plan.scale.map);
  ASSERT_GT(step, 0);
  for (const auto& [k, trace, s] : {std::tuple<int, const Trace&, const Scenario&>{0, t0, s0}, {3, t1, s1}}) {
    const FigureLayout l = figure_layout(sweep_figure(s, trace, sweep, k, view, plan, Colormaps{}), plan.style);
    ASSERT_EQ(l.width, gif->SWidth);
    ASSERT_EQ(l.height, gif->SHeight);
    const RectI cell = l.cell_rect(static_cast<int>(i), static_cast<int>(j));
    const Rgba8 got = gif_pixel(gif.get(), k, cell.centre_x(), cell.centre_y());
    const Rgb8 exact = MapValue(plan.scale, trace.heads[0].weights(i, j));
    const Rgba8 exact8{exact.r, exact.g, exact.b, 255};
    const Rgba8 nearest = palette[static_cast<std::size_t>(nearest_palette_index(palette, exact8))];
    EXPECT_EQ(got, nearest) << "frame " << k << " cell (" << i << ", " << j << ")";
    const double off = distance(got, exact8);
    EXPECT_LE(off, step) << "frame " << k << ": " << off << " from the colormap colour, one palette step is " << step;
  }
  EXPECT_EQ(gif_pixel(gif.get(), 0, 0, 0), palette::page);  // the page, not garbage
}

TEST(ExportSweep, EachFramesTitleCarriesItsValue) {
  const fs::path dir = fresh_dir("svg");
  const CliRun r =
      cli("export " + preset(kQ2) +
          " --sweep scale=0.1:2:20 --what weights --head 0 --format svg,png --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const Sweep sweep = parse_sweep("scale=0.1:2:20");
  const std::regex title("<title>([^<]*)</title>"), size("width=\"(\\d+)\" height=\"(\\d+)\" viewBox");
  std::string first_size;
  for (int k = 0; k < sweep.frames; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "head0_weights_%03d.svg", k);
    const std::string svg = read_text(dir / name);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(svg, m, title)) << name;
    EXPECT_NE(m[1].str().find("scale = " + sweep_value_text(sweep, k)), std::string::npos) << m[1].str();
    // The text's own figure title (the <text class="title">) says the same.
    EXPECT_NE(svg.find("class=\"title\""), std::string::npos);
    ASSERT_TRUE(std::regex_search(svg, m, size)) << name;
    if (k == 0) first_size = m[0].str();
    EXPECT_EQ(m[0].str(), first_size) << name << ": every frame one size";
  }
  EXPECT_NE(read_text(dir / "head0_weights_000.svg").find("\xE2\x80\x94 scale = 0.1</title>"),
            std::string::npos);
  EXPECT_NE(read_text(dir / "head0_weights_007.svg").find("\xE2\x80\x94 scale = 0.8</title>"),
            std::string::npos);
  EXPECT_NE(read_text(dir / "head0_weights_019.svg").find("\xE2\x80\x94 scale = 2</title>"),
            std::string::npos);
}

TEST(ExportSweep, SignedStagesKeepTheUnionOfEveryFramesRangeAndOneSize) {
  const Scenario scenario = load_scenario(preset(kQ2));
  const Sweep sweep = parse_sweep("X[0][0]=-40:40:5");
  const FigureStyle values{true, false, 2};
  const SweepPlan plan = plan_sweep(scenario, sweep, {{StageId::scaled, 0}}, Colormaps{}, values)[0];
  double max_abs = 0;
  for (int k = 0; k < sweep.frames; ++k) {
    const Matrix scaled = compute(sweep_scenario(scenario, sweep, k)).scaled(0);
    max_abs = std::max(max_abs, scaled.cwiseAbs().maxCoeff());
  }
  EXPECT_EQ(plan.scale.hi, max_abs);
  EXPECT_EQ(plan.scale.lo, -max_abs);
  EXPECT_EQ(plan.scale.map, Colormap::RdBu);
  // With values in the cells the widest text changes frame to frame; the size does not.
  const fs::path dir = fresh_dir("signed");
  const CliRun r = cli("export " + preset(kQ2) + " --sweep X[0][0]=-40:40:5 --what scaled --values --scale 2 --format png,gif --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto size0 = png_size(dir / "head0_scaled_000.png");
  EXPECT_EQ(size0, std::make_pair(plan.style.min_width * 2, plan.style.min_height * 2));
  for (const char* f : {"head0_scaled_001.png", "head0_scaled_002.png", "head0_scaled_003.png",
                        "head0_scaled_004.png"})
    EXPECT_EQ(png_size(dir / f), size0) << f;
  const GifPtr gif = read_gif(dir / "head0_scaled.gif");
  ASSERT_TRUE(gif);
  EXPECT_EQ(std::make_pair(int(gif->SWidth), int(gif->SHeight)), size0);
}

TEST(ExportSweep, EveryViewGetsItsOwnGif) {
  const fs::path dir = fresh_dir("views");
  const CliRun r = cli("export " + preset("vaswani-q3-two-heads") + " --sweep scale=0.5:1:3 --what weights,output --format gif --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"head0_weights.gif", "head1_weights.gif", "output.gif"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
  }
}

TEST(ExportSweep, BadSweepsAreBadUsageNamingTheOptionBeforeAnythingIsWritten) {
  const std::pair<std::string, std::string> bad[] = {
      {kQ2, "scale=0.1:2:0"},      {kQ2, "scale=0.1:2:1"},     {kQ2, "scale=0.1:2:1001"},
      {kQ2, "scale=0.1:2:2.5"},    {kQ2, "scale=0.1:2:x"},     {kQ2, "scale=0.1::5"},
      {kQ2, "scale=0.1:2"},        {kQ2, "scale=nan:2:5"},     {kQ2, "scale=0.1:inf:5"},
      {kQ2, "nosuch=0:1:5"},       {kQ2, "X[99][0]=0:1:5"},    {kQ2, "W_q[0]=0:1:5"},
      {kQ2, "rope.base=1:10:5"},   {"modern-rope-relative-positions", "rope.base=0:100:5"},
      {"modern-rope-relative-positions", "rope.base=100:-5:5"},
      {kQ2, "scale=0:inf:5"},      {kQ2, "scale=-inf:1:5"},    {kQ2, "scale=0.1:1e999:5"},
      {kQ2, "X[0][0][0]=0:1:5"},   {kQ2, "heads[0].W_q[0][0]=0:1:5"},
  };
  for (const auto& [file, sweep] : bad) {
    const fs::path dir = fresh_dir("bad");
    const CliRun r = cli("export " + preset(file) + " --sweep '" + sweep + "' --format gif --out " + dir.string());
    EXPECT_EQ(r.status, 2) << sweep << ": " << r.err;
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(first.rfind("attnlab-cli: --sweep ", 0), 0u) << sweep << ": " << first;
    EXPECT_FALSE(fs::exists(dir)) << sweep << ": nothing is written for a refused sweep";
  }
  const fs::path dir = fresh_dir("formats");
  const CliRun gif_alone = cli("export " + preset(kQ2) + " --format gif --out " + dir.string());
  EXPECT_EQ(gif_alone.status, 2);
  EXPECT_EQ(gif_alone.err.rfind("attnlab-cli: --format gif", 0), 0u) << gif_alone.err;
  const CliRun csv = cli("export " + preset(kQ2) + " --sweep scale=0.1:2:3 --format csv --out " + dir.string());
  EXPECT_EQ(csv.status, 2);
  EXPECT_EQ(csv.err.rfind("attnlab-cli: --sweep", 0), 0u) << csv.err;
  EXPECT_EQ(cli("export " + preset(kQ2) + " --sweep scale=0.1:2:3 --lesson --out " + dir.string()).status, 2);
}

// ---- gif.h on its own ----------------------------------------------------------------------------

TEST(Gif, PaletteHasTheFiguresColoursAndTheMapsEnds) {
  for (Colormap map : {Colormap::Viridis, Colormap::RdBu, Colormap::Grayscale}) {
    const auto p = gif_palette(map);
    ASSERT_EQ(p.size(), 256u);
    for (Rgba8 c : {palette::page, palette::ink, palette::dim, palette::masked_fill, palette::masked_hatch})
      EXPECT_EQ(p[static_cast<std::size_t>(nearest_palette_index(p, c))], c);
    for (double t : {0.0, 1.0}) {
      const Rgb8 c = MapColor(map, t);
      EXPECT_EQ(p[static_cast<std::size_t>(nearest_palette_index(p, {c.r, c.g, c.b, 255}))], (Rgba8{c.r, c.g, c.b, 255}));
    }
  }
  const auto transparent = gif_palette(Colormap::Viridis, true);
  ASSERT_EQ(transparent.size(), 256u);
  EXPECT_EQ(transparent.back().a, 0);
  EXPECT_NE(nearest_palette_index(transparent, palette::page), 255);  // opaque white is not "transparent"
}

TEST(Gif, RefusesAFrameOfAnotherSize) {
  GifEncoder gif(4, 3, gif_palette(Colormap::Viridis), 10, false);
  gif.add_frame(Canvas(4, 3, palette::page));
  EXPECT_THROW(gif.add_frame(Canvas(5, 3, palette::page)), ExportError);
  const std::string bytes = gif.finish();
  EXPECT_EQ(bytes.substr(0, 6), "GIF89a");
  EXPECT_EQ(bytes.back(), ';');  // the trailer
}

}  // namespace

}  // namespace test_export_sweep
