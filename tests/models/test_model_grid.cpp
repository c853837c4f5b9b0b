// The model grid (`attnlab-cli export MODEL_DIR --text TEXT --out DIR`, core/export's
// model_grid.h): every layer's and head's weights of a fixture model drawn as `attnlab-cli model
// --attention` prints them. The SVG names every cell (layer, head, row, col) and its place; the
// PNG, decoded, has the colormap colour of that weight at the centre of that place, and masked
// cells are hatched grey.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#define STB_IMAGE_STATIC  // this file's own decoder: the binary links no libstb
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "../test_support.h"
#include "attnlab/colormap.h"

namespace test_model_grid {

namespace {

namespace fs = std::filesystem;
using attnlab::testing::run_shell_apart;
using attnlab::testing::ScratchDir;
using nlohmann::json;

const ScratchDir scratch("attnlab_model_grid_");
const std::string kCli = ATTNLAB_CLI;
const std::string kText = "The quick brown fox jumps over the lazy dog";

std::string model_dir(const std::string& name) {
  return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/models/" + name;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Png {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;
  attnlab::Rgb8 at(int x, int y) const {
    const unsigned char* p = &rgba[(static_cast<std::size_t>(y) * width + x) * 4];
    return {p[0], p[1], p[2]};
  }
};

Png read_png(const fs::path& path) {
  Png image;
  int channels = 0;
  unsigned char* data = stbi_load(path.string().c_str(), &image.width, &image.height, &channels, 4);
  if (!data) return image;
  image.rgba.assign(data, data + static_cast<std::size_t>(image.width) * image.height * 4);
  stbi_image_free(data);
  return image;
}

/// One <rect class="cell"> of the SVG.
struct SvgCell {
  bool masked = false;
  int x = 0, y = 0, w = 0, h = 0;
  std::string fill;
  double value = 0;
};
using CellKey = std::tuple<int, int, int, int>;  // layer, head, row, col

std::map<CellKey, SvgCell> svg_cells(const std::string& svg) {
  std::map<CellKey, SvgCell> cells;
  std::istringstream lines(svg);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("<rect class=\"cell", 0) != 0) continue;
    SvgCell c;
    c.masked = line.rfind("<rect class=\"cell masked\"", 0) == 0;
    int layer = -1, head = -1, row = -1, col = -1;
    char fill[64] = {0};
    const char* attributes = std::strstr(line.c_str(), "data-layer");
    if (std::sscanf(
            attributes,
            "data-layer=\"%d\" data-head=\"%d\" data-row=\"%d\" data-col=\"%d\" data-value=\"%lf\" "
            "x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%63[^\"]\"",
            &layer, &head, &row, &col, &c.value, &c.x, &c.y, &c.w, &c.h, fill) == 10) {
      c.fill = fill;
      cells[{layer, head, row, col}] = c;
    }
  }
  return cells;
}

std::string hex(attnlab::Rgb8 c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c.r, c.g, c.b);
  return buffer;
}

