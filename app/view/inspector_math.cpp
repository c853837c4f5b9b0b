#include "view/inspector_math.h"

#include "attnlab/positions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>

#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "view/stage_labels.h"

namespace attnlab::app {
namespace {

using sign::kMinus;
using sign::kTimes;
using sign::kSigma;
constexpr const char* kDot = "\xC2\xB7";         // U+00B7
constexpr const char* kDoublePrime = "\xE2\x80\xB3";

bool Columns(const attnlab::Scenario& s) { return s.layout == attnlab::Layout::columns; }

// Entry (i, j) of the rows-convention matrix whose displayed form is `m` (a Matrix, or one of
// the Trace's lazy stages).
template <class M>
double At(const M& m, int i, int j, bool columns) {
  return columns ? m(j, i) : m(i, j);
}

// A factor inside a product: negative numbers in parentheses.
std::string Factor(double v, int decimals) {
  return v < 0 ? "(" + Num(v, decimals) + ")" : Num(v, decimals);
}

// Where a symbol-like label's subscript starts: "x_3", "x0", "z_t" (one letter, an optional '_',
// then letters or digits, a digit first without the '_'); npos for a word ("is", "new2", "word_1").
std::size_t SubscriptStart(const std::string& label) {
  const std::size_t k = !label.empty() && std::isalpha(static_cast<unsigned char>(label[0])) ? 1 : 0;
  const bool bar = k < label.size() && label[k] == '_';
  const std::size_t start = bar ? k + 1 : k;
  if (k == 0 || start >= label.size()) return std::string::npos;
  const auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
  if (!std::all_of(label.begin() + long(start), label.end(), alnum)) return std::string::npos;
  return bar || std::isdigit(static_cast<unsigned char>(label[start])) ? start : std::string::npos;
}

// Where a token's entry is in a displayed matrix: "row 2: token “is”, column 1", or in the
// columns layout (tokens are columns) "column 2: token “is”, row 1".
std::string TokenPlace(bool cols, const char* role, const std::vector<std::string>& labels, int token,
                       int feature) {
  return std::string(cols ? "column " : "row ") + std::to_string(token) + ": " + role + " " +
         Quoted(labels, token) + ", " + (cols ? "row " : "column ") + std::to_string(feature);
}

// The axis of features (a matrix's entries for one token): columns, or rows in the columns layout.
const char* FeatureAxis(bool cols) { return cols ? "row" : "column"; }

std::string Cell(const char* name, int r, int c) {
  return std::string(name) + "[" + std::to_string(r) + ", " + std::to_string(c) + "]";
}

// Keeps the first kFirstTerms terms, then the kLargestTerms largest |value| among the rest, and
// any highlighted term; returns the indices kept, in order.
std::vector<int> ChooseTerms(const std::vector<SumTerm>& all) {
  const int n = static_cast<int>(all.size());
  std::vector<int> keep;
  if (n <= kFirstTerms + kLargestTerms) {
    keep.resize(static_cast<std::size_t>(n));
    std::iota(keep.begin(), keep.end(), 0);
    return keep;
  }
  std::vector<int> rest;
  for (int i = kFirstTerms; i < n; ++i) rest.push_back(i);
  std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) {
    return std::fabs(all[static_cast<std::size_t>(a)].value) >
           std::fabs(all[static_cast<std::size_t>(b)].value);
  });
  rest.resize(kLargestTerms);
  for (int i = 0; i < kFirstTerms; ++i) keep.push_back(i);
  keep.insert(keep.end(), rest.begin(), rest.end());
  for (int i = 0; i < n; ++i)
    if (all[static_cast<std::size_t>(i)].highlight) keep.push_back(i);
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  return keep;
}

// Stores the chosen terms and writes the sum out: "a×b + c×d + … = total".
void SetSum(Explanation& e, const std::vector<SumTerm>& all, double total, int decimals) {
  const std::vector<int> keep = ChooseTerms(all);
  std::string w;
  int previous = -1;
  for (int k : keep) {
    const SumTerm& t = all[static_cast<std::size_t>(k)];
    if (!w.empty()) w += " + ";
    if (k != previous + 1) w += std::string(kEllipsis) + " + ";
    for (std::size_t f = 0; f < t.factors.size(); ++f)
      w += (f ? kTimes : "") + Factor(t.factors[f], decimals);
    e.terms.push_back(t);
    previous = k;
  }
  if (previous + 1 < static_cast<int>(all.size())) w += std::string(" + ") + kEllipsis;
  e.omitted = static_cast<int>(all.size() - keep.size());
  e.written = w + " = " + Num(total, decimals);
}

