#pragma once
/// The large matrices of a scenario file read straight from its text (a 768-wide layer is 2.4
/// million numbers, 99% of its 68 MB): found where the reader takes a matrix (X, Z, W_q, W_k,
/// W_v, W_o, heads[h].W_q, kv_heads[g].W_v, ...), each number parsed by std::from_chars into one
/// buffer, so that only the small rest of the text goes through the general JSON reader. Only
/// what is unmistakably such a matrix is taken (strict JSON numbers, finite, rows of one length);
/// anything else stays in the text for the general reader and its messages.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/matrix.h"

namespace attnlab {

/// One matrix taken from the text.
struct TextMatrix {
  std::string field;  ///< as the reader names it: "X", "heads[3].W_q"
  std::size_t begin = 0, end = 0;  ///< its text, [begin, end): from its '[' to its last ']'
  Matrix matrix;
  /// The JSON values it held beyond the one the rest of the text keeps in its place (its rows
  /// and numbers), for the limit on a file's values.
  std::size_t values() const { return static_cast<std::size_t>(matrix.rows() * (matrix.cols() + 1)); }
};

/// The matrices of plain numbers at the fields read as matrices, in the order of the text.
/// A NUL must follow `text` (a std::string's terminator, or the loader's own) and none be in it
/// (the loader refuses those first): the scan stops at it.
std::vector<TextMatrix> find_text_matrices(std::string_view text);

/// Reads one JSON number at `p` (advanced past it) as the general reader does: strictly JSON's
/// grammar, correctly rounded, "-0" as a whole number (+0), anything out of double's range or not
/// JSON refused (false). `p` points into NUL-terminated text.
bool read_json_number(const char*& p, double& out);

}  // namespace attnlab