json attention(const std::string& dir, const std::string& how) {
  const auto r = run_shell_apart(kCli + " model " + dir + " " + how + " --attention");
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

/// Exports the grid as PNG (scale 2) and SVG and checks every cell of every layer and head; a
/// decoder's cells above the diagonal are hatched, an encoder's (`causal` false) drawn as the
/// others.
void check_grid(const std::string& name, const std::string& how, bool causal = true) {
  const std::string dir = model_dir(name);
  const json run = attention(dir, how);
  const fs::path out = scratch.fresh(name);
  const auto r = run_shell_apart(kCli + " export " + dir + " " + how + " --out " + out.string() +
                                 " --format png,svg --scale 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            (out / "model-grid.png").string() + "\n" + (out / "model-grid.svg").string() + "\n");
  const std::string svg = read_bytes(out / "model-grid.svg");
  const Png png = read_png(out / "model-grid.png");
  ASSERT_GT(png.width, 0);
  const auto cells = svg_cells(svg);

  const json& layers = run.at("layers");
  const int n = static_cast<int>(run.at("tokens").size());
  std::size_t expected_cells = 0, masked = 0;
  int worst = 0;  // largest channel difference between the PNG and the colormap, unmasked cells
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (std::size_t h = 0; h < layers[l].at("heads").size(); ++h)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j, ++expected_cells) {
          SCOPED_TRACE(name + " layer " + std::to_string(l) + " head " + std::to_string(h) +
                       " cell " + std::to_string(i) + "," + std::to_string(j));
          const double w = layers[l]["heads"][h]["weights"][i][j].get<double>();
          const auto found = cells.find({int(l), int(h), i, j});
          ASSERT_NE(found, cells.end());
          const SvgCell& c = found->second;
          EXPECT_FLOAT_EQ(c.value, w);
          const attnlab::Rgb8 pixel =
              png.at(2 * c.x + c.w, 2 * c.y + c.h);  // the centre at scale 2
          if (causal && j > i) {                     // causal: masked, and its weight exactly 0
            ++masked;
            EXPECT_EQ(w, 0.0);
            EXPECT_TRUE(c.masked);
            EXPECT_EQ(c.fill, "url(#masked)");
            // masked_fill (232) with the hatch's lines (160) blended in: a neutral grey, never
            // viridis
            EXPECT_TRUE(pixel.r == pixel.g && pixel.g == pixel.b && pixel.r >= 160 &&
                        pixel.r <= 232)
                << int(pixel.r) << "," << int(pixel.g) << "," << int(pixel.b);
            continue;
          }
          const attnlab::Rgb8 want = attnlab::MapValue({attnlab::Colormap::Viridis, 0.0, 1.0}, w);
          EXPECT_FALSE(c.masked);
          EXPECT_EQ(c.fill, hex(want));
          worst = std::max({worst, std::abs(pixel.r - want.r), std::abs(pixel.g - want.g),
                            std::abs(pixel.b - want.b)});
        }
  std::printf("%s: %zu cells (%zu masked), largest PNG channel difference %d\n", name.c_str(),
              expected_cells, masked, worst);
  EXPECT_EQ(cells.size(), expected_cells);
  EXPECT_EQ(worst, 0);  // the centre of a cell is never touched by text or neighbours: exact
  // The PNG is the SVG's layout at twice the size.
  int width = 0, height = 0;
  ASSERT_EQ(std::sscanf(svg.c_str() + svg.find("<svg "),
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\"",
                        &width, &height),
            2);
  EXPECT_EQ(png.width, 2 * width);
  EXPECT_EQ(png.height, 2 * height);
  EXPECT_LE(width, 1920);
  EXPECT_LE(height, 1080);
}

TEST(ModelGrid, Gpt2EveryLayerAndHeadMatchesTheForwardRun) {
  check_grid("gpt2-f32", "--text '" + kText + "'");
}

TEST(ModelGrid, LlamaGqaEveryLayerAndHeadMatchesTheForwardRun) {
  check_grid("llama-gqa-bf16", "--text '" + kText + "'");
}

// An encoder's tokens see each other: every cell is its weight's colour, none hatched.
TEST(ModelGrid, BertEveryCellIsDrawnWithoutACausalTriangle) {
  check_grid("bert-f32", "--text 'The cat [MASK] on the mat.'", false);
}

TEST(ModelGrid, CaptionsAndTokenLabelsAreInTheSvg) {
  const fs::path out = scratch.fresh("captions");
  const auto r = run_shell_apart(kCli + " export " + model_dir("gpt2-f32") + " --text '" + kText +
                                 "' --out " + out.string() + " --format svg");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string svg = read_bytes(out / "model-grid.svg");
  for (const char* text : {">layer 0</text>", ">layer 1</text>", ">head 0</text>", ">head 1</text>",
                           ">\xE2\x90\xA3"
                           "fox</text>",  // a space shown as U+2423, which DejaVu Sans draws
                           "gpt2-f32 \xE2\x80\x93 attention weights", "The quick brown fox"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
}

TEST(ModelGrid, IdsGiveTheSameCellsAsTheirText) {
  const std::string dir = model_dir("gpt2-f32");
  const json run = attention(dir, "--text '" + kText + "'");
  std::string ids;
  for (const json& id : run.at("ids"))
    ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  std::map<CellKey, SvgCell> by[2];
  for (int k = 0; k < 2; ++k) {
    const fs::path out = scratch.fresh("ids" + std::to_string(k));
    const auto r = run_shell_apart(kCli + " export " + dir +
                                   (k ? " --ids " + ids : " --text '" + kText + "'") + " --out " +
                                   out.string() + " --format svg");
    ASSERT_EQ(r.status, 0) << r.err;
    by[k] = svg_cells(read_bytes(out / "model-grid.svg"));
  }
  ASSERT_FALSE(by[0].empty());
  ASSERT_EQ(by[0].size(), by[1].size());
  for (const auto& [key, cell] : by[0]) EXPECT_EQ(by[1][key].fill, cell.fill);
}

/// A refusal: `status`, nothing on stdout, `message` in stderr's first line (and, for bad usage,
/// only the pointer to --help after it), and no output folder.
void expect_refusal(const std::string& args, int status, const std::string& message) {
  const fs::path out = scratch.fresh("refused", false);
  const auto r = run_shell_apart(kCli + " export " + args + " --out " + out.string());
  SCOPED_TRACE(args);
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(r.out, "");
  const std::size_t eol = r.err.find('\n');
  ASSERT_NE(eol, std::string::npos) << r.err;
  EXPECT_NE(r.err.substr(0, eol).find(message), std::string::npos) << r.err;
  const std::string rest = r.err.substr(eol + 1);
  if (status == 2)
    EXPECT_EQ(rest, "Run 'attnlab-cli export --help' for the options.\n");
  else
    EXPECT_EQ(rest, "");
  EXPECT_FALSE(fs::exists(out));
}

TEST(ModelGrid, RefusalsAreOneLineAndWriteNothing) {
  const std::string gpt2 = model_dir("gpt2-f32");
  const std::string scenario =
      std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets/udl-12-2-multihead.json";
  expect_refusal(gpt2 + " --text 'a cat' --ids 1,2", 2, "give --text or --ids, not both");
  expect_refusal(gpt2, 2, "needs --text TEXT or --ids LIST");
  expect_refusal(scenario + " --text 'a cat'", 2, "--text reads a model folder");
  expect_refusal(scenario + " --ids 1,2", 2, "--ids reads a model folder");
  expect_refusal(gpt2 + " --text 'a cat' --lesson", 2, "--lesson is for scenario files");
  expect_refusal(gpt2 + " --text 'a cat' --what weights", 2, "--what is for scenario files");
  expect_refusal(gpt2 + " --text 'a cat' --format csv", 2, "--format expects png, svg");
  expect_refusal(gpt2 + " --ids 1,x", 2, "--ids");
  // The model's own refusals: "DIR: message", exit 1.
  const fs::path empty = scratch.fresh("not-a-model");
  expect_refusal(empty.string() + " --text 'a cat'", 1, empty.string() + ": ");
  expect_refusal(gpt2 + " --ids 1,999999", 1, gpt2 + ": ");
  expect_refusal(gpt2 + " --text ''", 1, gpt2 + ": ");
}

}  // namespace

}  // namespace test_model_grid