// A dot product a . b of rows-convention vectors, one term per component.
double DotTerms(int n, const std::function<double(int)>& a, const std::function<double(int)>& b,
                std::vector<SumTerm>* terms) {
  double total = 0;
  for (int c = 0; c < n; ++c) {
    SumTerm t;
    t.label = std::to_string(c);
    t.factors = {a(c), b(c)};
    t.value = t.factors[0] * t.factors[1];
    total += t.value;
    terms->push_back(std::move(t));
  }
  return total;
}

struct Ctx {
  const attnlab::Scenario& s;
  const attnlab::Model& model;
  const attnlab::Trace& trace;
  const attnlab::HeadTrace& head;
  int h;
  bool cols;
  std::vector<std::string> queries, keys;
  int decimals;  // of every number written
};

// Q, K, V: one token's embedding times one column of the projection, plus the bias.
void ExplainProjection(const Ctx& x, StageId stage, int r, int c, Explanation& e) {
  const int token = x.cols ? c : r, feature = x.cols ? r : c;
  const attnlab::HeadWeights w = x.model.head(static_cast<std::size_t>(x.h));
  const bool is_q = stage == StageId::Q;
  const attnlab::Matrix& in = is_q ? *x.model.X : x.model.keys();
  const attnlab::Matrix& W = is_q ? w.W_q : stage == StageId::K ? w.W_k : w.W_v;
  const attnlab::Vector& b = is_q ? w.b_q : stage == StageId::K ? w.b_k : w.b_v;
  const char* name = is_q ? "Q" : stage == StageId::K ? "K" : "V";
  const char lower = is_q ? 'q' : stage == StageId::K ? 'k' : 'v';
  const char* input = is_q || !x.s.cross_attention() ? "x" : "z";
  const std::vector<std::string>& labels = is_q ? x.queries : x.keys;
  e.title = Cell(name, r, c) + "   " + TokenPlace(x.cols, "token", labels, token, feature);
  const std::string wname = std::string("W_") + lower, bname = std::string("b_") + lower;
  const std::string vec = TokenVector(input, labels, token);
  e.formula = x.cols ? Cell(name, feature, token) + " = " + wname + "[" + std::to_string(feature) +
                           ", :] " + kDot + " " + vec + " + " + bname + "[" + std::to_string(feature) + "]"
                     : Cell(name, token, feature) + " = " + vec + " " + kDot + " " + wname + "[:, " +
                           std::to_string(feature) + "] + " + bname + "[" + std::to_string(feature) + "]";
  e.columns = {"d", std::string(input) + "[d]", wname + "[d]", "product"};
  std::vector<SumTerm> all;
  const double dot = DotTerms(int(in.cols()), [&](int d) { return in(token, d); },
                              [&](int d) { return W(d, feature); }, &all);
  SetSum(e, all, dot, x.decimals);
  const double bias = b.size() > feature ? b(feature) : 0.0;
  e.lines.push_back(Num(dot, x.decimals) + " + " + bname + " " + Factor(bias, x.decimals) + " = " +
                    Num(dot + bias, x.decimals));
}

