// attnlab_export and `attnlab-cli export`: PNG size and cell colours, SVG structure (xmllint), CSV
// round trip, usage errors. The CLI runs with DISPLAY unset, as on the CI machine.
#include <stb_image.h>  // implementation inside Debian's libstb.so
#include <stb_truetype.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <limits>
#include <memory>
#include <regex>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/export/csv.h"
#include "attnlab/export/figure.h"
#include "attnlab/export/font.h"
#include "attnlab/export/views.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_export {

namespace {

namespace fs = std::filesystem;
using namespace attnlab;
using namespace attnlab::exporter;

using Shell = attnlab::testing::ShellResult;

/// Runs a shell command (stderr folded into out).
Shell run(const std::string& command) { return attnlab::testing::run_shell(command + " 2>&1"); }

/// attnlab-cli with no display at all.
Shell cli(const std::string& args) { return run("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(ATTNLAB_CLI) + " " + args); }

std::string preset(const std::string& name) { return attnlab::testing::preset_path(name); }

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

const attnlab::testing::ScratchDir scratch("attnlab_export_");

/// A fresh, empty directory under the scratch directory.
fs::path fresh_dir(const std::string& name) { return scratch.fresh(name); }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Image {
  int width = 0, height = 0;
  std::shared_ptr<unsigned char> pixels;
  Rgba8 at(int x, int y) const {
    const unsigned char* p = pixels.get() + (static_cast<std::size_t>(y) * width + x) * 4;
    return {p[0], p[1], p[2], p[3]};
  }
};

Image decode_png(const fs::path& path) {
  Image image;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
  if (data) image.pixels.reset(data, stbi_image_free);
  return image;
}

struct Computed {
  Scenario scenario;
  Trace trace;
};

Computed computed(const std::string& name) {
  Computed c;
  c.scenario = load_scenario(preset(name));
  c.trace = compute(c.scenario);
  return c;
}

std::string rgba_text(Rgba8 c) {
  return "(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + "," + std::to_string(c.a) + ")";
}

// ---------------------------------------------------------------------------------------------- PNG

TEST(ExportPng, SizeScalesExactlyWithScaleAndMatchesTheLayout) {
  const Computed c = computed("udl-12-2-multihead");
  const FigureLayout layout = figure_layout(stage_figure(c.scenario, c.trace, StageId::weights, 1), {});
  for (int scale : {1, 2, 4}) {
    const fs::path dir = fresh_dir("scale" + std::to_string(scale));
    const Shell r = cli("export " + preset("udl-12-2-multihead") + " --out " + dir.string() +
                        " --what weights --head 1 --format png --scale " + std::to_string(scale));
    ASSERT_EQ(r.status, 0) << r.out;
    const Image image = decode_png(dir / "head1_weights.png");
    ASSERT_TRUE(image.pixels) << "PNG does not decode: " << stbi_failure_reason();
    EXPECT_EQ(image.width, layout.width * scale);
    EXPECT_EQ(image.height, layout.height * scale);
  }
}

/// Every cell's centre pixel in the CLI's PNG is the colormap colour of the value the core computed.
void expect_cell_colours(const std::string& name, StageId stage, int head, const std::string& colormap, int scale) {
  SCOPED_TRACE(name + " " + stage_name(stage) + " head " + std::to_string(head + 1) + " " + colormap);
  const Computed c = computed(name);
  const auto maps = colormaps_from_name(colormap);
  ASSERT_TRUE(maps);
  const HeatmapFigure figure = stage_figure(c.scenario, c.trace, stage, head, *maps);
  const FigureLayout layout = figure_layout(figure, {});
  const fs::path dir = fresh_dir("cells");
  const Shell r = cli("export " + preset(name) + " --out " + dir.string() + " --what " +
                      stage_name(stage) + " --head " + std::to_string(head) +
                      " --format png --colormap " + colormap + " --scale " + std::to_string(scale));
  ASSERT_EQ(r.status, 0) << r.out;
  const Image image = decode_png(dir / (file_stem(stage, head) + ".png"));
  ASSERT_TRUE(image.pixels);
  int masked = 0;
  for (int i = 0; i < figure.values.rows(); ++i)
    for (int j = 0; j < figure.values.cols(); ++j) {
      const RectI cell = layout.cell_rect(i, j).scaled(scale);
      const Rgba8 got = image.at(cell.centre_x(), cell.centre_y());
      if (is_masked(figure, i, j)) {
        ++masked;  // hatched light grey: grey, never a colormap colour
        EXPECT_TRUE(got.r == got.g && got.g == got.b && got.r >= 150) << "masked (" << i << "," << j << ") " << rgba_text(got);
        continue;
      }
      const Rgb8 want = MapValue(figure.scale, figure.values(i, j));
      EXPECT_EQ(rgba_text(got), rgba_text({want.r, want.g, want.b, 255}))
          << "cell (" << i << "," << j << ") value " << figure.values(i, j);
    }
  if (stage == StageId::masked || stage == StageId::weights) {
    EXPECT_EQ(masked > 0, !c.scenario.mask.empty());
  }
}

TEST(ExportPng, CellCentresHaveTheColormapColourOfTheComputedValue) {
  expect_cell_colours("udl-12-2-multihead", StageId::weights, 1, "viridis", 1);
  expect_cell_colours("udl-12-2-multihead", StageId::scores, 0, "viridis", 2);
  expect_cell_colours("udl-12-2-multihead", StageId::concat, 0, "cividis", 1);
  expect_cell_colours("phuong-hutter-alg4-masked", StageId::masked, 0, "grayscale", 2);
  expect_cell_colours("phuong-hutter-alg4-masked", StageId::weights, 0, "viridis", 4);
  expect_cell_colours("vaswani-q3-two-heads", StageId::Q, 1, "rdbu", 1);
  expect_cell_colours("mlm-general-attention", StageId::output, 0, "viridis", 1);
}

TEST(ExportPng, WeightsUseTheFixedUnitRangeAndSignedMatricesASymmetricDivergingRange) {
  const Computed c = computed("udl-12-2-multihead");
  const HeatmapFigure w = stage_figure(c.scenario, c.trace, StageId::weights, 0);
  EXPECT_EQ(w.scale.lo, 0.0);
  EXPECT_EQ(w.scale.hi, 1.0);
  EXPECT_TRUE(IsSequential(w.scale.map));
  const HeatmapFigure s = stage_figure(c.scenario, c.trace, StageId::scores, 0);
  EXPECT_EQ(s.scale.lo, -s.scale.hi);
  EXPECT_EQ(s.scale.hi, s.values.cwiseAbs().maxCoeff());
  EXPECT_FALSE(IsSequential(s.scale.map));
}

TEST(ExportPng, BackgroundIsWhiteOrTransparent) {
  for (const bool transparent : {false, true}) {
    const fs::path dir = fresh_dir(transparent ? "transparent" : "white");
    const Shell r = cli("export " + preset("vaswani-q2-is-attends") + " --out " + dir.string() +
                      " --what weights --format png" + (transparent ? " --transparent" : ""));
    ASSERT_EQ(r.status, 0) << r.out;
    const Image image = decode_png(dir / "head0_weights.png");
    ASSERT_TRUE(image.pixels);
    const Rgba8 corner = image.at(1, image.height - 2);
    EXPECT_EQ(rgba_text(corner), transparent ? "(255,255,255,0)" : "(255,255,255,255)");
  }
}

TEST(ExportPng, TextIsRasterisedAtTheTargetScaleNotUpscaled) {
  // An upscaled 1x image would consist of 2x2 blocks of equal pixels; glyphs drawn at 2x do not.
  const Computed c = computed("vaswani-q2-is-attends");
  const HeatmapFigure figure = stage_figure(c.scenario, c.trace, StageId::weights, 0);
  const Canvas big = render_figure(figure, {}, 2);
  const FigureLayout layout = figure_layout(figure, {});
  int blocks_broken = 0;
  for (int y = 0; y < layout.grid.y * 2 - 1; y += 2)  // title and labels above the grid
    for (int x = 0; x < big.width() - 1; x += 2)
      if (!(big.pixel(x, y) == big.pixel(x + 1, y)) || !(big.pixel(x, y) == big.pixel(x, y + 1))) ++blocks_broken;
  EXPECT_GT(blocks_broken, 200);
}

TEST(ExportPng, ValuesInCellsAreBlackOrWhiteByLuminance) {
  const Computed c = computed("udl-12-2-multihead");
  const HeatmapFigure figure = stage_figure(c.scenario, c.trace, StageId::weights, 0);
  const FigureLayout layout = figure_layout(figure, {true, false});
  ASSERT_GT(layout.value_size, 0) << "values should fit in a 6x6 figure";
  int values = 0;
  for (const TextItem& t : layout.texts) {
    if (t.role != "value") continue;
    ++values;
    const Rgba8 fill = cell_color(figure, t.row, t.col);
    const bool light = Luminance({fill.r, fill.g, fill.b}) > 0.45;
    EXPECT_EQ(rgba_text(t.color), light ? "(0,0,0,255)" : "(255,255,255,255)") << t.text;
  }
  EXPECT_EQ(values, 36);
}

// ---------------------------------------------------------------------------------------------- SVG

std::string xml_text(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '&' ? "&amp;" : ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '"' ? "&quot;" : std::string(1, ch);
  return out;
}

std::size_t count(const std::string& text, const std::regex& re) {
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(ExportSvg, IsWellFormedWithOneCellPerEntryAndEveryTokenLabel) {
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE(name);
    const fs::path dir = fresh_dir("svg_" + name);
    const Shell r = cli("export " + preset(name) + " --out " + dir.string() + " --format svg --values");
    ASSERT_EQ(r.status, 0) << r.out;
    const Computed c = computed(name);
    for (StageId stage : exported_stages())
      for (int h = 0; has_stage(c.trace, stage) && h < (per_head(stage) ? static_cast<int>(c.trace.heads.size()) : 1); ++h) {
        const fs::path path = dir / (file_stem(stage, h) + ".svg");
        SCOPED_TRACE(path.string());
        const Shell lint = run("xmllint --noout " + path.string());
        EXPECT_EQ(lint.status, 0) << lint.out;
        const std::string svg = read_file(path);
        const HeatmapFigure figure = stage_figure(c.scenario, c.trace, stage, h);
        EXPECT_EQ(count(svg, std::regex("<rect class=\"cell[ \"]")), static_cast<std::size_t>(figure.values.size()));
        // Every label where a label fits every cell: a model's layer (the induction circuit's lesson,
        // 72 wide) draws cells smaller than a line of text, and the figure labels every other row.
        if (c.scenario.view.contains("model")) continue;
        for (int i = 0; i < figure.values.rows(); ++i)
          EXPECT_NE(svg.find("class=\"row-label\" data-row=\"" + std::to_string(i) + "\""), std::string::npos) << i;
        for (int j = 0; j < figure.values.cols(); ++j)
          EXPECT_NE(svg.find("class=\"col-label\" data-col=\"" + std::to_string(j) + "\""), std::string::npos) << j;
        for (const auto* labels : {&figure.row_labels, &figure.col_labels})
          for (const std::string& label : *labels) EXPECT_NE(svg.find(">" + xml_text(label) + "</text>"), std::string::npos) << label;
        EXPECT_NE(svg.find("class=\"colorbar\""), std::string::npos);
      }
  }
}

TEST(ExportSvg, EscapesLabelsAndStaysWellFormed) {
  Computed c = computed("vaswani-q2-is-attends");
  c.scenario.tokens = {"<b>", "a & b", "\"quoted\""};
  c.trace = compute(c.scenario);
  const HeatmapFigure figure = stage_figure(c.scenario, c.trace, StageId::weights, 0);
  const fs::path path = fresh_dir("escape") / "weights.svg";
  std::ofstream(path) << figure_svg(figure, {true, true});
  const Shell lint = run("xmllint --noout " + path.string());
  EXPECT_EQ(lint.status, 0) << lint.out;
  EXPECT_NE(read_file(path).find("&lt;b&gt;"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------- CSV

void expect_same(const Matrix& want, const Matrix& got, double tolerance) {
  ASSERT_EQ(want.rows(), got.rows());
  ASSERT_EQ(want.cols(), got.cols());
  double worst = 0;
  for (Eigen::Index k = 0; k < want.size(); ++k) {
    const double a = want.data()[k], b = got.data()[k];
    if (std::isinf(a) || std::isinf(b)) {
      EXPECT_EQ(a, b) << "entry " << k;
      continue;
    }
    worst = std::max(worst, std::abs(a - b));
  }
  EXPECT_LE(worst, tolerance) << "max |want - got| = " << worst;
}

TEST(ExportCsv, EveryMatrixOfEveryPresetRoundTripsTo1e12) {
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE(name);
    const fs::path dir = fresh_dir("csv_" + name);
    const Shell r = cli("export " + preset(name) + " --out " + dir.string() + " --format csv");
    ASSERT_EQ(r.status, 0) << r.out;
    const Computed c = computed(name);
    for (StageId stage : exported_stages())
      for (int h = 0; has_stage(c.trace, stage) && h < (per_head(stage) ? static_cast<int>(c.trace.heads.size()) : 1); ++h) {
        SCOPED_TRACE(file_stem(stage, h));
        const HeatmapFigure figure = stage_figure(c.scenario, c.trace, stage, h);
        const LabeledMatrix back = parse_matrix_csv(read_file(dir / (file_stem(stage, h) + ".csv")));
        expect_same(figure.values, back.values, 1e-12);
        EXPECT_EQ(back.row_labels, figure.row_labels);
        EXPECT_EQ(back.col_labels, figure.col_labels);
        EXPECT_EQ(back.corner, figure.row_axis);
      }
  }
}

TEST(ExportCsv, WritesMinusInfinityAndQuotesAwkwardLabels) {
  LabeledMatrix m{"queries", {"a,b", " padded "}, {"say \"hi\"", "x"}, Matrix(2, 2)};
  m.values << 0.1, -std::numeric_limits<double>::infinity(), 1e-300, -2.5;
  const std::string text = matrix_csv(m);
  EXPECT_EQ(text, "queries,\"say \"\"hi\"\"\",x\n\"a,b\",0.10000000000000001,-inf\n\" padded \",1e-300,-2.5\n");
  const LabeledMatrix back = parse_matrix_csv(text);
  EXPECT_EQ(back.row_labels, m.row_labels);
  EXPECT_EQ(back.col_labels, m.col_labels);
  expect_same(m.values, back.values, 0);
}

TEST(ExportCsv, ReaderNamesTheLineOfARaggedRow) {
  try {
    parse_matrix_csv("q,a,b\nx,1,2\ny,3\n");
    FAIL() << "expected ExportError";
  } catch (const ExportError& e) {
    EXPECT_STREQ(e.what(), "csv line 3: expected 3 fields (a label and 2 values), got 2");
  }
  EXPECT_THROW(parse_matrix_csv("q,a\nx,oops\n"), ExportError);
}

// ---------------------------------------------------------------------------------------------- CLI

TEST(ExportCli, WritesPredictableFileNamesForEveryHeadAndFormat) {
  const fs::path dir = fresh_dir("names");
  const Shell r = cli("export " + preset("udl-12-2-multihead") + " --out " + dir.string() +
                    " --what weights,concat,output --format png,svg,csv --scale 2 --values");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* stem : {"head0_weights", "head1_weights", "concat", "output"})
    for (const char* ext : {".png", ".svg", ".csv"}) EXPECT_TRUE(fs::exists(dir / (std::string(stem) + ext))) << stem << ext;
  EXPECT_FALSE(fs::exists(dir / "head2_weights.png"));
}

TEST(ExportCli, BadUsageExitsTwoAndInvalidInputExitsOne) {
  const std::string out = " --out " + fresh_dir("usage").string();
  EXPECT_EQ(cli("export " + preset("udl-12-2-multihead")).status, 2);  // no --out
  EXPECT_EQ(cli("export " + preset("udl-12-2-multihead") + out + " --what attention").status, 2);
  EXPECT_EQ(cli("export " + preset("udl-12-2-multihead") + out + " --format jpg").status, 2);
  EXPECT_EQ(cli("export " + preset("udl-12-2-multihead") + out + " --scale 3").status, 2);
  EXPECT_EQ(cli("export " + preset("udl-12-2-multihead") + out + " --colormap jet").status, 2);
  const Shell head = cli("export " + preset("udl-12-2-multihead") + out + " --head 2");
  EXPECT_EQ(head.status, 2);
  EXPECT_NE(head.out.find("--head 2: the scenario has 2 head(s), counted from 0"),
            std::string::npos)
      << head.out;

  const fs::path bad = fresh_dir("invalid") / "bad.json";
  std::ofstream(bad) << R"({"format": "attnlab/1", "X": [[1, 2], [3]]})";
  const Shell invalid = cli("export " + bad.string() + out);
  EXPECT_EQ(invalid.status, 1);
  EXPECT_NE(invalid.out.find("X[1]"), std::string::npos) << invalid.out;
}

// UDL 12.2's true X' (notebook 002 prints it with precision=3) starts with -21.207.
constexpr const char* kMinus = "\xE2\x88\x92";

/// The text of the value in cell (row, col) of an exported SVG, or "" when there is none.
std::string svg_value(const std::string& svg, int row, int col) {
  const std::regex re("<text class=\"value\" data-row=\"" + std::to_string(row) + "\" data-col=\"" +
                      std::to_string(col) + "\"[^>]*>([^<]*)</text>");
  std::smatch m;
  return std::regex_search(svg, m, re) ? m[1].str() : "";
}

TEST(ExportCli, DecimalsSetThePrecisionOfTheValuesInCells) {
  const fs::path dir3 = fresh_dir("decimals3"), dir2 = fresh_dir("decimals2");
  const std::string file = preset("udl-12-2-multihead");
  const Shell r3 = cli("export " + file + " --out " + dir3.string() +
                       " --what output --format svg,png --values --decimals 3");
  ASSERT_EQ(r3.status, 0) << r3.out;
  const Shell r2 =
      cli("export " + file + " --out " + dir2.string() + " --what output --format svg --values");
  ASSERT_EQ(r2.status, 0) << r2.out;
  EXPECT_EQ(svg_value(read_file(dir3 / "output.svg"), 0, 0), std::string(kMinus) + "21.207");
  EXPECT_EQ(svg_value(read_file(dir2 / "output.svg"), 0, 0),
            std::string(kMinus) + "21.21");  // default 2
  for (const std::string bad : {"0", "7", "two", "2.5"}) {
    const Shell b = cli("export " + file + " --out " + dir2.string() + " --decimals " + bad);
    EXPECT_EQ(b.status, 2) << bad;
    // One line names the option, then the usage, as for every other option.
    EXPECT_EQ(b.out.substr(0, b.out.find('\n')),
              "attnlab-cli: --decimals expects a whole number from 1 to 6, got '" + bad + "'");
  }
}

TEST(ExportPng, ACellShowsItsValueAtTheChosenDecimalsAsTheExportFontDrawsIt) {
  // Reference: the cell's colour and the string "−21.207" drawn with the export font where the
  // layout puts the cell's value; the PNG written by the CLI must match it pixel for pixel.
  const fs::path dir = fresh_dir("decimals_png");
  ASSERT_EQ(cli("export " + preset("udl-12-2-multihead") + " --out " + dir.string() +
                " --what output --format png --values --decimals 3")
                .status,
            0);
  const Image png = decode_png(dir / "output.png");
  ASSERT_TRUE(png.pixels);
  const Computed c = computed("udl-12-2-multihead");
  const HeatmapFigure figure = stage_figure(c.scenario, c.trace, StageId::output, 0);
  FigureStyle style;
  style.values = true;
  style.decimals = 3;
  const FigureLayout layout = figure_layout(figure, style);
  ASSERT_EQ(png.width, layout.width);
  const RectI cell = layout.cell_rect(0, 0);
  const std::string want = std::string(kMinus) + "21.207";
  const Font& font = default_fonts().regular;
  Canvas ref(layout.width, layout.height, palette::page);
  ref.fill(cell, cell_color(figure, 0, 0));
  const Rgb8 fill{cell_color(figure, 0, 0).r, cell_color(figure, 0, 0).g,
                  cell_color(figure, 0, 0).b};
  const Rgba8 ink = Luminance(fill) > 0.45 ? Rgba8{0, 0, 0, 255} : Rgba8{255, 255, 255, 255};
  const double size = layout.value_size, baseline = cell.y + cell.h / 2.0 + 0.36 * size;
  ASSERT_GT(size, 0) << "values should fit";
  font.draw(ref, want, cell.x + cell.w / 2.0 - font.text_width(want, size) / 2.0, baseline, size,
            ink);
  int differ = 0, inked = 0;
  for (int y = cell.y; y < cell.y + cell.h; ++y)
    for (int x = cell.x; x < cell.x + cell.w; ++x) {
      differ += !(png.at(x, y) == ref.pixel(x, y));
      inked += !(ref.pixel(x, y) == cell_color(figure, 0, 0));
    }
  EXPECT_GT(inked, 40) << "the reference string left no ink";
  EXPECT_EQ(differ, 0) << "pixels of cell (0, 0) unlike \"" << want
                       << "\" drawn with the export font";
}

TEST(ExportCli, AMissingFontIsAClearErrorNotACrash) {
  const Shell r = run("env -u DISPLAY ATTNLAB_FONT_DIR=/nonexistent " + std::string(ATTNLAB_CLI) + " export " +
                    preset("vaswani-q2-is-attends") + " --out " + fresh_dir("nofont").string() + " --what weights");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("fonts-dejavu-core"), std::string::npos) << r.out;
}

}  // namespace

// Font::text_width remembers glyph metrics and kerning pairs (a lesson of a 768-wide layer measures
// hundreds of thousands of labels): widths must stay what stb_truetype's tables give, call by call.
namespace {
double stb_width(const stbtt_fontinfo& font, const std::vector<char32_t>& text, double px) {
  const float scale = stbtt_ScaleForMappingEmToPixels(&font, static_cast<float>(px));
  double w = 0;
  int previous = 0;
  for (char32_t c : text) {
    int g = stbtt_FindGlyphIndex(&font, static_cast<int>(c));
    if (g == 0) g = stbtt_FindGlyphIndex(&font, '?');
    int advance = 0, bearing = 0;
    stbtt_GetGlyphHMetrics(&font, g, &advance, &bearing);
    if (previous) w += scale * stbtt_GetGlyphKernAdvance(&font, previous, g);
    w += scale * advance;
    previous = g;
  }
  return w;
}
}  // namespace

TEST(ExportFont, TextWidthIsStbTrueTypesAdvancesAndKerning) {
  const char* env = std::getenv("ATTNLAB_FONT_DIR");
  const std::string path = std::string(env && *env ? env : "/usr/share/fonts/truetype/dejavu") + "/DejaVuSans.ttf";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::vector<unsigned char> data{std::istreambuf_iterator<char>(in), {}};
  stbtt_fontinfo font;
  ASSERT_TRUE(stbtt_InitFont(&font, data.data(), stbtt_GetFontOffsetForIndex(data.data(), 0)));
  const Font& ours = default_fonts().regular;
  for (int pass = 0; pass < 2; ++pass)  // the second pass reads the remembered metrics
    for (const std::string text : {"AVAWAY To -0.125", "0.00 1.23e-05", "head 5.3 \xC2\xB7 \xC3\xA9t\xC3\xA9 V\xC3\x81", "\xFFq"})
      for (double px : {11.0, 26.0}) {
        EXPECT_EQ(ours.text_width(text, px), stb_width(font, decode_utf8(text), px)) << text << " at " << px;
      }
  EXPECT_LT(ours.text_width("AV", 30), ours.text_width("A", 30) + ours.text_width("V", 30)) << "kerning applied";
}

}  // namespace test_export

