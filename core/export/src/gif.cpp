// Animated GIF encoding with giflib 5 (gif.h): global palette, NETSCAPE2.0 loop, one graphics
// control extension (delay, disposal, transparency) before each full-size frame.
#include "attnlab/export/gif.h"

#include <gif_lib.h>

#include <algorithm>
#include <cmath>

#include "attnlab/export/figure.h"

namespace attnlab::exporter {
namespace {

constexpr int kGreys = 32;  // 8-level steps: anti-aliased ink on the page never lands far off

void add_unique(std::vector<Rgba8>& p, Rgba8 c) {
  c.a = 255;
  if (std::find(p.begin(), p.end(), c) == p.end()) p.push_back(c);
}

std::string gif_error(const char* what, int code) {
  const char* text = GifErrorString(code);
  return std::string("gif: ") + what + ": " + (text ? text : "giflib error " + std::to_string(code));
}

int write_bytes(GifFileType* gif, const GifByteType* data, int size) {
  static_cast<std::string*>(gif->UserData)->append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
  return size;
}

}  // namespace

struct GifEncoder::Gif {
  GifFileType* file = nullptr;
};

std::vector<Rgba8> gif_palette(Colormap map, bool transparent) {
  std::vector<Rgba8> p;
  for (Rgba8 c : {palette::page, palette::ink, palette::dim, palette::masked_fill, palette::masked_hatch,
                  palette::masked_ink, palette::band, Rgba8{0, 0, 0, 255}, Rgba8{255, 255, 255, 255}})
    add_unique(p, c);
  for (int k = 0; k < kGreys; ++k) {
    const auto g = static_cast<std::uint8_t>(std::lround(255.0 * k / (kGreys - 1)));
    add_unique(p, {g, g, g, 255});
  }
  const int samples = kGifPaletteSize - static_cast<int>(p.size()) - (transparent ? 1 : 0);
  for (int k = 0; k < samples; ++k) {
    const Rgb8 c = MapColor(map, static_cast<double>(k) / (samples - 1));
    p.push_back({c.r, c.g, c.b, 255});  // duplicates of a grey map only waste entries
  }
  if (transparent) p.push_back({palette::page.r, palette::page.g, palette::page.b, 0});
  return p;
}

int nearest_palette_index(const std::vector<Rgba8>& palette, Rgba8 c) {
  int best = 0;
  long best_d = -1;
  for (std::size_t k = 0; k < palette.size(); ++k) {
    if (palette[k].a == 0) continue;  // the transparent entry is for transparent pixels only
    const long dr = palette[k].r - c.r, dg = palette[k].g - c.g, db = palette[k].b - c.b;
    const long d = dr * dr + dg * dg + db * db;
    if (best_d < 0 || d < best_d) {
      best_d = d;
      best = static_cast<int>(k);
    }
  }
  return best;
}

GifEncoder::GifEncoder(int width, int height, std::vector<Rgba8> palette, int delay_cs, bool transparent)
    : gif_(std::make_unique<Gif>()), width_(width), height_(height), delay_cs_(delay_cs), transparent_(transparent),
      palette_(std::move(palette)) {
  if (width < 1 || height < 1 || width > 65535 || height > 65535)
    throw ExportError("gif: " + std::to_string(width) + "x" + std::to_string(height) + " is outside GIF's 1 to 65535");
  if (static_cast<int>(palette_.size()) != kGifPaletteSize)
    throw ExportError("gif: expected a palette of 256 colours, got " + std::to_string(palette_.size()));
  int error = 0;
  gif_->file = EGifOpen(&bytes_, write_bytes, &error);
  if (!gif_->file) throw ExportError(gif_error("open", error));
  EGifSetGifVersion(gif_->file, true);  // GIF89a: the loop and delay extensions
  ColorMapObject* map = GifMakeMapObject(kGifPaletteSize, nullptr);
  if (!map) throw ExportError("gif: out of memory");
  for (int k = 0; k < kGifPaletteSize; ++k) map->Colors[k] = {palette_[k].r, palette_[k].g, palette_[k].b};
  const int ok = EGifPutScreenDesc(gif_->file, width, height, 8, 0, map);
  GifFreeMapObject(map);  // EGifPutScreenDesc keeps its own copy
  if (ok != GIF_OK) throw ExportError(gif_error("screen", gif_->file->Error));
  // NETSCAPE2.0 application extension: sub-block 1, loop count 0 = forever.
  const unsigned char app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  unsigned char loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif_->file, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
      EGifPutExtensionBlock(gif_->file, sizeof app, app) != GIF_OK ||
      EGifPutExtensionBlock(gif_->file, sizeof loop, loop) != GIF_OK || EGifPutExtensionTrailer(gif_->file) != GIF_OK)
    throw ExportError(gif_error("loop extension", gif_->file->Error));
}

GifEncoder::~GifEncoder() {
  if (gif_ && gif_->file) EGifCloseFile(gif_->file, nullptr);
}

void GifEncoder::add_frame(const Canvas& frame) {
  if (!gif_->file) throw ExportError("gif: frame added after finish()");
  if (frame.width() != width_ || frame.height() != height_)
    throw ExportError("gif: frame " + std::to_string(frames_) + " is " + std::to_string(frame.width()) + "x" +
                      std::to_string(frame.height()) + ", the GIF " + std::to_string(width_) + "x" + std::to_string(height_));
  GraphicsControlBlock gcb{};
  // Frames are full size; with transparency the previous frame must not show through.
  gcb.DisposalMode = transparent_ ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT;
  gcb.DelayTime = delay_cs_;
  gcb.TransparentColor = transparent_ ? kGifPaletteSize - 1 : NO_TRANSPARENT_COLOR;
  GifByteType ext[4];
  const size_t n = EGifGCBToExtension(&gcb, ext);
  if (EGifPutExtension(gif_->file, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(n), ext) != GIF_OK ||
      EGifPutImageDesc(gif_->file, 0, 0, width_, height_, false, nullptr) != GIF_OK)
    throw ExportError(gif_error("frame", gif_->file->Error));
  std::vector<GifPixelType> line(static_cast<std::size_t>(width_));
  for (int y = 0; y < height_; ++y) {
    for (int x = 0; x < width_; ++x) {
      const std::uint8_t* px = frame.data() + (static_cast<std::size_t>(y) * width_ + x) * 4;
      if (transparent_ && px[3] < 128) {
        line[static_cast<std::size_t>(x)] = kGifPaletteSize - 1;
        continue;
      }
      const std::uint32_t key = px[0] | px[1] << 8 | static_cast<std::uint32_t>(px[2]) << 16;
      auto it = nearest_.find(key);
      if (it == nearest_.end())
        it = nearest_.emplace(key, static_cast<std::uint8_t>(nearest_palette_index(palette_, {px[0], px[1], px[2], 255}))).first;
      line[static_cast<std::size_t>(x)] = it->second;
    }
    if (EGifPutLine(gif_->file, line.data(), width_) != GIF_OK) throw ExportError(gif_error("line", gif_->file->Error));
  }
  ++frames_;
}

std::string GifEncoder::finish() {
  if (gif_->file) {
    int error = 0;
    const int ok = EGifCloseFile(gif_->file, &error);  // writes the trailer and frees the file
    gif_->file = nullptr;
    if (ok != GIF_OK) throw ExportError(gif_error("close", error));
  }
  return bytes_;
}

}  // namespace attnlab::exporter
