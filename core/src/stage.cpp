// The one table of stages (stage.h), the trace matrix of each, and each one's formula.
#include "attnlab/stage.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "attnlab/number_format.h"

namespace attnlab {
namespace {

using A = StageAxis;
using N = StageNeeds;

// clang-format off
const std::vector<StageRow> kStages = {
  // id, name, cell name, window label, export caption, lesson step title,
  //   rows, cols (rows layout), per head, sensitivity target, needs, lesson order
  {StageId::none, "none", nullptr, "", nullptr, nullptr, A::none, A::none, false, false, N::nothing, -1},
  {StageId::inputs, "inputs", nullptr, "X", nullptr, "The inputs: one vector per token",
   A::queries, A::d_x, false, false, N::nothing, 0},
  {StageId::X_pos, "X_pos", "X_pos", "X + PE", "embeddings + positions", "Positions added: X + PE",
   A::queries, A::d_x, false, false, N::encoding, 13},
  {StageId::Q, "Q", "Q", "Q", "queries Q", "Queries: what each token looks for",
   A::queries, A::d_k, true, false, N::nothing, 1},
  {StageId::K, "K", "K", "K", "keys K", "Keys: what each token offers",
   A::keys, A::d_k, true, false, N::nothing, 2},
  {StageId::V, "V", "V", "V", "values V", "Values: what each token passes on",
   A::keys, A::d_v, true, false, N::nothing, 3},
  {StageId::Q_norm, "Q_norm", "Q_norm", "Q_norm", "normalised queries (QK-norm)", "Queries normalised: QK-norm",
   A::queries, A::d_k, true, false, N::qk_norm, 19},
  {StageId::K_norm, "K_norm", "K_norm", "K_norm", "normalised keys (QK-norm)", "Keys normalised: QK-norm",
   A::keys, A::d_k, true, false, N::qk_norm, 20},
  {StageId::Q_rot, "Q_rot", "Q_rot", "Q_rot", "rotated queries (RoPE)", "Queries turned by their positions (RoPE)",
   A::queries, A::d_k, true, false, N::rope, 14},
  {StageId::K_rot, "K_rot", "K_rot", "K_rot", "rotated keys (RoPE)", "Keys turned by their positions (RoPE)",
   A::keys, A::d_k, true, false, N::rope, 15},
  {StageId::scores, "scores", "scores", "scores", "scores S", "Scores: every query against every key",
   A::queries, A::keys, true, true, N::nothing, 4},
  {StageId::scaled, "scaled", "scaled", "scaled", "scaled scores", "Scaled scores",
   A::queries, A::keys, true, false, N::nothing, 5},
  {StageId::capped, "capped", "capped", "softcapped", "softcapped scores", "The softcap: tanh bends runaway scores",
   A::queries, A::keys, true, false, N::softcap, 21},
  {StageId::bias, "bias", "bias", "ALiBi bias", "ALiBi bias", "ALiBi: a penalty growing with distance",
   A::queries, A::keys, true, false, N::alibi, 16},
  {StageId::masked, "masked", "masked", "masked", "masked scores", "The mask: keys a query may not see",
   A::queries, A::keys, true, false, N::nothing, 6},
  {StageId::weights, "weights", "weights", "weights", "attention weights", "Attention weights: a softmax per query",
   A::queries, A::keys, true, true, N::nothing, 7},
  {StageId::head_output, "head_output", "output", "head output", "head output",
   "The head's output: values mixed by the weights", A::queries, A::d_v, true, true, N::nothing, 8},
  {StageId::heads, "heads", nullptr, "", nullptr, "Every head's weights", A::queries, A::keys, false, false,
   N::nothing, 9},
  {StageId::concat, "concat", "concat", "concat", "concatenated heads", "The heads' outputs, concatenated",
   A::queries, A::heads_d_v, false, true, N::nothing, 10},
  {StageId::W_o, "W_o", nullptr, "W_o", nullptr, "W_o: the output projection", A::heads_d_v, A::d_out, false, false,
   N::nothing, 11},
  {StageId::output, "output", "output", "output", "output", "The output", A::queries, A::d_out, false, true,
   N::nothing, 12},
  {StageId::tiles, "tiles", nullptr, "tiles", nullptr, "FlashAttention, tile by tile", A::queries, A::keys, false,
   false, N::nothing, 17},
  {StageId::decode, "decode", nullptr, "decode", nullptr, "The KV cache, token by token", A::queries, A::keys, false,
   false, N::nothing, 18},
  {StageId::lines, "lines", nullptr, "lines", nullptr, "Attention as lines: each query to each key", A::queries,
   A::keys, false, false, N::nothing, 22},
};
// clang-format on

/// The projections `which` ('q', 'k', 'v') of `head` comes from: the full ones, the head's own,
/// or for keys and values shared through kv_heads, its key/value head's.
const Projections& projections(const Scenario& s, int head, char which = 'q') {
  if (!s.per_head()) return s.full;
  if (which != 'q' && !s.kv_heads.empty())
    return s.kv_heads[static_cast<std::size_t>(head / std::max(1, s.head_count() / s.kv_head_count()))];
  return s.heads[static_cast<std::size_t>(head)];
}

bool has_bias(const Scenario& s, int head, char which) {
  const Projections& p = projections(s, head, which);
  return which == 'q' ? p.b_q.has_value() : which == 'k' ? p.b_k.has_value() : p.b_v.has_value();
}

// "Q = X W_q + b_q" in rows, "Q = W_q X + b_q 1^T" in columns; identity projections drop W.
std::string projection(const Scenario& s, int head, char which) {
  const bool rows = s.layout == Layout::rows;
  const char* input = which == 'q' || !s.cross_attention() ? "X" : "Z";
  const std::string name(1, static_cast<char>(std::toupper(which)));
  const Projections& p = projections(s, head, which);
  const bool has_w = which == 'q' ? p.W_q.has_value() : which == 'k' ? p.W_k.has_value() : p.W_v.has_value();
  const std::string w = std::string("W_") + which + (s.head_count() > 1 ? "\xE2\x81\xBD\xCA\xB0\xE2\x81\xBE" : "");
  std::string out = name + " = ";
  if (!has_w)
    out += input;
  else
    out += rows ? std::string(input) + " " + w : w + " " + input;
  if (has_bias(s, head, which)) out += std::string(" + b_") + which + (rows ? "" : " 1^T");
  return out;
}

// The formulas of the stages after the projections (attention proper and the combination).
std::string attention_formula(StageId id, const Scenario& s, int d_k) {
  const bool rows = s.layout == Layout::rows;
  switch (id) {
    case StageId::scores:
      if (s.rope) return rows ? "S = Q_rot K_rot^T" : "S = K_rot^T Q_rot";
      if (s.qk_norm) return rows ? "S = Q_norm K_norm^T" : "S = K_norm^T Q_norm";
      return rows ? "S = Q K^T" : "S = K^T Q";
    case StageId::scaled: return "S\xE2\x80\xB2 = S \xC2\xB7 " + scale_description(s, d_k);
    case StageId::capped:
      return "S\xE2\x80\xB2 \xE2\x86\x90 c \xC2\xB7 tanh(S\xE2\x80\xB2 / c),  c = " + format_trimmed(s.softcap, 4);
    case StageId::bias: return "B = \xE2\x88\x92m |p_i \xE2\x88\x92 c_j|  (ALiBi, one slope m per head)";
    case StageId::masked: {
      const std::string capped = s.softcap > 0 ? "c \xC2\xB7 tanh(S\xE2\x80\xB2 / c)" : "S\xE2\x80\xB2";
      return "S\xE2\x80\xB3 = " + capped + (s.alibi ? " + B" : "") + ", \xE2\x88\x92\xE2\x88\x9E where masked";
    }
    case StageId::weights:
    case StageId::heads:
    case StageId::lines:
      return rows ? "A = softmax(S\xE2\x80\xB3) along each row" : "A = softmax(S\xE2\x80\xB3) down each column";
    case StageId::head_output: return rows ? "Y = A V" : "Y = V A";
    case StageId::concat:
      return rows ? "[Y\xE2\x82\x81 \xE2\x80\xA6 Y_H] side by side" : "[Y\xE2\x82\x81; \xE2\x80\xA6; Y_H] stacked";
    case StageId::W_o: return rows ? "H\xC2\xB7" "d_v \xC3\x97 d_out" : "d_out \xC3\x97 H\xC2\xB7" "d_v";
    case StageId::output: {
      const bool bias = s.b_o.has_value();
      if (!s.W_o) return "output = concat";
      return rows ? std::string("concat W_o") + (bias ? " + b_o" : "") : std::string("W_o concat") + (bias ? " + b_o 1^T" : "");
    }
    case StageId::tiles:  // per query row of the tile, P = exp(S - m'): FlashAttention-2's recurrence
      return "m\xE2\x80\xB2 = max(m, rowmax S),  \xCE\xB1 = exp(m \xE2\x88\x92 m\xE2\x80\xB2),  "
             "l\xE2\x80\xB2 = \xCE\xB1 l + rowsum P,  O\xE2\x80\xB2 = \xCE\xB1 O + P V";
    case StageId::decode:
      return rows ? "a_t = softmax(q_t K_cache^T, scaled and masked),  y_t = a_t V_cache"
                  : "a_t = softmax(K_cache^T q_t, scaled and masked),  y_t = V_cache a_t";
    default: return {};
  }
}

}  // namespace

const std::vector<StageRow>& stage_table() { return kStages; }

const StageRow& stage_row(StageId id) { return kStages[static_cast<std::size_t>(id)]; }

const char* stage_name(StageId id) { return stage_row(id).name; }

std::optional<StageId> stage_from_name(const std::string& name) {
  for (const StageRow& row : kStages)
    if (row.id != StageId::none && name == row.name) return row.id;
  return std::nullopt;
}

std::optional<StageId> stage_from_cell_name(const std::string& name, bool per_head) {
  for (const StageRow& row : kStages)
    if (row.cell_name && row.per_head == per_head && name == row.cell_name) return row.id;
  return std::nullopt;
}

bool per_head(StageId id) { return stage_row(id).per_head; }

bool has_stage(const Trace& t, StageId id) {
  switch (stage_row(id).needs) {
    case StageNeeds::encoding: return t.X_pos.size() > 0;
    case StageNeeds::rope: return t.has_rope();
    case StageNeeds::alibi: return t.has_bias();
    case StageNeeds::qk_norm: return t.has_qk_norm();
    case StageNeeds::softcap: return t.has_softcap();
    case StageNeeds::nothing: break;
  }
  return true;
}

std::vector<StageId> lesson_stages() {
  std::vector<const StageRow*> rows;
  for (const StageRow& row : kStages)
    if (row.lesson_order >= 0) rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const StageRow* a, const StageRow* b) { return a->lesson_order < b->lesson_order; });
  std::vector<StageId> out;
  for (const StageRow* row : rows) out.push_back(row->id);
  return out;
}

