// The words of a lesson's step: title, formula in the layout's notation (stage.h), and an
// explanation in the live numbers.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "attnlab/lesson.h"
#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "lesson_engines.h"

namespace attnlab::lesson {
namespace {

std::string in_quotes(const std::string& label) { return "'" + label + "'"; }

std::vector<std::string> named(const std::vector<std::string>& given, int n, const char* prefix) {
  if (static_cast<int>(given.size()) == n) return given;
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// What the explanations need to know of the scenario and the head, in the file's layout.
struct Context {
  const Scenario& s;
  const Trace& t;
  const HeadTrace& h;
  int head;
  bool rows;
  const char* line;  // "row" or "column": what one token is
  std::vector<std::string> queries, keys;
  int decimals;  // the user's, as the cells write their numbers

  std::string num(double v) const { return format_number(v, decimals); }

  // Entry (query i, key j) of a queries-by-keys matrix in the file's layout.
  double qk(const Matrix& m, int i, int j) const { return rows ? m(i, j) : m(j, i); }
  // Token i's vector of a token-by-width matrix in the file's layout.
  std::string vector_of(const Matrix& m, int i) const {
    const Eigen::Index n = rows ? m.cols() : m.rows();
    std::string out = "[";
    for (Eigen::Index d = 0; d < std::min<Eigen::Index>(n, 6); ++d)
      out += (d ? ", " : "") + num(rows ? m(i, d) : m(d, i));
    return out + (n > 6 ? ", ...]" : "]");
  }
};

// QK-norm: the first token's query (key) before and after, and the size it had.
std::string explain_qk_norm(const Context& c, bool query) {
  if (!has_stage(c.t, query ? StageId::Q_norm : StageId::K_norm))
    return "QK-norm is off now: turn it on in Setup > QK-norm and softcap.";
  const Matrix& before = query ? c.h.Q : c.h.K;
  const Matrix& after = query ? c.h.Q_norm : c.h.K_norm;
  const Vector row = c.rows ? Vector(before.row(0).transpose()) : Vector(before.col(0));
  const double rms = std::sqrt(row.squaredNorm() / double(row.size()));
  const std::string who = in_quotes(query ? c.queries.front() : c.keys.front());
  return std::string(query ? "Each query" : "Each key") + " is divided by its root mean square, then multiplied by " +
         "the learned weights (RMSNorm), so its size no longer grows with the weights: " + who + "'s " +
         (query ? "q" : "k") + " = " + c.vector_of(before, 0) + " has RMS " + c.num(rms) + " and becomes " +
         c.vector_of(after, 0) + ".";
}

// The softcap: the largest scaled score of the head and what tanh makes of it.
std::string explain_capped(const Context& c) {
  if (!has_stage(c.t, StageId::capped)) return "The softcap is off now: turn it on in Setup > QK-norm and softcap.";
  Eigen::Index r = 0, col = 0;
  (void)c.h.scores.cwiseAbs().maxCoeff(&r, &col);
  const double scaled = c.h.scores(r, col) * c.t.scale, cap = c.t.softcap;
  return "The softcap c = " + c.num(cap) + " bends every scaled score s into c Â· tanh(s / c): scores well below c " +
         "pass almost unchanged, none can pass c. The largest here, " + c.num(scaled) + ", becomes " +
         c.num(capped_logit(c.h.scores(r, col), c.t.scale, cap)) + ".";
}

// The query the explanation speaks of: the first highlighted one, else the most decided one
// (the largest single weight).
int focus_query(const Context& c, const Step& step) {
  if (!step.highlight.empty())
    return std::clamp(c.rows ? step.highlight.front().row : step.highlight.front().col, 0,
                      int(c.queries.size()) - 1);
  int best = 0;
  double best_w = -1;
  for (int i = 0; i < int(c.queries.size()); ++i)
    for (int j = 0; j < int(c.keys.size()); ++j)
      if (c.qk(c.h.weights, i, j) > best_w) best_w = c.qk(c.h.weights, i, j), best = i;
  return best;
}

int argmax_key(const Context& c, const Matrix& m, int i) {
  int best = 0;
  for (int j = 1; j < int(c.keys.size()); ++j)
    if (c.qk(m, i, j) > c.qk(m, i, best)) best = j;
  return best;
}

std::string explain_projection(const Context& c, const Step& step, char which) {
  const Matrix& m = which == 'q' ? c.h.Q : which == 'k' ? c.h.K : c.h.V;
  const std::vector<std::string>& tokens = which == 'q' ? c.queries : c.keys;
  // The highlighted token (its row, or column), else the first.
  const int t = step.highlight.empty() ? 0
                : std::clamp(c.rows ? step.highlight.front().row : step.highlight.front().col, 0,
                             int(tokens.size()) - 1);
  const char* role = which == 'q' ? "query" : which == 'k' ? "key" : "value";
  const char* use = which == 'q' ? "it asks every key how well it matches"
                    : which == 'k' ? "every query is compared with it"
                                   : "the head's output mixes these, weighted by attention";
  return std::string("Each ") + c.line + " is one token's " + role + " vector (" + use + "): " +
         in_quotes(tokens[std::size_t(t)]) + " has " + c.vector_of(m, t) + ".";
}

std::string explain_scores(const Context& c) {
  int bi = 0, bj = 0;
  for (int i = 0; i < int(c.queries.size()); ++i)
    for (int j = 0; j < int(c.keys.size()); ++j)
      if (c.qk(c.h.scores, i, j) > c.qk(c.h.scores, bi, bj)) bi = i, bj = j;
  return "Each entry is the dot product of one query with one key: the largest, " +
         c.num(c.qk(c.h.scores, bi, bj)) + ", is query " + in_quotes(c.queries[std::size_t(bi)]) +
         " against key " + in_quotes(c.keys[std::size_t(bj)]) + ".";
}

std::string explain_masked(const Context& c) {
  long masked = 0;
  for (Eigen::Index r = 0; r < c.t.allowed.rows(); ++r)
    for (Eigen::Index k = 0; k < c.t.allowed.cols(); ++k) masked += c.t.is_masked(r, k) ? 1 : 0;
  return std::to_string(masked) + " of the " + std::to_string(c.t.allowed.size()) +
         " scores are masked to \xE2\x88\x92\xE2\x88\x9E: after the softmax those keys get exactly 0.";
}

std::string explain_weights(const Context& c, const Step& step) {
  const int i = focus_query(c, step);
  const int j = argmax_key(c, c.h.weights, i);
  return std::string("Each ") + c.line + " is a softmax and sums to 1: " + in_quotes(c.queries[std::size_t(i)]) +
         " gives " + c.num(c.qk(c.h.weights, i, j)) + " of its attention to " + in_quotes(c.keys[std::size_t(j)]) +
         ", its largest weight.";
}

std::string explain_head_output(const Context& c, const Step& step) {
  const int i = focus_query(c, step);
  std::string sum;
  for (int j = 0; j < int(c.keys.size()) && j < 4; ++j)
    sum += (j ? " + " : "") + c.num(c.qk(c.h.weights, i, j)) + "\xC2\xB7v(" + c.keys[std::size_t(j)] + ")";
  if (c.keys.size() > 4) sum += " + ...";
  return std::string("Each ") + c.line + " mixes the value vectors by its weights: " +
         in_quotes(c.queries[std::size_t(i)]) + " = " + sum + " = " + c.vector_of(c.h.output, i) + ".";
}

/// The query that sees the most keys (a causal mask's last row): where the heads can differ. With
/// a causal mask the first query sees only itself, weight 1 in every head, which says nothing.
int widest_query(const Context& c) {
  int best = 0, best_count = -1;
  for (int i = 0; i < int(c.queries.size()); ++i) {
    int count = 0;
    for (int j = 0; j < int(c.keys.size()); ++j) count += c.qk(c.h.weights, i, j) > 0.0;
    if (count > best_count) best = i, best_count = count;
  }
  return best;
}

std::string explain_heads(const Context& c) {
  std::string out = std::to_string(c.t.heads.size()) + " heads, each with its own weights.";
  const int i = widest_query(c);
  out += " Where " + in_quotes(c.queries[std::size_t(i)]) + " looks most:";
  for (std::size_t k = 0; k < c.t.heads.size() && k < 4; ++k) {
    const Context hk{c.s, c.t, c.t.heads[k], int(k), c.rows, c.line, c.queries, c.keys, c.decimals};
    const int j = argmax_key(hk, hk.h.weights, i);
    out += std::string(k ? ";" : "") + " " + head_label(int(k)) + " at " +
           in_quotes(c.keys[std::size_t(j)]) + " (" + hk.num(hk.qk(hk.h.weights, i, j)) + ")";
  }
  return out + ".";
}

/// The lines: what a line is, then where the widest query's strongest line goes, in every head
/// (a step without a head) or in the step's head.
std::string explain_lines(const Context& c, const Step& step) {
  const int i = widest_query(c);
  std::string out = "Each line joins a query on the left to a key on the right; the darker the line, the "
                    "larger its weight. The strongest line of " + in_quotes(c.queries[std::size_t(i)]);
  if (step.head >= 0) {
    const int j = argmax_key(c, c.h.weights, i);
    return out + " goes to " + in_quotes(c.keys[std::size_t(j)]) + " (" + c.num(c.qk(c.h.weights, i, j)) + ").";
  }
  out += " in each head:";
  for (std::size_t k = 0; k < c.t.heads.size() && k < 4; ++k) {
    const Context hk{c.s, c.t, c.t.heads[k], int(k), c.rows, c.line, c.queries, c.keys, c.decimals};
    const int j = argmax_key(hk, hk.h.weights, i);
    out += std::string(k ? ";" : "") + " " + head_label(int(k)) + " to " + in_quotes(c.keys[std::size_t(j)]) + " (" +
           hk.num(hk.qk(hk.h.weights, i, j)) + ")";
  }
  return out + (c.t.heads.size() > 4 ? "; ..." : ".");
}

/// The positional stages, with the live numbers; a stage the trace lacks says what turns it on.
std::string explain_positional(const Context& c, const Step& step) {
  if (!has_stage(c.t, step.kind))
    return step.kind == StageId::X_pos ? "No positional encoding now: set Positions > encoding to sinusoidal."
           : step.kind == StageId::bias ? "ALiBi is off now: turn it on in Positions."
                                         : "RoPE is off now: turn it on in Positions.";
  const std::string first = in_quotes(c.queries.front());
  switch (step.kind) {
    case StageId::X_pos:
      return "Each token's embedding plus a pattern of sines and cosines of its position, so that order "
             "reaches the projections: " + first + " becomes " + c.vector_of(c.t.X_pos, 0) + ".";
    case StageId::Q_rot:
    case StageId::K_rot: {
      const bool q = step.kind == StageId::Q_rot;
      const Matrix& m = q ? c.h.Q_rot : c.h.K_rot;
      const std::vector<std::string>& names = q ? c.queries : c.keys;
      const std::size_t last = names.size() - 1;
      return std::string(q ? "Each query" : "Each key") + " is turned, pair by pair, by an angle proportional to its "
             "position; lengths stay, directions change. " + in_quotes(names[last]) + " becomes " +
             c.vector_of(m, int(last)) + ". The scores then depend only on how far apart two tokens are.";
    }
    case StageId::bias: {
      const int i = int(c.queries.size()) - 1;
      return "Head " + index_text(c.head) + " subtracts " +
             format_trimmed(c.t.slopes[std::size_t(c.head)], kMaxDecimals) +
             " per position of distance: far keys lose score before the softmax. " +
             in_quotes(c.queries[std::size_t(i)]) + " to " + in_quotes(c.keys.front()) + ": " +
             c.num(c.qk(c.t.bias(std::size_t(c.head)), i, 0)) + ".";
    }
    default: return {};
  }
}

std::string shape(const Matrix& m) { return std::to_string(m.rows()) + "\xC3\x97" + std::to_string(m.cols()); }

}  // namespace

std::string attention_summary(const Scenario& s) {
  const bool rows = s.layout == Layout::rows;
  std::string scale;
  if (s.scale.kind == Scale::Kind::inv_sqrt_dk) scale = " / \xE2\x88\x9A" "d_k";
  if (s.scale.kind == Scale::Kind::value) scale = " \xC2\xB7 " + format_trimmed(s.scale.value, 3);
  const std::string mask = std::string(s.alibi ? " + B" : "") + (s.mask.empty() ? "" : " + M");
  const std::string out = s.W_o ? (rows ? ",  out = concat W_o" : ",  out = W_o concat") : "";
  const std::string q = s.rope ? "Q_rot" : s.qk_norm ? "Q_norm" : "Q", k = s.rope ? "K_rot" : s.qk_norm ? "K_norm" : "K";
  std::string scores = rows ? q + " " + k + "^T" + scale : k + "^T " + q + scale;
  // The softcap bends the scaled scores before the bias and the mask: c tanh(s / c).
  if (s.softcap > 0) scores = "c tanh(" + scores + " / c)";
  const std::string cap = s.softcap > 0 ? ",  c = " + format_trimmed(s.softcap, 3) : "";
  return rows ? "A = softmax_row(" + scores + mask + "),  Y = A V" + out + cap
              : "A = softmax_col(" + scores + mask + "),  Y = V A" + out + cap;
}

std::string predict_prompt(const Step& step, const Scenario& s, const Trace& t, int head, int decimals) {
  switch (step.kind) {
    case StageId::tiles: return tiles_prompt(step, s, t, head, decimals);
    case StageId::decode: return "Predict first: which tokens does the cache hold now, and where does the new query look?";
    case StageId::lines: return "Predict first: where will each query's strongest line go?";
    default: return "Predict first: what will these cells be?";
  }
}

std::string step_title(const Step& step, const Scenario& s, int head) {
  if (step.kind == StageId::tiles || step.kind == StageId::decode) return engine_title(step, s, head);
  std::string title = stage_row(step.kind).step_title;
  if (per_head(step.kind) && s.head_count() > 1) title += " (" + head_label(head) + ")";
  return title;
}

std::string step_formula(const Step& step, const Scenario& s, int head) {
  head = std::clamp(head, 0, std::max(0, s.head_count() - 1));
  return stage_formula(step.kind, s, head, head_d_k(s, head));
}

std::string step_explanation(const Step& step, const Scenario& s, const Trace& t, int head, int decimals) {
  if (t.heads.empty()) return {};
  head = std::clamp(head, 0, int(t.heads.size()) - 1);
  const bool rows = s.layout == Layout::rows;
  const HeadTrace& h = t.heads[std::size_t(head)];
  const int n_x = int(rows ? h.Q.rows() : h.Q.cols()), n_z = int(rows ? h.K.rows() : h.K.cols());
  std::vector<std::string> queries = named(s.tokens, n_x, "x");
  std::vector<std::string> keys = s.cross_attention() ? named(s.context_tokens, n_z, "z") : queries;
  const Context c{s, t, h, head, rows, rows ? "row" : "column", queries, keys, decimals};
  switch (step.kind) {
    case StageId::inputs:
      return std::string("X holds the ") + std::to_string(n_x) + " tokens as " + c.line + "s of " +
             std::to_string(rows ? s.X.cols() : s.X.rows()) + " numbers: " + in_quotes(queries.front()) +
             " is " + c.vector_of(s.X, 0) + "." +
             (s.cross_attention() ? " Z holds the " + std::to_string(n_z) + " tokens the queries attend to." : "");
    case StageId::Q: return explain_projection(c, step, 'q');
    case StageId::K: return explain_projection(c, step, 'k');
    case StageId::V: return explain_projection(c, step, 'v');
    case StageId::scores: return explain_scores(c);
    case StageId::scaled:
      return "Every score is multiplied by " + c.num(t.scale) +
             " so that the softmax does not saturate as d_k grows: " + c.num(c.qk(h.scores, 0, 0)) + " becomes " +
             c.num(c.qk(h.scores, 0, 0) * t.scale) + ".";
    case StageId::capped: return explain_capped(c);
    case StageId::Q_norm: return explain_qk_norm(c, true);
    case StageId::K_norm: return explain_qk_norm(c, false);
    case StageId::masked: return explain_masked(c);
    case StageId::weights: return explain_weights(c, step);
    case StageId::head_output: return explain_head_output(c, step);
    case StageId::heads: return explain_heads(c);
    case StageId::lines: return explain_lines(c, step);
    case StageId::concat:
      return "The " + std::to_string(t.heads.size()) + " heads' outputs " +
             (rows ? "side by side" : "stacked") + ": one " + c.line + " per token, " + shape(t.concat) + " in all.";
    case StageId::W_o:
      return s.W_o ? "W_o mixes the concatenated features of every head into the output, " + shape(*s.W_o) + "."
                   : "This scenario has no W_o: the output is the concatenation.";
    case StageId::output:
      return "The final output, " + shape(t.output) + ": " + in_quotes(queries.front()) + " is " +
             c.vector_of(t.output, 0) + ".";
    case StageId::X_pos:
    case StageId::Q_rot:
    case StageId::K_rot:
    case StageId::bias: return explain_positional(c, step);
    case StageId::tiles: return explain_tiles(step, t, head, queries, decimals);
    case StageId::decode: return explain_decode(step, s, t, head, queries, decimals);
    case StageId::none: break;  // not a lesson step
  }
  return {};
}

}  // namespace attnlab::lesson
