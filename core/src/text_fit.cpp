#include "attnlab/text_fit.h"

namespace attnlab {
namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::size_t longest_fitting(std::size_t n, const std::function<bool(std::size_t)>& fits) {
  std::size_t good = 0, bad = n + 1;  // fits(good) holds; fits(bad) does not (n + 1: past the end)
  for (std::size_t k = 1; k <= n; k = k * 2 + 1) {
    if (!fits(k)) {
      bad = k;
      break;
    }
    good = k;
  }
  if (bad == n + 1 && good < n) {
    if (fits(n)) return n;
    bad = n;
  }
  while (bad - good > 1) {
    const std::size_t mid = good + (bad - good) / 2;
    (fits(mid) ? good : bad) = mid;
  }
  return good;
}

double width_up_to(std::string_view text, double cap, const std::function<double(std::string_view)>& width) {
  for (std::size_t count = 16;; count *= 2) {
    const std::size_t end = after_code_points(text, count);
    const double w = width(text.substr(0, end));
    if (end == text.size() || w > cap) return w;
  }
}

std::size_t after_code_points(std::string_view text, std::size_t count) {
  std::size_t i = 0;
  for (std::size_t k = 0; k < count && i < text.size(); ++k) {
    ++i;
    while (i < text.size() && continuation(text[i])) ++i;
  }
  return i;
}

std::size_t before_last_code_points(std::string_view text, std::size_t count) {
  std::size_t i = text.size();
  for (std::size_t k = 0; k < count && i > 0; ++k) {
    --i;
    while (i > 0 && continuation(text[i])) --i;
  }
  return i;
}

}  // namespace attnlab
