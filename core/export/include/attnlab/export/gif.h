#pragma once
/// Animated GIFs of figures (a sweep's frames), encoded with giflib. A GIF holds at most 256
/// colours: the palette is built for the figure's colormap, and each pixel takes its nearest entry.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/export/canvas.h"

namespace attnlab::exporter {

constexpr int kGifPaletteSize = 256;

/// The colours a figure drawn with `map` uses: the figure's page, ink and masked-cell colours, a
/// ramp of greys for anti-aliased text and hatching, and the rest of the 256 entries sampled evenly
/// along `map` (so a cell's colour is within one sample step of the PNG's). With `transparent`, the
/// last entry is reserved for transparent pixels (its colour is the page's).
std::vector<Rgba8> gif_palette(Colormap map, bool transparent = false);

/// Index of the entry of `palette` nearest to `c` (squared RGB distance; the first on ties).
int nearest_palette_index(const std::vector<Rgba8>& palette, Rgba8 c);

/// GIF89a bytes, frame by frame, looping forever (the NETSCAPE2.0 extension). Every frame is
/// width by height, shown for `delay_cs` hundredths of a second. Frames are encoded as they come,
/// so a long sweep holds compressed bytes, not canvases.
class GifEncoder {
 public:
  /// Throws ExportError for a size out of GIF's 16-bit range or a palette of another size than 256.
  GifEncoder(int width, int height, std::vector<Rgba8> palette, int delay_cs, bool transparent);
  ~GifEncoder();
  GifEncoder(const GifEncoder&) = delete;
  GifEncoder& operator=(const GifEncoder&) = delete;

  /// Appends a frame; throws ExportError when its size is not the GIF's.
  void add_frame(const Canvas& frame);
  int frames() const { return frames_; }
  /// Closes the stream (the GIF trailer) and returns the whole file's bytes.
  std::string finish();

 private:
  struct Gif;
  std::unique_ptr<Gif> gif_;
  std::string bytes_;
  int width_, height_, delay_cs_;
  bool transparent_;
  int frames_ = 0;
  std::vector<Rgba8> palette_;
  std::unordered_map<std::uint32_t, std::uint8_t> nearest_;  ///< RGBA -> index: figures have few colours
};

}  // namespace attnlab::exporter
