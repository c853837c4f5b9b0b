// What a rectangle of the window shows, read back from the X server, for the window test scripts
// that drive attnlab-harness with xdotool (cell_typing.sh, heads_control.sh, ...):
//   attnlab_gui_probe WINDOW X0 Y0 X1 Y1 [R,G,B,TOL]
// prints one line "R G B SHARE HASH COUNT": the most frequent colour of [X0, X1) x [Y0, Y1) and its
// share of the pixels, a hash of every pixel (equal hashes: the same picture), and how many pixels
// lie within TOL (per channel) of R,G,B (0 without it). Exit 1 when the window cannot be read.
#include "attnlab/colormap.h"
#include "gui_check_support.h"  // before X11: it includes Eigen through attnlab
#include "gui_x11_support.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gui_probe {

namespace {

using gui_check::Image;

std::uint64_t Hash(const Image& img, int x0, int y0, int x1, int y1) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (int y = std::max(y0, 0); y < std::min(y1, img.height); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, img.width); ++x) {
      const attnlab::Rgb8 c = img.At(x, y);
      for (unsigned char b : {c.r, c.g, c.b}) h = (h ^ b) * 1099511628211ull;
    }
  return h;
}

int CountNear(const Image& img, int x0, int y0, int x1, int y1, attnlab::Rgb8 want, int tol) {
  int n = 0;
  for (int y = std::max(y0, 0); y < std::min(y1, img.height); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, img.width); ++x)
      n += gui_check::ChannelError(img.At(x, y), want) <= tol;
  return n;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr, "usage: %s WINDOW X0 Y0 X1 Y1 [R,G,B,TOL]\n", argv[0]);
    return 2;
  }
  const unsigned long window = std::stoul(argv[1]);
  const int x0 = std::atoi(argv[2]), y0 = std::atoi(argv[3]);
  const int x1 = std::atoi(argv[4]), y1 = std::atoi(argv[5]);
  int r = 0, g = 0, b = 0, tol = -1;
  if (argc == 7 && std::sscanf(argv[6], "%d,%d,%d,%d", &r, &g, &b, &tol) != 4) {
    std::fprintf(stderr, "%s: expected R,G,B,TOL, got %s\n", argv[0], argv[6]);
    return 2;
  }
  Display* dpy = XOpenDisplay(nullptr);
  Image img;
  if (!dpy || !gui_check::Capture(dpy, window, &img)) {
    std::fprintf(stderr, "%s: cannot read window %lu\n", argv[0], window);
    return 1;
  }
  XCloseDisplay(dpy);
  double share = 0;
  const attnlab::Rgb8 top = gui_check::DominantColor(img, x0, y0, x1, y1, &share);
  const attnlab::Rgb8 want{static_cast<unsigned char>(r), static_cast<unsigned char>(g),
                           static_cast<unsigned char>(b)};
  std::printf("%d %d %d %.3f %016llx %d\n", top.r, top.g, top.b, share,
              static_cast<unsigned long long>(Hash(img, x0, y0, x1, y1)),
              tol < 0 ? 0 : CountNear(img, x0, y0, x1, y1, want, tol));
  return 0;
}

}  // namespace gui_probe