// q_i . k_j, term by term; `upto` adds the scaling (and the mask) steps.
void ExplainScore(const Ctx& x, StageId stage, int r, int c, Explanation& e) {
  const int i = x.cols ? c : r, j = x.cols ? r : c;
  const int d_k = int(x.cols ? x.head.Q.rows() : x.head.Q.cols());
  const char* sname = attnlab::stage_row(stage).cell_name;  // scores, scaled, capped or masked
  e.title = Cell(sname, r, c) + "   query " + Quoted(x.queries, i) + " vs key " + Quoted(x.keys, j);
  const std::string si = std::to_string(i), sj = std::to_string(j);
  const std::string q = TokenVector("q", x.queries, i), k = TokenVector("k", x.keys, j);
  e.formula = x.cols ? "S[" + sj + ", " + si + "] = " + k + " " + kDot + " " + q + "   (S = K^T Q)"
                     : "S[" + si + ", " + sj + "] = " + q + " " + kDot + " " + k + "   (S = Q K^T)";
  e.columns = {"d", "q[d]", "k[d]", "product"};
  std::vector<SumTerm> all;
  // The scores read the rotated queries and keys, or without RoPE the normalised ones.
  const bool rope = x.trace.has_rope(), norm = x.trace.has_qk_norm();
  const attnlab::Matrix& Q = rope ? x.head.Q_rot : norm ? x.head.Q_norm : x.head.Q;
  const attnlab::Matrix& K = rope ? x.head.K_rot : norm ? x.head.K_norm : x.head.K;
  if (rope) e.formula += norm ? "   (q, k: normalised, then rotated by RoPE)" : "   (q, k: rotated by RoPE)";
  else if (norm) e.formula += "   (q, k: normalised by QK-norm)";
  const double s = DotTerms(d_k, [&](int d) { return At(Q, i, d, x.cols); },
                            [&](int d) { return At(K, j, d, x.cols); }, &all);
  SetSum(e, all, s, x.decimals);
  const double scaled = s * x.model.scale;
  if (x.s.scale.kind == attnlab::Scale::Kind::inv_sqrt_dk)
    e.lines.push_back("scaled: " + Num(s, x.decimals) + " " + kTimes + " 1/\xE2\x88\x9A" +
                      std::to_string(d_k) + " = " + Num(s, x.decimals) + " " + kTimes + " " +
                      Num(x.model.scale, x.decimals) + " = " + Num(scaled, x.decimals));
  else
    e.lines.push_back("scaled: " + Num(s, x.decimals) + " " + kTimes + " " +
                      Num(x.model.scale, x.decimals) + " = " + Num(scaled, x.decimals));
  const double capped = x.trace.capped_at(std::size_t(x.h), r, c);
  if (x.trace.has_softcap()) {
    const std::string cap = Num(x.trace.softcap, x.decimals);
    e.lines.push_back("softcap: " + cap + " " + kTimes + " tanh(" + Num(scaled, x.decimals) + " / " + cap + ") = " +
                      Num(capped, x.decimals));
  }
  if (x.trace.has_bias()) {
    const double b = x.trace.bias_at(std::size_t(x.h), r, c);
    e.lines.push_back("ALiBi: " + Num(capped, x.decimals) + " + (" + Num(b, x.decimals) + ") = " +
                      Num(capped + b, x.decimals));
  }
  const std::string why = MaskReason(x.s, i, j);
  if (!why.empty()) {
    e.why_masked = why;
    e.lines.push_back(std::string("masked: ") + kMinus + "\xE2\x88\x9E  (" + why + ")");
  } else if (stage == StageId::masked) {
    e.lines.push_back("masked: allowed, unchanged = " + Num(capped + x.trace.bias_at(std::size_t(x.h), r, c), x.decimals));
  }
  const std::string sink = SinkReason(x.s, i, j);
  if (!sink.empty()) e.lines.push_back("visible: " + sink);
}

// exp(s_ij - max) / sum_k exp(s_ik - max) over query i's keys.
void ExplainWeight(const Ctx& x, int r, int c, Explanation& e) {
  const int i = x.cols ? c : r, j = x.cols ? r : c;
  const int n = static_cast<int>(x.keys.size());
  e.title = Cell("weights", r, c) + "   query " + Quoted(x.queries, i) + " \xE2\x86\x92 key " +
            Quoted(x.keys, j);
  const std::string si = std::to_string(i), sj = std::to_string(j);
  const std::string s = std::string("S") + kDoublePrime;
  e.formula = x.cols ? "A[" + sj + ", " + si + "] = exp(" + s + "[" + sj + ", " + si + "] " + kMinus +
                           " max) / " + kSigma + "_k exp(" + s + "[k, " + si + "] " + kMinus +
                           " max)   (softmax down column " + si + ")"
                     : "A[" + si + ", " + sj + "] = exp(" + s + "[" + si + ", " + sj + "] " + kMinus +
                           " max) / " + kSigma + "_k exp(" + s + "[" + si + ", k] " + kMinus +
                           " max)   (softmax along row " + si + ")";
  e.columns = {"key", s, s + " " + kMinus + " max", "exp", "weight"};
  const auto masked = x.trace.masked(static_cast<std::size_t>(x.h));  // S'', lazy
  double max = -INFINITY;
  for (int k = 0; k < n; ++k) max = std::max(max, At(masked, i, k, x.cols));
  std::vector<SumTerm> all;
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    SumTerm t;
    t.label = x.keys[static_cast<std::size_t>(k)];
    const double v = At(masked, i, k, x.cols);
    t.masked = v == -INFINITY;
    const double ex = t.masked ? 0.0 : std::exp(v - max);
    t.factors = {v, v - max, ex};
    t.value = At(x.head.weights, i, k, x.cols);
    t.highlight = k == j;
    sum += ex;
    all.push_back(std::move(t));
  }
  const std::vector<int> keep = ChooseTerms(all);
  for (int k : keep) e.terms.push_back(all[static_cast<std::size_t>(k)]);
  e.omitted = n - static_cast<int>(keep.size());
  if (max == -INFINITY) {
    e.why_masked = MaskReason(x.s, i, j);  // every key is masked, this one too: say why
    e.lines.push_back("every key is masked for this query: all its weights are 0");
    return;
  }
  const double sj_val = At(masked, i, j, x.cols);
  e.lines.push_back("max = " + Num(max, x.decimals) + ",   " + kSigma +
                    " exp = " + Num(sum, x.decimals));
  if (sj_val == -INFINITY) {
    e.why_masked = MaskReason(x.s, i, j);
    e.written = std::string("exp(") + kMinus + "\xE2\x88\x9E) / " + Num(sum, x.decimals) + " = 0";
  } else {
    e.written = "exp(" + Num(sj_val, x.decimals) + " " + kMinus + " " + Factor(max, x.decimals) +
                ") / " + Num(sum, x.decimals) + " = " + Num(std::exp(sj_val - max), x.decimals) +
                " / " + Num(sum, x.decimals) + " = " + Num(e.value, x.decimals);
    const std::string sink = SinkReason(x.s, i, j);
    if (!sink.empty()) e.lines.push_back("visible: " + sink);
  }
}