std::vector<StageId> exported_stages() {
  std::vector<StageId> out;
  for (const StageRow& row : kStages)
    if (row.caption) out.push_back(row.id);
  return out;
}

StageDims stage_dims(const Scenario& s, const Trace& t) {
  const bool rows = t.layout == Layout::rows;
  auto size = [rows](const Matrix& m, bool tokens) { return long(rows == tokens ? m.rows() : m.cols()); };
  StageDims d;
  d.d_x = size(s.X, false);
  d.heads = long(t.heads.size());
  d.d_out = size(t.output, false);
  if (t.heads.empty()) return d;
  const HeadTrace& h = t.heads.front();
  d.n_x = size(h.Q, true);
  d.n_z = size(h.K, true);
  d.d_k = size(h.Q, false);
  d.d_v = size(h.V, false);
  return d;
}

StageDims stage_dims(const Model& m) {
  StageDims d;
  d.n_x = long(m.X->rows());
  d.n_z = long(m.keys().rows());
  d.d_x = long(m.X->cols());
  d.d_k = m.d_k;
  d.d_v = m.d_v;
  d.heads = m.num_heads;
  d.d_out = m.has_W_o() ? long(m.W_o->cols()) : long(m.num_heads) * m.d_v;
  return d;
}

long axis_size(StageAxis axis, const StageDims& d) {
  switch (axis) {
    case StageAxis::queries: return d.n_x;
    case StageAxis::keys: return d.n_z;
    case StageAxis::d_x: return d.d_x;
    case StageAxis::d_k: return d.d_k;
    case StageAxis::d_v: return d.d_v;
    case StageAxis::heads_d_v: return d.heads * d.d_v;
    case StageAxis::d_out: return d.d_out;
    case StageAxis::none: break;
  }
  return 0;
}

