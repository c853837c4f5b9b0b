// The handout PDF: PNG-compressed images, one per page, and the cross-reference table PDF readers
// use to find each object.
#include "attnlab/export/pdf.h"

#include <stb_image_write.h>  // implementation inside Debian's libstb.so

#include <cstdio>
#include <cstdint>

namespace attnlab::exporter {
namespace {

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  auto b = [&](std::size_t k) { return std::uint32_t(static_cast<unsigned char>(bytes[at + k])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// The concatenated data of a PNG's IDAT chunks: a zlib stream of filtered rows.
std::string idat_data(const std::string& png) {
  std::string out;
  for (std::size_t at = 8; at + 8 <= png.size();) {  // after the 8-byte signature
    const std::uint32_t length = big_endian(png, at);
    if (png.compare(at + 4, 4, "IDAT") == 0) out += png.substr(at + 8, length);
    at += 12 + std::size_t(length);  // length, type, data, CRC
  }
  return out;
}

std::string rgb_png(const Canvas& image) {
  std::vector<std::uint8_t> rgb;
  rgb.reserve(std::size_t(image.width()) * image.height() * 3);
  const std::uint8_t* p = image.data();
  for (std::size_t k = 0; k < std::size_t(image.width()) * image.height(); ++k, p += 4) rgb.insert(rgb.end(), p, p + 3);
  std::string bytes;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, image.width(), image.height(), 3, rgb.data(), image.width() * 3))
    throw ExportError("pdf: compressing a page failed");
  return bytes;
}

// Objects numbered from 1, their byte offsets kept for the cross-reference table.
struct Writer {
  std::string out = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";  // binary marker: the file holds binary streams
  std::vector<std::size_t> offsets;

  void object(const std::string& dictionary, const std::string& stream = {}, bool has_stream = false) {
    offsets.push_back(out.size());
    out += std::to_string(offsets.size()) + " 0 obj\n" + dictionary;
    if (has_stream) out += "\nstream\n" + stream + "\nendstream";
    out += "\nendobj\n";
  }

  std::string finish() {
    const std::size_t xref = out.size();
    out += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
    char entry[24];
    for (std::size_t offset : offsets) {
      std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", offset);
      out += entry;
    }
    out += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return std::move(out);
  }
};

std::string ref(std::size_t object) { return std::to_string(object) + " 0 R"; }

}  // namespace

void PdfPages::add(const Canvas& image) {
  pages_.push_back({image.width(), image.height(), idat_data(rgb_png(image))});
}

std::string PdfPages::finish() const {
  if (pages_.empty()) throw ExportError("pdf: the lesson has no steps, so no pages");
  Writer w;
  // 1: catalog, 2: page tree, then per page: the page, its content stream, its image.
  std::string kids;
  for (std::size_t i = 0; i < pages_.size(); ++i) kids += (i ? " " : "") + ref(3 + 3 * i);
  w.object("<< /Type /Catalog /Pages 2 0 R >>");
  w.object("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages_.size()) + " >>");
  const std::string size = std::to_string(kPdfPageWidth) + " " + std::to_string(kPdfPageHeight);
  const std::string draw = "q " + std::to_string(kPdfPageWidth) + " 0 0 " + std::to_string(kPdfPageHeight) +
                           " 0 0 cm /Im0 Do Q";
  for (std::size_t i = 0; i < pages_.size(); ++i) {
    const Page& p = pages_[i];
    const std::size_t page = 3 + 3 * i;
    w.object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 " + size + "] /Resources << /XObject << /Im0 " +
             ref(page + 2) + " >> >> /Contents " + ref(page + 1) + " >>");
    w.object("<< /Length " + std::to_string(draw.size()) + " >>", draw, true);
    const std::string width = std::to_string(p.width);
    w.object("<< /Type /XObject /Subtype /Image /Width " + width + " /Height " + std::to_string(p.height) +
                 " /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15"
                 " /Colors 3 /BitsPerComponent 8 /Columns " + width + " >> /Length " +
                 std::to_string(p.deflated.size()) + " >>",
             p.deflated, true);
  }
  return w.finish();
}

}  // namespace attnlab::exporter