// y_ic = sum_j a_ij v_jc.
void ExplainHeadOutput(const Ctx& x, int r, int c, Explanation& e) {
  const int i = x.cols ? c : r, ch = x.cols ? r : c;
  e.title = Cell("head output", r, c) + "   " + TokenPlace(x.cols, "query", x.queries, i, ch);
  const std::string si = std::to_string(i), sc = std::to_string(ch);
  e.formula = x.cols ? "Y[" + sc + ", " + si + "] = " + kSigma + "_j V[" + sc + ", j] A[j, " + si +
                           "]   (Y = V A)"
                     : "Y[" + si + ", " + sc + "] = " + kSigma + "_j A[" + si + ", j] V[j, " + sc +
                           "]   (Y = A V)";
  e.columns = {"key", "weight", "v[" + sc + "]", "product"};
  std::vector<SumTerm> all;
  double total = 0;
  for (int j = 0; j < static_cast<int>(x.keys.size()); ++j) {
    SumTerm t;
    t.label = x.keys[static_cast<std::size_t>(j)];
    t.factors = {At(x.head.weights, i, j, x.cols), At(x.head.V, j, ch, x.cols)};
    t.value = t.factors[0] * t.factors[1];
    t.masked = x.cols ? x.trace.is_masked(j, i) : x.trace.is_masked(i, j);
    total += t.value;
    all.push_back(std::move(t));
  }
  SetSum(e, all, total, x.decimals);
}

void ExplainConcat(const Ctx& x, int r, int c, Explanation& e) {
  const int i = x.cols ? c : r, col = x.cols ? r : c;
  const int h = col / x.model.d_v, ch = col % x.model.d_v;
  e.title = Cell("concat", r, c) + "   query " + Quoted(x.queries, i);
  e.formula =
      x.cols ? "[Y\xE2\x82\x81; \xE2\x80\xA6; Y_H] stacked: rows " +
                   std::to_string(h * x.model.d_v) + "\xE2\x80\x93" +
                   std::to_string((h + 1) * x.model.d_v - 1) + " are " + attnlab::head_label(h)
             : "[Y\xE2\x82\x81 \xE2\x80\xA6 Y_H] side by side: columns " +
                   std::to_string(h * x.model.d_v) + "\xE2\x80\x93" +
                   std::to_string((h + 1) * x.model.d_v - 1) + " are " + attnlab::head_label(h);
  e.lines.push_back("= " + attnlab::head_label(h) + " output, " + FeatureAxis(x.cols) + " " +
                    std::to_string(ch) + " = " + Num(e.value, x.decimals));
}

void ExplainWo(const Ctx& x, int r, int c, Explanation& e) {
  const int t = x.cols ? c : r, o = x.cols ? r : c;
  e.title = Cell("W_o", r, c);
  e.formula = "a learned weight (input, not computed)";
  const std::string axis = FeatureAxis(x.cols);
  e.lines.push_back("concat " + axis + " " + std::to_string(t) + " (head " +
                    std::to_string(t / x.model.d_v + 1) + ", " + axis + " " +
                    std::to_string(t % x.model.d_v) + ") " + kTimes + " " +
                    Num(e.value, x.decimals) + " \xE2\x86\x92 output " + axis + " " + std::to_string(o));
}