const char* axis_name(StageAxis axis) {
  switch (axis) {
    case StageAxis::queries: return "queries";
    case StageAxis::keys: return "keys";
    case StageAxis::d_x: return "d_x";
    case StageAxis::d_k: return "d_k";
    case StageAxis::d_v: return "d_v";
    case StageAxis::heads_d_v: return "H\xC2\xB7" "d_v";
    case StageAxis::d_out: return "d_out";
    case StageAxis::none: break;
  }
  return nullptr;
}

const Matrix* stage_source(const Trace& t, StageId id, int head) {
  if (!has_stage(t, id)) return nullptr;
  if (id == StageId::X_pos) return &t.X_pos;
  if (id == StageId::concat) return &t.concat;
  if (id == StageId::output) return &t.output;
  if (!per_head(id) || head < 0 || head >= int(t.heads.size())) return nullptr;
  const HeadTrace& h = t.heads[std::size_t(head)];
  switch (id) {
    case StageId::Q: return &h.Q;
    case StageId::K: return &h.K;
    case StageId::V: return &h.V;
    case StageId::Q_norm: return &h.Q_norm;
    case StageId::K_norm: return &h.K_norm;
    case StageId::Q_rot: return &h.Q_rot;
    case StageId::K_rot: return &h.K_rot;
    case StageId::scores:
    case StageId::scaled:
    case StageId::capped:
    case StageId::bias:
    case StageId::masked: return &h.scores;
    case StageId::weights: return &h.weights;
    case StageId::head_output: return &h.output;
    default: return nullptr;
  }
}

