#pragma once
/// A labelled matrix as CSV (RFC 4180), exactly as docs/EXPORT.md describes:
///
///     queries,x_1,x_2,x_3          <- header: corner (the row axis), then one label per column
///     x_1,0.123...,-inf,...        <- one line per row: its label, then the values
///
/// Values are written with %.17g (they read back bit for bit), -infinity as `-inf`, infinity as
/// `inf`, NaN as `nan`. A field with a comma, a quote, a line break or surrounding spaces is
/// quoted, quotes doubled. Lines end with "\n"; UTF-8, no byte-order mark.
#include <string>
#include <vector>

#include "attnlab/matrix.h"

namespace attnlab::exporter {

struct LabeledMatrix {
  std::string corner;                 ///< first header field, e.g. "queries"
  std::vector<std::string> row_labels;  ///< rows entries
  std::vector<std::string> col_labels;  ///< cols entries
  Matrix values;                      ///< rows by cols
};

std::string matrix_csv(const LabeledMatrix& m);
/// Parses what matrix_csv writes (any RFC 4180 quoting); throws ExportError naming the line.
LabeledMatrix parse_matrix_csv(const std::string& text);

}  // namespace attnlab::exporter