// out_io = concat_i . W_o[:, o] + b_o[o].
void ExplainOutput(const Ctx& x, int r, int c, Explanation& e) {
  const int i = x.cols ? c : r, o = x.cols ? r : c;
  e.title = Cell("output", r, c) + "   " + TokenPlace(x.cols, "query", x.queries, i, o);
  if (!x.model.has_W_o()) {
    e.formula = "no W_o: output = concat";
    e.lines.push_back("= concat[" + std::to_string(r) + ", " + std::to_string(c) +
                      "] = " + Num(e.value, x.decimals));
    return;
  }
  const std::string si = std::to_string(i), so = std::to_string(o);
  e.formula = x.cols ? "out[" + so + ", " + si + "] = W_o[" + so + ", :] " + kDot + " concat[:, " +
                           si + "] + b_o[" + so + "]"
                     : "out[" + si + ", " + so + "] = concat[" + si + ", :] " + kDot + " W_o[:, " +
                           so + "] + b_o[" + so + "]";
  e.columns = {"t", "concat[t]", "W_o[t]", "product"};
  std::vector<SumTerm> all;
  const double dot = DotTerms(int(x.model.W_o->rows()),
                              [&](int t) { return At(x.trace.concat, i, t, x.cols); },
                              [&](int t) { return (*x.model.W_o)(t, o); }, &all);
  SetSum(e, all, dot, x.decimals);
  const double bias = x.model.b_o.size() > o ? x.model.b_o(o) : 0.0;
  e.lines.push_back(Num(dot, x.decimals) + " + b_o " + Factor(bias, x.decimals) + " = " +
                    Num(dot + bias, x.decimals));
}

// X + PE: the embedding and the sinusoid of the token's position.
void ExplainEncoding(const Ctx& x, int r, int c, Explanation& e) {
  const int token = x.cols ? c : r, d = x.cols ? r : c;
  const int width = int(x.cols ? x.trace.X_pos.rows() : x.trace.X_pos.cols());
  const double p = x.trace.query_positions[std::size_t(token)];
  const int i2 = d - d % 2;  // 2i of the pair
  const double angle = p / std::pow(10000.0, double(i2) / width);
  const double pe = d % 2 == 0 ? std::sin(angle) : std::cos(angle);
  const double embedding = At(x.trace.X_pos, token, d, x.cols) - pe;
  e.title = Cell("X_pos", r, c) + "   token " + Quoted(x.queries, token) + " at position " + Num(p, 0);
  e.formula = std::string("X_pos = X + PE,  PE(p, ") + std::to_string(d) + ") = " + (d % 2 ? "cos" : "sin") +
              "(p / 10000^(" + std::to_string(i2) + "/" + std::to_string(width) + "))";
  e.lines.push_back("PE = " + std::string(d % 2 ? "cos(" : "sin(") + Num(p, 0) + " / " +
                    Num(std::pow(10000.0, double(i2) / width), x.decimals) + ") = " + Num(pe, x.decimals));
  e.written = Num(embedding, x.decimals) + " + " + Factor(pe, x.decimals) + " = " + Num(embedding + pe, x.decimals);
}