std::optional<double> stage_value(const Trace& t, StageId id, int head, Eigen::Index row, Eigen::Index col) {
  const Matrix* m = stage_source(t, id, head);
  if (!m || row < 0 || col < 0 || row >= m->rows() || col >= m->cols()) return std::nullopt;
  const auto h = static_cast<std::size_t>(head);
  if (id == StageId::scaled) return t.scaled(h)(row, col);
  if (id == StageId::capped) return t.capped_at(h, row, col);
  if (id == StageId::bias) return t.bias_at(h, row, col);
  if (id == StageId::masked) return t.masked(h)(row, col);
  return (*m)(row, col);
}

Matrix stage_matrix(const Trace& t, StageId id, int head) {
  const Matrix* m = stage_source(t, id, head);
  if (!m) return {};
  const auto h = static_cast<std::size_t>(head);
  if (id == StageId::scaled) return t.scaled(h);
  if (id == StageId::capped) return t.capped(h);
  if (id == StageId::bias) return t.bias(h);
  if (id != StageId::masked) return *m;
  Matrix out;
  t.masked_into(h, out);
  return out;
}

int head_d_k(const Scenario& s, int head) {
  const bool rows = s.layout == Layout::rows;
  const Projections& p = projections(s, head);
  const int split = s.per_head() ? 1 : std::max(1, s.head_count());
  if (p.W_q) return int(rows ? p.W_q->cols() : p.W_q->rows()) / split;
  return int(rows ? s.X.cols() : s.X.rows()) / split;
}

std::string scale_description(const Scenario& s, int d_k) {
  switch (s.scale.kind) {
    case Scale::Kind::inv_sqrt_dk:
      return "1/\xE2\x88\x9A" "d_k = 1/\xE2\x88\x9A" + std::to_string(d_k) + " = " +
             format_trimmed(1.0 / std::sqrt(double(d_k)), 4);
    case Scale::Kind::none: return "1 (unscaled)";
    case Scale::Kind::value:
      return format_trimmed(s.scale.value, 4) + " (temperature T = " + format_trimmed(1.0 / s.scale.value, 4) + ")";
  }
  return {};
}

std::string stage_formula(StageId id, const Scenario& s, int head, int d_k) {
  const bool rows = s.layout == Layout::rows;
  switch (id) {
    case StageId::none: return {};
    case StageId::inputs: {
      const std::string x = rows ? "X: one row per token" : "X: one column per token";
      return s.cross_attention() ? x + " (the queries'); Z likewise (the keys' and values')" : x;
    }
    case StageId::Q: return projection(s, head, 'q');
    case StageId::K: return projection(s, head, 'k');
    case StageId::V: return projection(s, head, 'v');
    case StageId::X_pos: return "X + PE,  PE(p, 2i) = sin(p / 10000^(2i/d)),  PE(p, 2i+1) = cos(p / 10000^(2i/d))";
    case StageId::Q_norm:
    case StageId::K_norm: {
      const bool head_scope = s.qk_norm && s.qk_norm->scope == QkNorm::Scope::head;
      const char* gain = s.qk_norm && s.qk_norm->plus_one ? "(1 + w)" : "w";
      return std::string(id == StageId::Q_norm ? "q" : "k") + "\xE2\x80\xB2 = " +
             (id == StageId::Q_norm ? "q" : "k") + " / \xE2\x88\x9A(mean(" + (id == StageId::Q_norm ? "q" : "k") +
             "\xC2\xB2) + \xCE\xB5) \xC2\xB7 " + gain + (head_scope ? ",  the mean over the head's d_k" :
             ",  the mean over the whole row of every head");
    }
    case StageId::Q_rot:
    case StageId::K_rot:
      return std::string(id == StageId::Q_rot ? "q" : "k") +
             "\xE2\x80\xB2 = (x cos p\xCE\xB8_i \xE2\x88\x92 y sin p\xCE\xB8_i,  y cos p\xCE\xB8_i + x sin p\xCE\xB8_i) per pair,  "
             "\xCE\xB8_i = base^(\xE2\x88\x92" "2i/R)";
    default: return attention_formula(id, s, d_k);
  }
}

}  // namespace attnlab
