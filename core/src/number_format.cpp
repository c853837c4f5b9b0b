#include "attnlab/number_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace attnlab {

std::string format_fixed(double v, int decimals) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  decimals = std::clamp(decimals, 0, 17);
  char buffer[400];  // %f of the largest double is 309 digits before the point
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  std::string s = buffer;
  // Every digit zero: the value rounded to zero, whatever its sign was.
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string format_number(double v, int decimals) {
  if (v == -std::numeric_limits<double>::infinity()) return "\xE2\x88\x92\xE2\x88\x9E";
  std::string s = format_fixed(v, decimals);
  if (s[0] == '-') s.replace(0, 1, "\xE2\x88\x92");  // U+2212
  return s;
}

std::string format_significant(double v, int digits, bool sign) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : (sign ? "+\xE2\x88\x9E" : "\xE2\x88\x9E");
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, sign ? "%+#.*g" : "%.*g", std::clamp(digits, 1, 17), v);
  std::string s = buffer;
  if (s[0] == '-') s.replace(0, 1, "\xE2\x88\x92");  // U+2212, as format_number
  return s;
}

std::string format_trimmed(double v, int decimals) {
  std::string s = format_fixed(v, decimals);
  if (s.find('.') == std::string::npos || !std::isfinite(v)) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace attnlab
