// Opens a scenario in the real window under Xvfb, takes a screenshot, and checks that heatmap cells
// of the attention weights show the colormap colour of the weight the core computes for that cell.
// The window's layout dump (OUT.png.json) only says where the cells are; the expected colours come
// from attnlab::compute + attnlab::MapValue here.
//
// usage: attnlab_gui_pixel_check APP SCENARIO OUT.png [extra app arguments...]
#include <stb_image.h>  // implementation in Debian's libstb.so

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/colormap.h"
#include "attnlab/scenario_io.h"

namespace {

constexpr int kTolerance = 2;          // per channel, 8-bit: rasterisation is exact, allow rounding
constexpr int kMinCheckedCells = 4;    // a test that checks nothing must not pass (fewer only when
                                       // a head's weights have fewer cells, e.g. one query)
constexpr int kMaxCellsPerHeatmap = 64;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  attnlab::Rgb8 At(int x, int y) const {
    const unsigned char* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    return {p[0], p[1], p[2]};
  }
};

std::string Quote(const std::string& s) { return "'" + s + "'"; }

bool LoadImage(const std::string& path, Image* image) {
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &image->width, &image->height, &n, 3);
  if (!data) return false;
  image->rgb.assign(data, data + static_cast<std::size_t>(image->width) * image->height * 3);
  stbi_image_free(data);
  return true;
}

int ChannelError(attnlab::Rgb8 a, attnlab::Rgb8 b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

// The most frequent colour inside [x0, x1) x [y0, y1): the cell's fill even where digits are
// printed over its centre. Also returns the share of pixels that have it.
attnlab::Rgb8 DominantColor(const Image& img, int x0, int y0, int x1, int y1, double* share) {
  std::map<unsigned, int> counts;
  int total = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const attnlab::Rgb8 c = img.At(x, y);
      ++counts[(unsigned(c.r) << 16) | (unsigned(c.g) << 8) | c.b];
      ++total;
    }
  auto best = std::max_element(counts.begin(), counts.end(),
                               [](auto& a, auto& b) { return a.second < b.second; });
  *share = total ? double(best->second) / total : 0.0;
  const unsigned v = best->first;
  return {static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 8),
          static_cast<unsigned char>(v)};
}

struct Totals {
  int heatmaps = 0, checked = 0, failures = 0, max_error = 0;
};

