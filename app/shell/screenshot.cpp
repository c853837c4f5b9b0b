#include "shell/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>  // implementation lives in libstb.so: no STB_IMAGE_WRITE_IMPLEMENTATION

#include <algorithm>
#include <cstring>

namespace attnlab::app {

void ReadFramebuffer(int width, int height, Capture* out) {
  out->width = width;
  out->height = height;
  out->rgb.assign(static_cast<std::size_t>(width) * height * 3, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);  // rows of 3-byte pixels are not 4-byte aligned
  GLint framebuffer = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);
  if (framebuffer == 0) glReadBuffer(GL_BACK);  // an offscreen framebuffer reads its attachment
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, out->rgb.data());
  // OpenGL returns the bottom row first; PNG wants the top row first.
  const std::size_t stride = static_cast<std::size_t>(width) * 3;
  std::vector<std::uint8_t> row(stride);
  for (int y = 0; y < height / 2; ++y) {
    std::uint8_t* a = out->rgb.data() + y * stride;
    std::uint8_t* b = out->rgb.data() + (height - 1 - y) * stride;
    std::memcpy(row.data(), a, stride);
    std::memcpy(a, b, stride);
    std::memcpy(b, row.data(), stride);
  }
}

bool WritePng(const std::string& path, const Capture& capture, std::string* error) {
  if (capture.width <= 0 || capture.height <= 0) {
    *error = "nothing was captured";
    return false;
  }
  if (!stbi_write_png(path.c_str(), capture.width, capture.height, 3, capture.rgb.data(),
                      capture.width * 3)) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace attnlab::app