// One rotated coordinate: x cos(p theta) - y sin(p theta), or y cos + x sin for the pair's second.
void ExplainRotation(const Ctx& x, StageId stage, int r, int c, Explanation& e) {
  const bool q = stage == StageId::Q_rot;
  const int token = x.cols ? c : r, d = x.cols ? r : c;
  const bool norm = x.trace.has_qk_norm();  // RoPE turns the normalised queries and keys
  const attnlab::Matrix& in = q ? (norm ? x.head.Q_norm : x.head.Q) : (norm ? x.head.K_norm : x.head.K);
  const char* name = q ? "Q_rot" : "K_rot";
  e.title = Cell(name, r, c) + "   token " + Quoted(q ? x.queries : x.keys, token);
  const attnlab::Rope& rope = *x.model.rope;
  if (d >= rope.dims) {
    e.formula = "coordinate " + std::to_string(d) + " is past the rotary dims R = " + std::to_string(rope.dims);
    e.written = "unchanged = " + Num(At(in, token, d, x.cols), x.decimals);
    return;
  }
  const bool half = rope.style == attnlab::Rope::Style::half;
  const int pair = half ? d % (rope.dims / 2) : d / 2;
  e.turn = TurnOf(x.model, x.trace, x.h, q, token, d);
  const int a = e.turn.first, b = e.turn.second;
  const double p = (q ? x.trace.query_positions : x.trace.key_positions)[std::size_t(token)];
  const double theta = x.model.rope_frequencies[std::size_t(pair)], angle = e.turn.angle;
  const double unscaled = attnlab::positional::rope_theta(pair, rope.dims, rope.base);
  const double xa = e.turn.x, xb = e.turn.y;
  const bool first = d == a;
  const std::string sa = "[" + std::to_string(a) + "]", sb = "[" + std::to_string(b) + "]";
  const char* v = q ? "q" : "k";
  e.formula = first ? std::string(v) + "'" + sa + " = " + v + sa + " cos(p\xCE\xB8) " + kMinus + " " + v + sb + " sin(p\xCE\xB8)"
                    : std::string(v) + "'" + sb + " = " + v + sb + " cos(p\xCE\xB8) + " + v + sa + " sin(p\xCE\xB8)";
  e.formula += "   (pair " + std::to_string(pair) + ", " + (half ? "half" : "interleaved") + " style)";
  const std::string base_theta = "\xCE\xB8 = " + Num(rope.base, 0) + "^(" + kMinus + "2\xC2\xB7" + std::to_string(pair) + "/" +
                                 std::to_string(rope.dims) + ")";
  const std::string divided = theta == unscaled ? "" : " / " + Num(unscaled / theta, x.decimals) + " (RoPE scaling)";
  e.lines.push_back(base_theta + divided + " = " + Num(theta, x.decimals) + ",  p = " + Num(p, 0) + ",  p\xCE\xB8 = " +
                    Num(angle, x.decimals));
  const double factor = attnlab::positional::rope_attention_factor(rope);  // longrope: cos and sin scaled
  if (factor != 1.0)
    e.lines.push_back("cos and sin " + std::string(kTimes) + " " + Num(factor, x.decimals) + " (LongRoPE's attention factor)");
  const double cs = std::cos(angle) * factor, sn = std::sin(angle) * factor;
  e.written = first ? Factor(xa, x.decimals) + kTimes + Factor(cs, x.decimals) + " " + kMinus + " " +
                          Factor(xb, x.decimals) + kTimes + Factor(sn, x.decimals) + " = " + Num(xa * cs - xb * sn, x.decimals)
                    : Factor(xb, x.decimals) + kTimes + Factor(cs, x.decimals) + " + " + Factor(xa, x.decimals) + kTimes +
                          Factor(sn, x.decimals) + " = " + Num(xb * cs + xa * sn, x.decimals);
}

// QK-norm: q[d] / sqrt(mean(q^2) + eps) * w[d], the mean over the head's d_k or the whole width.
void ExplainNorm(const Ctx& x, StageId stage, int r, int c, Explanation& e) {
  const bool q = stage == StageId::Q_norm;
  const int token = x.cols ? c : r, d = x.cols ? r : c;
  const attnlab::QkNorm& norm = *x.model.qk_norm;
  const attnlab::Matrix& in = q ? x.head.Q : x.head.K;
  const int d_k = int(x.cols ? in.rows() : in.cols());
  const char* v = q ? "q" : "k";
  e.title = Cell(q ? "Q_norm" : "K_norm", r, c) + "   token " + Quoted(q ? x.queries : x.keys, token);
  const bool head = norm.scope == attnlab::QkNorm::Scope::head;
  const char* gain = norm.plus_one ? "(1 + w)" : "w";
  e.formula = std::string(v) + "'[d] = " + v + "[d] / \xE2\x88\x9A(mean(" + v + "\xC2\xB2) + \xCE\xB5) " + kTimes + " " + gain +
              "[d]   (" + (head ? "the mean over the head's d_k" : "the mean over the whole row of every head") + ")";
  attnlab::Vector row(d_k);
  for (int k = 0; k < d_k; ++k) row(k) = At(in, token, k, x.cols);
  // Over the width the mean spans every head: the trace keeps each token's 1 / sqrt(mean + eps).
  const double inverse = head ? attnlab::inverse_rms(row, norm.eps)
                              : (q ? x.trace.q_inverse_rms : x.trace.k_inverse_rms)[std::size_t(token)];
  e.lines.push_back(head ? "mean(" + std::string(v) + "\xC2\xB2) = " + Num(row.squaredNorm() / d_k, x.decimals) +
                               ",  \xCE\xB5 = " + attnlab::format_trimmed(norm.eps, 3)
                         : "1 / \xE2\x88\x9A(mean + \xCE\xB5) over the whole row = " + Num(inverse, x.decimals));
  const attnlab::Vector g = attnlab::qk_norm_gain(norm, q, q ? x.h : x.head.kv_head, d_k);
  const double value = At(in, token, d, x.cols);
  e.written = Factor(value, x.decimals) + " " + kTimes + " " + Factor(inverse, x.decimals) + " " + kTimes + " " +
              Factor(g(d), x.decimals) + " = " + Num(value * inverse * g(d), x.decimals);
}