void CheckHeatmap(const nlohmann::json& hm, const attnlab::Trace& trace, const Image& img,
                  attnlab::Colormap map, attnlab::Rgb8 masked_rgb, float fb_scale, Totals* t) {
  const int head = hm["head"];
  if (head < 0 || head >= int(trace.heads.size())) {
    std::printf("FAIL %s: head %d out of range\n", hm["id"].get<std::string>().c_str(), head);
    ++t->failures;
    return;
  }
  const attnlab::Matrix& w = trace.heads[static_cast<std::size_t>(head)].weights;
  const attnlab::Matrix& masked = trace.heads[static_cast<std::size_t>(head)].masked;
  const std::string id = hm["id"];
  if (hm["rows"] != w.rows() || hm["cols"] != w.cols() || hm["lo"] != 0.0 || hm["hi"] != 1.0 ||
      hm["colormap"] != attnlab::ColormapName(map)) {
    std::printf("FAIL %s: drawn as %dx%d [%g, %g] %s, core weights are %dx%d on [0, 1] %s\n",
                id.c_str(), hm["rows"].get<int>(), hm["cols"].get<int>(), hm["lo"].get<double>(),
                hm["hi"].get<double>(), hm["colormap"].get<std::string>().c_str(), int(w.rows()),
                int(w.cols()), attnlab::ColormapName(map));
    ++t->failures;
    return;
  }
  ++t->heatmaps;
  const float x0 = hm["x0"], y0 = hm["y0"], cell = hm["cell"], gap = hm["gap"];
  const auto clip = hm["clip"].get<std::vector<float>>();
  const bool values = hm["values_drawn"];
  const long cells = w.rows() * w.cols();
  const long stride = std::max(1L, cells / kMaxCellsPerHeatmap);
  for (long k = 0; k < cells; k += stride) {
    const int r = int(k / w.cols()), c = int(k % w.cols());
    const float left = x0 + c * cell, top = y0 + r * cell;
    const float right = left + cell - gap, bottom = top + cell - gap;
    if (left < clip[0] || top < clip[1] || right > clip[2] || bottom > clip[3]) continue;
    const int cx = int(std::floor((left + right) * 0.5f * fb_scale));
    const int cy = int(std::floor((top + bottom) * 0.5f * fb_scale));
    if (cx < 0 || cy < 0 || cx >= img.width || cy >= img.height) continue;
    const bool is_masked = masked(r, c) == -INFINITY;
    const attnlab::Rgb8 expected =
        is_masked ? masked_rgb : attnlab::MapValue({map, 0.0, 1.0}, w(r, c));
    attnlab::Rgb8 actual = img.At(cx, cy);
    double share = 1.0;
    const int inset = 2;
    const bool has_interior = (right - left) * fb_scale > 2 * inset + 2;
    if ((values || is_masked) && has_interior) {
      // Digits or hatching cover the centre: use the cell's dominant colour instead.
      actual = DominantColor(img, int(std::ceil(left * fb_scale)) + inset,
                             int(std::ceil(top * fb_scale)) + inset,
                             int(std::floor(right * fb_scale)) - inset,
                             int(std::floor(bottom * fb_scale)) - inset, &share);
    }
    const int err = ChannelError(actual, expected);
    t->max_error = std::max(t->max_error, err);
    ++t->checked;
    if (err > kTolerance || share < 0.4) {
      ++t->failures;
      std::printf("FAIL %s cell (%d, %d) at (%d, %d): weight %.6f%s expects rgb(%d, %d, %d), "
                  "screen has rgb(%d, %d, %d) (error %d, share %.2f)\n",
                  id.c_str(), r, c, cx, cy, w(r, c), is_masked ? " masked" : "", expected.r,
                  expected.g, expected.b, actual.r, actual.g, actual.b, err, share);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s APP SCENARIO OUT.png [app arguments...]\n", argv[0]);
    return 2;
  }
  const std::string app = argv[1], scenario_path = argv[2], out = argv[3];
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::filesystem::remove(out);
  std::string command = Quote(app) + " " + Quote(scenario_path) + " --screenshot " + Quote(out);
  for (int i = 4; i < argc; ++i) command += " " + Quote(argv[i]);
  std::printf("running: %s\n", command.c_str());
  if (std::system(command.c_str()) != 0) {
    std::printf("FAIL: the window exited with an error\n");
    return 1;
  }
  Image img;
  if (!LoadImage(out, &img)) {
    std::printf("FAIL: cannot read %s\n", out.c_str());
    return 1;
  }
  const nlohmann::json dump = nlohmann::json::parse(std::ifstream(out + ".json"));
  if (dump["framebuffer"][0] != img.width || dump["framebuffer"][1] != img.height) {
    std::printf("FAIL: PNG is %dx%d, the framebuffer was %s\n", img.width, img.height,
                dump["framebuffer"].dump().c_str());
    return 1;
  }
  attnlab::Colormap map;
  if (!attnlab::ColormapFromName(dump["colormap"].get<std::string>().c_str(), &map)) return 1;
  const auto m = dump["masked_rgb"].get<std::vector<int>>();
  const attnlab::Rgb8 masked_rgb{static_cast<unsigned char>(m[0]), static_cast<unsigned char>(m[1]),
                                 static_cast<unsigned char>(m[2])};
  const attnlab::Trace trace = attnlab::compute(attnlab::load_scenario(scenario_path));
  Totals totals;
  for (const nlohmann::json& hm : dump["heatmaps"])
    if (hm["matrix"] == "weights")
      CheckHeatmap(hm, trace, img, map, masked_rgb, dump["framebuffer_scale"], &totals);
  std::printf("%d weights heatmaps, %d cells checked, %d failures, max channel error %d\n",
              totals.heatmaps, totals.checked, totals.failures, totals.max_error);
  const int required = int(std::min<long>(kMinCheckedCells, trace.heads.front().weights.size()));
  if (totals.checked < required) {
    std::printf("FAIL: fewer than %d visible weight cells were checked\n", required);
    return 1;
  }
  return totals.failures == 0 ? 0 : 1;
}
