// View > Precision with real keys (precision.sh drives the window, this compares its captures):
// the layout dumps report the precision chosen (2, then 3 after ".", back to 2 after ","), the
// Heads panel's weights (always in view, whatever the Pipeline's scroll and wrapping) print 2 and
// then 3 decimals, and the text in their cells takes more ink at 3
// decimals than at 2 (one digit more in every cell), and the same ink again back at 2.
// usage: gui_precision_check P2.png P3.png P2_AGAIN.png
#include <cstdio>
#include <string>

#include "gui_check_support.h"

namespace gui_precision_check {

namespace {

using gui_check::Image;

struct Capture {
  Image image;
  nlohmann::json dump;
  const nlohmann::json* weights = nullptr;  // the Pipeline's weights of the selected head
};

bool Load(const std::string& png, Capture* c) {
  if (!gui_check::LoadScreenshot(png, &c->image)) return false;
  c->dump = gui_check::LoadLayout(png);
  for (const nlohmann::json& hm : c->dump["heatmaps"])
    if (hm["window"].get<std::string>().rfind("Heads", 0) == 0 && hm["matrix"] == "weights")
      c->weights = &hm;
  if (!c->weights) std::printf("FAIL: %s: no Heads weights in the dump\n", png.c_str());
  return c->weights != nullptr;
}

// Pixels of visible cells that are far from their cell's dominant colour: the printed digits.
long InkInCells(const Capture& c) {
  const gui_check::Grid g = gui_check::GridOf(*c.weights);
  const float fb = c.dump["framebuffer_scale"].get<float>();
  long ink = 0;
  for (long r = 0; r < (*c.weights)["rows"].get<long>(); ++r)
    for (long col = 0; col < (*c.weights)["cols"].get<long>(); ++col) {
      const gui_check::CellRect cell = gui_check::CellAt(g, r, col);
      if (!gui_check::InClip(g, cell)) continue;
      double share = 0;
      const attnlab::Rgb8 fill = gui_check::InteriorColor(c.image, cell, fb, 1, &share);
      for (int y = int(cell.top * fb) + 1; y < int(cell.bottom * fb) - 1; ++y)
        for (int x = int(cell.left * fb) + 1; x < int(cell.right * fb) - 1; ++x)
          ink += gui_check::ChannelError(c.image.At(x, y), fill) > 60;
    }
  return ink;
}

bool Expect(bool ok, const char* what) {
  if (!ok) std::printf("FAIL: %s\n", what);
  return ok;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s P2.png P3.png P2_AGAIN.png\n", argv[0]);
    return 2;
  }
  Capture two, three, again;
  if (!Load(argv[1], &two) || !Load(argv[2], &three) || !Load(argv[3], &again)) return 1;
  const long ink2 = InkInCells(two), ink3 = InkInCells(three), ink2_again = InkInCells(again);
  std::printf("precision %d %d %d; weights print %d %d %d decimals; ink in cells %ld %ld %ld\n",
              two.dump["decimals"].get<int>(), three.dump["decimals"].get<int>(),
              again.dump["decimals"].get<int>(), (*two.weights)["decimals"].get<int>(),
              (*three.weights)["decimals"].get<int>(), (*again.weights)["decimals"].get<int>(),
              ink2, ink3, ink2_again);
  bool ok = Expect(
      two.dump["decimals"] == 2 && three.dump["decimals"] == 3 && again.dump["decimals"] == 2,
      "the dumps should report precision 2, 3 (after '.'), 2 (after ',')");
  ok &= Expect((*two.weights)["values_drawn"] == true && (*three.weights)["values_drawn"] == true,
               "the weights should print their values at 2 and at 3 decimals");
  ok &= Expect((*two.weights)["decimals"] == 2 && (*three.weights)["decimals"] == 3,
               "the weights should print 2 decimals, then 3");
  // "0.12" to "0.123": four glyphs to five; digits differ in ink, so ask for a clear 10% more.
  ok &= Expect(ink2 > 0 && ink3 * 10 > ink2 * 11,
               "cells at 3 decimals should carry more ink than at 2");
  ok &= Expect(ink2_again == ink2, "back at 2 decimals the cells should look as before");
  return ok ? 0 : 1;
}

}  // namespace gui_precision_check
