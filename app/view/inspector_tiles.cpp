#include "view/inspector_tiles.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/numbering.h"
#include "view/stage_labels.h"

namespace attnlab::app {
namespace {

using sign::kMinus;
using sign::kTimes;
using sign::kSigma;
constexpr const char* kAlpha = "\xCE\xB1";
constexpr const char* kS = "S\xE2\x80\xB3";  // S″, the masked stage
constexpr const char* kEllipsis = "\xE2\x80\xA6";
constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
/// A tile's scores listed one by one up to this many keys (then "…").
constexpr Eigen::Index kListed = 6;

/// One query's step through one tile, queries as rows whatever the layout.
struct Step {
  const attnlab::Scenario& s;
  const attnlab::Trace& trace;
  const attnlab::FlashTile& tile;
  int head;
  Eigen::Index query, r;  ///< the query in the sequence and in the tile's block
  std::vector<std::string> queries, keys;
  int d;
  attnlab::FlashRowStep row;  ///< the state before the tile, the tile's max, the new m and alpha
  attnlab::Matrix V;          ///< n_z by d_v

  bool NothingSeen() const { return row.nothing_seen(); }
  double Score(Eigen::Index j) const {
    const bool cols = trace.layout == attnlab::Layout::columns;
    const auto S = trace.masked(std::size_t(head));
    return cols ? S(j, query) : S(query, j);
  }
  double P(Eigen::Index j) const { return Score(j) == kMinusInfinity ? 0.0 : std::exp(Score(j) - tile.m(r)); }
  std::string N(double v) const { return Num(v, d); }
  std::string Name(const char* letter) const { return TokenVector(letter, queries, int(query)); }
};

std::string Range(const std::vector<std::string>& labels, Eigen::Index a, Eigen::Index n) {
  const std::string first = Quoted(labels, int(a));
  return n == 1 ? first : first + "\xE2\x80\x93" + Quoted(labels, int(a + n - 1));
}

/// "tile (1, 0): queries “sat”–“on” against keys “The”–“cat”"
std::string Where(const Step& x) {
  const attnlab::FlashTile& t = x.tile;
  return "tile (" + std::to_string(t.q_block) + ", " + std::to_string(t.k_block) + "): queries " +
         Range(x.queries, t.row0, t.rows) + " against keys " + Range(x.keys, t.col0, t.cols);
}

std::string Before(const Step& x, int coordinate) {
  if (x.NothingSeen())
    return "before it: nothing seen yet for " + Quoted(x.queries, int(x.query)) + " (m = " + x.N(kMinusInfinity) +
           ", l = 0, o = 0)";
  std::string line = "before it: m = " + x.N(x.row.m_before) + ", l = " + x.N(x.row.l_before);
  if (coordinate >= 0) line += ", o[" + std::to_string(coordinate) + "] = " + x.N(x.row.o_before(coordinate));
  return line;
}

/// "m = max(1.2, 1.75) = 1.75: it rose"
std::string NewMax(const Step& x) {
  const double m = x.row.m;
  if (x.NothingSeen()) return "m = the tile's largest = " + x.N(m);
  return "m = max(m before, the tile's largest) = max(" + x.N(x.row.m_before) + ", " + x.N(x.row.tile_max) + ") = " +
         x.N(m) + (m == x.row.m_before ? ": unchanged" : ": it rose");
}

/// "the tile's largest S″: max(0.4, −∞) = 0.4"
std::string TileMax(const Step& x) {
  std::string list;
  for (Eigen::Index j = 0; j < std::min(x.tile.cols, kListed); ++j) list += (j ? ", " : "") + x.N(x.Score(x.tile.col0 + j));
  if (x.tile.cols > kListed) list += std::string(", ") + kEllipsis;
  return "the tile's largest " + std::string(kS) + ": max(" + list + ") = " + x.N(x.row.tile_max);
}

std::string AlphaLine(const Step& x) {
  if (x.NothingSeen())
    return std::string(kAlpha) + " = 0: m was " + x.N(kMinusInfinity) +
           " (nothing seen yet), so there is no earlier l or o to rescale";
  return std::string(kAlpha) + " = exp(m before " + kMinus + " m) = exp(" + x.N(x.row.m_before) + " " + kMinus + " " +
         x.N(x.row.m) + ") = " + x.N(x.row.alpha);
}

/// "o_“sat”[0] was 0.31 with m = 1.2; the new max 1.75 multiplies it by exp(1.2 − 1.75) = 0.58,
/// then adds the tile's P V: 0.18 + 0.24 = 0.42"
std::string Rescale(const Step& x, const std::string& name, double before, double after, const std::string& added) {
  const double alpha = x.row.alpha, m = x.row.m, m_before = x.row.m_before, add = after - alpha * before;
  if (x.NothingSeen())
    return name + " was 0: nothing seen yet (m = " + x.N(kMinusInfinity) + ", so " + kAlpha + " = 0); it is " +
           added + " = " + x.N(after);
  const std::string factor = m == m_before ? "m stays " + x.N(m) + ", so it is multiplied by exp(0) = 1"
                                           : "the new max " + x.N(m) + " multiplies it by exp(" + x.N(m_before) + " " +
                                                 kMinus + " " + x.N(m) + ") = " + x.N(alpha);
  return name + " was " + x.N(before) + " with m = " + x.N(m_before) + "; " + factor + ", then adds " + added + ": " +
         x.N(alpha * before) + " + " + x.N(add) + " = " + x.N(after);
}

/// "Σ P = exp(0.4 − 1.2) + exp(0.32 − 1.2) = 0.45 + 0.41 = 0.86" (or P v[c] for O's column c)
std::string TileSum(const Step& x, int coordinate) {
  std::string terms, values;
  double sum = 0;
  for (Eigen::Index j = 0; j < x.tile.cols; ++j) {
    const Eigen::Index key = x.tile.col0 + j;
    const double p = x.P(key), term = coordinate < 0 ? p : p * x.V(key, coordinate);
    sum += term;
    if (j >= kListed) continue;
    const std::string sep = j ? " + " : "";
    const std::string e = x.Score(key) == kMinusInfinity ? "0" : "exp(" + x.N(x.Score(key)) + " " + kMinus + " " + x.N(x.tile.m(x.r)) + ")";
    terms += sep + (coordinate < 0 ? e : e + " " + kTimes + " " + x.N(x.V(key, coordinate)));
    values += sep + x.N(term);
  }
  const std::string more = x.tile.cols > kListed ? std::string(" + ") + kEllipsis : "";
  const std::string what = coordinate < 0 ? std::string(kSigma) + " P" : "(P V)[" + std::to_string(coordinate) + "]";
  return what + " = " + terms + more + " = " + values + more + " = " + x.N(sum);
}

void Skipped(const Step& x, Explanation& e) {
  const attnlab::FlashTile& t = x.tile;
  const std::string why = MaskReason(x.s, int(t.row0), int(t.col0));
  e.lines.push_back("skipped: every score of this tile is masked" + (why.empty() ? "" : " (" + why + ")") +
                    ", so its K and V are never loaded; m, l and o carry over unchanged");
  e.lines.push_back(x.NothingSeen() ? std::string(kAlpha) + " = 0: nothing seen yet for this query (m = " +
                                          x.N(kMinusInfinity) + ")"
                                    : std::string(kAlpha) + " = 1: m did not change");
}

/// The formula of each quantity, in symbols.
std::string Formula(TileValue what) {
  const std::string s = kS, mm = std::string(" ") + kMinus + " m)";
  switch (what) {
    case TileValue::m: return "m = max(m before, max_j " + s + "[i, j])   (j: the tile's keys)";
    case TileValue::l: return "l = " + std::string(kAlpha) + " l before + " + kSigma + "_j exp(" + s + "[i, j]" + mm;
    case TileValue::alpha: return std::string(kAlpha) + " = exp(m before " + kMinus + " m)   (0 while m before = " + kMinus + "\xE2\x88\x9E)";
    case TileValue::O:
      return "o[c] = " + std::string(kAlpha) + " o[c] before + " + kSigma + "_j exp(" + s + "[i, j]" + mm + " v_j[c]";
    case TileValue::score:
    case TileValue::none: break;
  }
  return "P[i, j] = exp(" + s + "[i, j]" + mm + "   (m: the row's max so far)";
}

/// What the hovered number does in this tile, with its numbers; the rescale sentence last.
void Arithmetic(const Step& x, const TileCell& c, Explanation& e) {
  e.lines.push_back(TileMax(x));
  e.lines.push_back(NewMax(x));
  e.lines.push_back(AlphaLine(x));
  std::string conclusion;
  switch (c.what) {
    case TileValue::l:
      e.lines.push_back(TileSum(x, -1));
      conclusion = Rescale(x, x.Name("l"), x.row.l_before, x.tile.l(x.r), "the tile's " + std::string(kSigma) + " P");
      break;
    case TileValue::O:
      e.lines.push_back(TileSum(x, c.col));
      conclusion = Rescale(x, x.Name("o") + "[" + std::to_string(c.col) + "]", x.row.o_before(c.col),
                           x.tile.O(x.r, c.col), "the tile's P V");
      break;
    case TileValue::score: {
      const double v = x.Score(c.col);
      conclusion = v == kMinusInfinity ? "P = 0: masked, this key adds nothing"
                                      : "P = exp(" + x.N(v) + " " + kMinus + " " + x.N(x.tile.m(x.r)) + ") = " +
                                            x.N(x.P(c.col)) + ": it adds " + x.N(x.P(c.col)) + " to l and " +
                                            x.N(x.P(c.col)) + " " + kTimes + " " + TokenVector("v", x.keys, c.col) + " to o";
      break;
    }
    default:
      conclusion = x.NothingSeen() ? "nothing seen yet: the tile's largest score becomes m; l and o start from 0"
                   : x.row.m == x.row.m_before
                       ? "the tile's largest is not above m: l and o keep their scale (" + std::string(kAlpha) + " = 1)"
                       : "m rose from " + x.N(x.row.m_before) + " to " + x.N(x.row.m) + ": l and o are multiplied by " +
                             x.N(x.row.alpha);
  }
  e.lines.push_back(conclusion);
}

double Value(const Step& x, const TileCell& c) {
  switch (c.what) {
    case TileValue::m: return x.tile.m(x.r);
    case TileValue::l: return x.tile.l(x.r);
    case TileValue::alpha: return x.tile.alpha(x.r);
    case TileValue::O: return x.tile.O(x.r, c.col);
    case TileValue::score:
    case TileValue::none: break;
  }
  return x.Score(c.col);
}

const char* Symbol(TileValue what) {
  switch (what) {
    case TileValue::m: return "m";
    case TileValue::l: return "l";
    case TileValue::alpha: return kAlpha;
    case TileValue::O: return "o (unnormalised O)";
    case TileValue::score:
    case TileValue::none: break;
  }
  return kS;
}

bool Inside(const attnlab::FlashRun& run, const HoveredCell& cell) {
  const TileCell& c = cell.tile;
  if (cell.head != run.head || c.block_rows != run.block_rows || c.block_cols != run.block_cols) return false;
  if (c.tile < 0 || std::size_t(c.tile) >= run.tiles.size()) return false;
  const attnlab::FlashTile& t = run.tiles[std::size_t(c.tile)];
  if (c.query < t.row0 || c.query >= t.row0 + t.rows) return false;
  if (c.what == TileValue::O) return c.col >= 0 && c.col < t.O.cols();
  if (c.what == TileValue::score) return c.col >= t.col0 && c.col < t.col0 + t.cols;
  return true;
}

Explanation Write(const Step& x, const attnlab::FlashRun& run, const TileCell& c) {
  Explanation e;
  const std::string place = c.what == TileValue::O ? ", coordinate " + std::to_string(c.col)
                            : c.what == TileValue::score ? ", key " + Quoted(x.keys, c.col) : "";
  e.title = std::string(Symbol(c.what)) + " after tile " + std::to_string(c.tile + 1) + " of " +
            std::to_string(run.tiles.size()) + "   query " + Quoted(x.queries, int(x.query)) + place;
  e.formula = Formula(c.what);
  e.lines.push_back(Where(x));
  e.lines.push_back(Before(x, c.what == TileValue::O ? c.col : -1));
  if (x.tile.skipped) Skipped(x, e);
  else Arithmetic(x, c, e);
  if (c.what == TileValue::score && x.Score(c.col) == kMinusInfinity) e.why_masked = MaskReason(x.s, int(x.query), c.col);
  e.value = Value(x, c);
  e.valid = true;
  return e;
}

}  // namespace

const attnlab::FlashRun* TileRuns::Get(const attnlab::Trace& trace, std::uint64_t trace_version, int head,
                                       int block_rows, int block_cols) {
  if (trace_version != version_ || head != head_ || block_rows != block_rows_ || block_cols != block_cols_) {
    version_ = trace_version;
    head_ = head;
    block_rows_ = block_rows;
    block_cols_ = block_cols;
    try {
      run_ = attnlab::flash_attention(trace, head, block_rows, block_cols);
      ok_ = true;
    } catch (const std::exception&) {
      ok_ = false;
    }
    ++runs_;
  }
  return ok_ ? &run_ : nullptr;
}

Explanation ExplainTile(const attnlab::Scenario& s, const attnlab::Trace& trace, const attnlab::FlashRun& run,
                        const HoveredCell& cell, int decimals) {
  const TileCell& c = cell.tile;
  if (c.what == TileValue::none || std::size_t(run.head) >= trace.heads.size() || !Inside(run, cell)) return {};
  const attnlab::FlashTile& tile = run.tiles[std::size_t(c.tile)];
  const attnlab::HeadTrace& h = trace.heads[std::size_t(run.head)];
  const bool rows = trace.layout == attnlab::Layout::rows;
  const Step x{s, trace, tile, run.head, c.query, c.query - tile.row0, QueryTokenLabels(s), KeyTokenLabels(s), decimals,
               attnlab::flash_row_step(run, trace, std::size_t(c.tile), c.query),
               rows ? h.V : attnlab::Matrix(h.V.transpose())};
  Explanation e = Write(x, run, c);
  if (trace.heads.size() > 1) e.title += "   (" + attnlab::head_label(run.head) + ")";
  return e;
}

}  // namespace attnlab::app
