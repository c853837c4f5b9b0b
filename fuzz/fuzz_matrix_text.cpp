// libFuzzer target: the paste parser (matrix_text.h) on arbitrary text: NumPy's printed form and
// repr, PyTorch's tensor(...), Python lists, CSV / TSV / whitespace-separated lines.
//
// Oracles:
// - it throws nothing but a ScenarioError whose message is `pasted matrix: ...`;
// - a parsed matrix is at least 1 by 1, at most max(max_tokens, max_width) on each side, and every
//   entry is finite (the header's promise: non-finite values are refused);
// - the window's two copy formats paste back: matrix_to_csv ("Copy as CSV", %.17g) gives the same
//   matrix bit for bit; format_matrix(m, 4) ("Copy as NumPy", 4 decimals) gives the same shape and
//   every entry within half a unit of the 4th decimal (relative to max(1, |x|) in scientific
//   form). The second is checked only while every |x| <= 1e300, the magnitude the scenario limits
//   allow: 4 significant decimals of a number near DBL_MAX round up to infinity.
//
//   scripts/fuzz.sh [SECONDS]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "attnlab/limits.h"
#include "attnlab/matrix_text.h"
#include "attnlab/scenario.h"
#include "attnlab/trace_io.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

constexpr int kNumpyDecimals = 4;  // what the matrix editor's "Copy as NumPy" writes

attnlab::Matrix parse_or_trap(const std::string& text) {
  try {
    return attnlab::parse_matrix_text(text);
  } catch (const attnlab::ScenarioError&) {
    check(false);
  }
  return {};
}

bool same_bits(const attnlab::Matrix& a, const attnlab::Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  attnlab::Matrix m;
  try {
    m = attnlab::parse_matrix_text(text);
  } catch (const attnlab::ScenarioError& e) {
    check(std::string(e.what()).rfind("pasted matrix: ", 0) == 0);
    return 0;
  }
  const long limit = std::max(attnlab::limits::max_tokens, attnlab::limits::max_width);
  check(m.rows() >= 1 && m.cols() >= 1 && m.rows() <= limit && m.cols() <= limit);
  check(m.allFinite());

  check(same_bits(parse_or_trap(attnlab::matrix_to_csv(m)), m));

  if (m.cwiseAbs().maxCoeff() > 1e300) return 0;
  const attnlab::Matrix numpy = parse_or_trap(attnlab::format_matrix(m, kNumpyDecimals));
  check(numpy.rows() == m.rows() && numpy.cols() == m.cols());
  const double half_unit = 0.5 * std::pow(10.0, -kNumpyDecimals) * (1 + 1e-9);
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    const double x = m.data()[k];
    check(std::fabs(numpy.data()[k] - x) <= half_unit * std::max(1.0, std::fabs(x)));
  }
  return 0;
}