// ALiBi: -m |p_i - c_j|.
void ExplainBias(const Ctx& x, int r, int c, Explanation& e) {
  const int i = x.cols ? c : r, j = x.cols ? r : c;
  const double m = x.trace.slopes[std::size_t(x.h)];
  const double p = x.trace.query_positions[std::size_t(i)], k = x.trace.key_positions[std::size_t(j)];
  e.title = Cell("bias", r, c) + "   query " + Quoted(x.queries, i) + " vs key " + Quoted(x.keys, j);
  e.formula = std::string("B = ") + kMinus + "m |p_i " + kMinus + " c_j|   (ALiBi: the farther, the lower)";
  e.written = kMinus + Num(m, x.decimals) + " " + kTimes + " |" + Num(p, 0) + " " + kMinus + " " + Num(k, 0) +
              "| = " + Num(-m * std::fabs(p - k), x.decimals);
}

// The cell's value as displayed, or nothing when the cell is outside its matrix.
std::optional<double> DisplayedValue(const attnlab::Scenario& s, const attnlab::Trace& t,
                                     const HoveredCell& cell) {
  if (cell.stage != StageId::W_o) return attnlab::stage_value(t, cell.stage, cell.head, cell.row, cell.col);
  if (!s.W_o || cell.row < 0 || cell.col < 0 || cell.row >= s.W_o->rows() || cell.col >= s.W_o->cols())
    return std::nullopt;
  return (*s.W_o)(cell.row, cell.col);
}

}  // namespace

std::string Quoted(const std::vector<std::string>& labels, int i) {
  if (i < 0 || i >= static_cast<int>(labels.size())) return std::to_string(i);
  return "\xE2\x80\x9C" + labels[static_cast<std::size_t>(i)] + "\xE2\x80\x9D";
}

std::string TokenVector(const char* letter, const std::vector<std::string>& labels, int i) {
  if (i < 0 || i >= static_cast<int>(labels.size())) return std::string(letter) + "_" + std::to_string(i);
  const std::string& label = labels[static_cast<std::size_t>(i)];
  const std::size_t sub = SubscriptStart(label);
  if (sub == std::string::npos) return std::string(letter) + "_" + Quoted(labels, i);
  return std::string(letter) + (label[sub - 1] == '_' ? "_" : "") + label.substr(sub);
}

RopeTurn TurnOf(const attnlab::Model& model, const attnlab::Trace& trace, int head, bool query, int token,
                int coordinate) {
  if (!model.rope || head < 0 || head >= int(trace.heads.size())) return {};
  const attnlab::Rope& rope = *model.rope;
  const bool cols = trace.layout == attnlab::Layout::columns;
  const attnlab::HeadTrace& ht = trace.heads[std::size_t(head)];
  const bool norm = trace.has_qk_norm();  // RoPE turns the normalised queries and keys
  const attnlab::Matrix& in = query ? (norm ? ht.Q_norm : ht.Q) : (norm ? ht.K_norm : ht.K);
  const std::vector<double>& positions = query ? trace.query_positions : trace.key_positions;
  if (token < 0 || token >= int(positions.size())) return {};
  const int d = coordinate < rope.dims ? coordinate : 0;
  const int pair = rope.style == attnlab::Rope::Style::half ? d % (rope.dims / 2) : d / 2;
  const auto [a, b] = attnlab::positional::rope_pair(rope.style, pair, rope.dims);
  const double angle = positions[std::size_t(token)] * model.rope_frequencies[std::size_t(pair)];
  return {true, At(in, token, a, cols), At(in, token, b, cols), angle, a, b};
}

std::string Num(double v, int decimals) {
  if (v == INFINITY) return "\xE2\x88\x9E";
  return attnlab::format_number(v, decimals);
}

namespace {

bool Padded(const attnlab::Scenario& s, int j) {
  return std::find(s.mask.padding.begin(), s.mask.padding.end(), j) != s.mask.padding.end();
}

// A sink the padding leaves alone: the window and the cells do not apply to it.
bool ActiveSink(const attnlab::Scenario& s, int j) { return s.mask.sink(j) && !Padded(s, j); }

bool CellOff(const attnlab::Scenario& s, int i, int j) {
  if (!s.mask.cells) return false;
  const attnlab::Matrix& m = *s.mask.cells;
  const bool cols = Columns(s);
  const int r = cols ? j : i, c = cols ? i : j;
  return r < m.rows() && c < m.cols() && m(r, c) == 0.0;
}

}  // namespace

