#pragma once
/// A PDF of raster pages, the lesson's handout (`attnlab-cli export FILE --lesson --format pdf`): one
/// page per image, each image filling a 16:9 page of 960 x 540 points (13.33 x 7.5 in, the size of
/// a widescreen slide), losslessly compressed. Written here rather than with cairo: the slides are
/// already pixels, and PDF's FlateDecode with the PNG predictors (/Predictor 15) reads the rows
/// stb_image_write compresses for a PNG as they are, so the PNG encoder the exporter already links
/// makes the PDF too.
#include <string>
#include <vector>

#include "attnlab/export/canvas.h"

namespace attnlab::exporter {

/// 16:9 pages of 960 x 540 points.
constexpr int kPdfPageWidth = 960, kPdfPageHeight = 540;

class PdfPages {
 public:
  /// Adds a page showing `image` (opaque: its alpha channel is dropped).
  void add(const Canvas& image);
  std::size_t size() const { return pages_.size(); }
  /// The whole document. Throws ExportError when no page was added.
  std::string finish() const;

 private:
  struct Page {
    int width = 0, height = 0;
    std::string deflated;  ///< the image's rows with PNG filter bytes, zlib-compressed (PNG's IDAT data)
  };
  std::vector<Page> pages_;
};

}  // namespace attnlab::exporter
