#pragma once
/// Matrices as text, for the clipboard: what teachers copy out of notebooks and spreadsheets.
#include <string>

#include "attnlab/matrix.h"

namespace attnlab {

/// Parses a pasted matrix. Accepts NumPy's printed form (`[[ 0.1 -2. ]\n [ 3.  4. ]]`), its repr
/// (`array([[...]], dtype=float32)`), PyTorch's `tensor([...])`, Python lists (`[[1, 2], [3, 4]]`),
/// and CSV / TSV / whitespace-separated lines. A single row (`[1 2 3]`) is a 1 by n matrix.
/// Throws ScenarioError (`row 2, column 3: expected a number, got "abc"`) for anything else:
/// non-numbers, non-finite values, ragged rows, an empty paste.
Matrix parse_matrix_text(const std::string& text);

/// CSV with full precision (%.17g), one line per row; -inf written as `-inf`.
std::string matrix_to_csv(const Matrix& m);

}  // namespace attnlab
