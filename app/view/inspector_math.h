#pragma once
/// The arithmetic behind one cell of the pipeline, written out with the actual numbers (GUI-free):
/// a score as q_i . k_j term by term and its scaling, a weight as exp(s - max) / sum over its row
/// (or column), a head output as a weighted sum of values, projections, concat and output cells.
#include <string>
#include <vector>

#include "view/hovered_cell.h"
#include "attnlab/model.h"
#include "attnlab/scenario.h"
#include "attnlab/trace.h"

namespace attnlab::app {

/// One line of a written-out sum: its label (e.g. "c=2" or a key token), its numbers and product.
struct SumTerm {
  std::string label;
  std::vector<double> factors;  ///< e.g. {q_ic, k_jc}; a weight row: {s, s - max, exp}
  double value = 0;             ///< the term's contribution (product, or exp / sum for weights)
  bool highlight = false;       ///< the term of the inspected cell (weights: its key)
  bool masked = false;          ///< a -inf entry (weights: contributes 0)
};

/// One coordinate pair of a token's query or key turned by RoPE: (x, y) before, by `angle` radians
/// (position times theta), the pair's coordinates `first` and `second`.
struct RopeTurn {
  bool shown = false;
  double x = 0, y = 0, angle = 0;
  int first = 0, second = 0;
};

/// The turn of the pair holding coordinate `coordinate` (the first pair when it is past the rotary
/// dims) of token `token`'s query (`query`) or key in head `head`; not shown without RoPE.
RopeTurn TurnOf(const attnlab::Model& model, const attnlab::Trace& trace, int head, bool query, int token,
                int coordinate);

struct Explanation {
  std::string title;    ///< "scores[1, 2]  query 'cat' vs key 'sat'"
  std::string formula;  ///< the cell's equation in symbols, in the layout's notation
  std::vector<std::string> columns;  ///< headers of the term table (empty: no table)
  std::vector<SumTerm> terms;        ///< shown terms: the first few, then the largest
  int omitted = 0;                   ///< terms of the sum not shown
  std::string written;               ///< the sum with numbers: "1×0.5 + (−2)×1 + … = −1.5"
  std::vector<std::string> lines;    ///< further steps (scaling, normalisation), one per line
  std::string why_masked;            ///< set for a masked cell: causal / padding / custom
  double value = 0;                  ///< the cell's value as the trace has it
  bool valid = false;
  /// A RoPE cell: its coordinate pair before the turn and the angle it turns by, for the
  /// Inspector's circle diagram.
  RopeTurn turn;
};

/// How many terms a written-out sum shows before eliding: the first kFirstTerms, then the
/// kLargestTerms largest |contributions| among the rest.
constexpr int kFirstTerms = 6;
constexpr int kLargestTerms = 3;

/// Explains `cell` (stage, head, row/col as displayed in the scenario's layout), every number
/// written with at most `decimals` decimals (Num).
Explanation Explain(const attnlab::Scenario& s, const attnlab::Model& model,
                    const attnlab::Trace& trace, const HoveredCell& cell, int decimals);

/// Why query i may not attend key j (rows-convention indices), or empty when allowed.
std::string MaskReason(const attnlab::Scenario& s, int i, int j);
/// Why query i may attend key j although the window or its custom cell would forbid it: key j is
/// an attention sink ("sink: key 0 is one of the first 2 keys, visible whatever the window says"),
/// or empty.
std::string SinkReason(const attnlab::Scenario& s, int i, int j);

/// Signs the Inspector writes (UTF-8), shared by its stage and Tiles explanations.
namespace sign {
inline constexpr const char* kMinus = "\xE2\x88\x92";  // U+2212
inline constexpr const char* kTimes = "\xC3\x97";       // U+00D7
inline constexpr const char* kSigma = "\xCE\xA3";       // U+03A3
}  // namespace sign

/// Token `i`'s label in curly quotes (“is”), its index when out of range.
std::string Quoted(const std::vector<std::string>& labels, int i);
/// The vector of token `i` named by its label, never by its 0-based index (which beside 1-based
/// labels reads as another token): `letter` "q" and label "x_3" give q_3, "x0" gives q0, a word
/// "is" gives q_“is”.
std::string TokenVector(const char* letter, const std::vector<std::string>& labels, int i);

/// A number as the cells write it: `decimals` decimals ("0.50", never "-0.00"), a real minus
/// sign, "−∞" for -infinity (attnlab::format_number).
std::string Num(double v, int decimals);

}  // namespace attnlab::app
