// The window's pixels as the X server holds them (what the user sees), for the checkers that
// drive a real window: gui_input_check and gui_probe. Include after Eigen (attnlab headers):
// X11's headers #define Success, which Eigen uses as a name.
#pragma once

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include "gui_check_support.h"

namespace gui_check {

// Reads `window` whole into `img` as 8-bit RGB; false when the window is gone.
inline bool Capture(Display* dpy, unsigned long window, Image* img) {
  XWindowAttributes attr;
  if (!XGetWindowAttributes(dpy, window, &attr)) return false;
  XImage* x = XGetImage(dpy, window, 0, 0, attr.width, attr.height, AllPlanes, ZPixmap);
  if (!x) return false;
  img->width = attr.width;
  img->height = attr.height;
  img->rgb.resize(static_cast<std::size_t>(attr.width) * attr.height * 3);
  for (int y = 0; y < attr.height; ++y)
    for (int px = 0; px < attr.width; ++px) {
      const unsigned long p = XGetPixel(x, px, y);
      unsigned char* o = &img->rgb[(static_cast<std::size_t>(y) * attr.width + px) * 3];
      o[0] = static_cast<unsigned char>((p & x->red_mask) >> __builtin_ctzl(x->red_mask));
      o[1] = static_cast<unsigned char>((p & x->green_mask) >> __builtin_ctzl(x->green_mask));
      o[2] = static_cast<unsigned char>((p & x->blue_mask) >> __builtin_ctzl(x->blue_mask));
    }
  XDestroyImage(x);
  return true;
}

}  // namespace gui_check
