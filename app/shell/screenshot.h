#pragma once
/// Reading back the rendered frame and writing it as PNG (stb_image_write from Debian's libstb).
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::app {

struct Capture {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  ///< top row first, 3 bytes per pixel
};

/// Reads the current back buffer (call after rendering, before the swap).
void ReadFramebuffer(int width, int height, Capture* out);
/// Writes `capture` as an RGB PNG. Returns false with `error` set on failure.
bool WritePng(const std::string& path, const Capture& capture, std::string* error);

}  // namespace attnlab::app
