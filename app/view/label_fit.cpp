#include "view/label_fit.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace attnlab::app {
namespace {

constexpr const char* kEllipsis = "\xE2\x80\xA6";

// Byte offsets where the label's code points start, and its length in bytes at the end.
std::vector<std::size_t> CodePointStarts(const std::string& s) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(s.size());
  return starts;
}

}  // namespace

std::string ElideMiddle(const std::string& label, float max_width, const TextWidthFn& width) {
  if (width(label) <= max_width) return label;
  const std::vector<std::size_t> at = CodePointStarts(label);
  const int n = static_cast<int>(at.size()) - 1;
  for (int keep = n - 1; keep >= 1; --keep) {
    const int head = keep / 2, tail = keep - head;
    const std::string s = label.substr(0, at[std::size_t(head)]) + kEllipsis +
                          label.substr(at[std::size_t(n - tail)]);
    if (width(s) <= max_width) return s;
  }
  return kEllipsis;
}

bool TellsApart(const std::vector<std::string>& shown) {
  std::set<std::string> seen;
  for (const std::string& s : shown)
    if (s == kEllipsis || !seen.insert(s).second) return false;
  return true;
}

std::vector<std::string> ElideEach(const std::vector<std::string>& labels, float max_width,
                                   const TextWidthFn& width) {
  std::vector<std::string> out;
  out.reserve(labels.size());
  for (const std::string& l : labels) out.push_back(ElideMiddle(l, max_width, width));
  return out;
}

int LabelStride(float need, float cell) {
  if (cell <= 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(need / cell - 1e-4f)));
}

}  // namespace attnlab::app