std::string SinkReason(const attnlab::Scenario& s, int i, int j) {
  const int p = s.position(i), c = s.context_position(j);
  if (!ActiveSink(s, j) || (s.mask.causal && c > p)) return {};
  const bool window = s.mask.window > 0 && std::abs(p - c) >= s.mask.window, cell = CellOff(s, i, j);
  if (!window && !cell) return {};
  return "sink: key " + Quoted(KeyTokenLabels(s), j) + " is one of the first " + std::to_string(s.mask.sinks) +
         " keys, visible whatever the " +
         (window && cell ? "window and the custom cell say" : window ? "window says" : "custom cell says");
}

std::string MaskReason(const attnlab::Scenario& s, int i, int j) {
  std::string why;
  auto add = [&why](const std::string& part) { why += (why.empty() ? "" : "; ") + part; };
  const int p = s.position(i), c = s.context_position(j);
  // Tokens by their labels: the 0-based index beside 1-based labels (x_1, x_2) reads as another token.
  const std::string key = Quoted(KeyTokenLabels(s), j), query = Quoted(QueryTokenLabels(s), i);
  if (s.mask.causal && c > p)
    add("causal: key " + key + (c == j && p == i ? "" : " (position " + std::to_string(c) + ")") +
        " comes after query " + query + (c == j && p == i ? "" : " (position " + std::to_string(p) + ")"));
  const bool sink = ActiveSink(s, j);  // keeps it whatever the window and the cells say
  if (!sink && s.mask.window > 0 && std::abs(p - c) >= s.mask.window)
    add("window: key " + key + " is " + std::to_string(std::abs(p - c)) + " positions from query " + query +
        ", the window is " + std::to_string(s.mask.window));
  if (Padded(s, j)) add("padding: key " + key + " is a padding token");
  if (!sink && CellOff(s, i, j)) add("custom: this cell is off in the mask");
  return why;
}

Explanation Explain(const attnlab::Scenario& s, const attnlab::Model& model,
                    const attnlab::Trace& trace, const HoveredCell& cell, int decimals) {
  Explanation e;
  const std::optional<double> value = DisplayedValue(s, trace, cell);
  if (!value) return e;
  const int h = cell.head >= 0 ? cell.head : 0;
  if (h >= model.num_heads || trace.heads.empty()) return e;
  e.value = *value;
  const Ctx x{s,
              model,
              trace,
              trace.heads[static_cast<std::size_t>(h)],
              h,
              Columns(s),
              QueryTokenLabels(s),
              KeyTokenLabels(s),
              decimals};
  const int r = cell.row, c = cell.col;
  switch (cell.stage) {
    case StageId::Q:
    case StageId::K:
    case StageId::V: ExplainProjection(x, cell.stage, r, c, e); break;
    case StageId::scores:
    case StageId::scaled:
    case StageId::capped:
    case StageId::masked: ExplainScore(x, cell.stage, r, c, e); break;
    case StageId::Q_norm:
    case StageId::K_norm:
      if (!model.qk_norm) return e;
      ExplainNorm(x, cell.stage, r, c, e);
      break;
    case StageId::weights: ExplainWeight(x, r, c, e); break;
    case StageId::head_output: ExplainHeadOutput(x, r, c, e); break;
    case StageId::concat: ExplainConcat(x, r, c, e); break;
    case StageId::W_o: ExplainWo(x, r, c, e); break;
    case StageId::output: ExplainOutput(x, r, c, e); break;
    case StageId::X_pos: ExplainEncoding(x, r, c, e); break;
    case StageId::Q_rot:
    case StageId::K_rot:
      if (!model.rope) return e;
      ExplainRotation(x, cell.stage, r, c, e);
      break;
    case StageId::bias:
      if (!trace.has_bias()) return e;
      ExplainBias(x, r, c, e);
      break;
    case StageId::none:
    case StageId::inputs:  // X itself, explained by its editor
    case StageId::heads:
    case StageId::tiles:  // lesson steps, no trace matrix
    case StageId::decode:
    case StageId::lines: return e;
  }
  if (cell.head >= 0 && model.num_heads > 1)
    e.title += "   (" + attnlab::head_label(cell.head) + ")";
  e.valid = true;
  return e;
}

}  // namespace attnlab::app
