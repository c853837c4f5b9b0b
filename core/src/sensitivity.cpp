// Sensitivity (sensitivity.h): reverse-mode differentiation of one trace cell, written out by hand
// stage by stage, in the rows convention of the Model; the gradients are laid out as the
// scenario's own matrices at the end.
#include "attnlab/sensitivity.h"

#include <string>

#include "attnlab/attention.h"
#include "attnlab/positions.h"
#include "attnlab/trace_io.h"

namespace attnlab {

namespace {

std::string shape_text(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

[[noreturn]] void unknown_stage(const CellRef& ref) {
  throw ScenarioError(ref.text() +
                      ": expected output[i][j], concat[i][j], heads[h].weights[i][j], "
                      "heads[h].scores[i][j] or heads[h].output[i][j]");
}

/// Gradients in the rows convention, shaped like the Model's matrices (heads side by side).
struct ModelGradients {
  Matrix X, keys;        ///< n_x by d_x; n_z by d_z (cross-attention only; else added into X)
  Matrix W_q, W_k, W_v;  ///< d_x by H d_k, d_z by G d_k, d_z by G d_v
  Vector b_q, b_k, b_v;  ///< H d_k, G d_k, G d_v
  Matrix W_o;            ///< H d_v by d_out (with W_o)
  Vector b_o;            ///< d_out (with W_o)
};

/// The backward pass of A = softmax(L) along each row: dL_ij = A_ij (dA_ij - sum_k A_ik dA_ik).
/// Masked keys (A = 0) and queries that may attend nothing (a zero row) get no gradient.
/// @param A   n_x by n_z weights;  @param dA  n_x by n_z
Matrix softmax_rows_backward(const Matrix& A, const Matrix& dA) {
  const Vector dot = A.cwiseProduct(dA).rowwise().sum();  // n_x
  return A.cwiseProduct(dA - dot.replicate(1, dA.cols()));
}

/// dM = a R^T dM_rot: RoPE turns (and longrope scales by a) each token's pairs by its position's angles; the transpose of a
/// rotation turns them back, i.e. by the negated positions.
/// @param d_rot  n by d_k, gradient w.r.t. the rotated rows
Matrix rope_backward(const Rope& rope, const std::vector<double>& frequencies, const Matrix& d_rot,
                     const std::vector<double>& positions) {
  std::vector<double> back(positions.size());
  for (std::size_t t = 0; t < positions.size(); ++t) back[t] = -positions[t];
  Matrix out(d_rot.rows(), d_rot.cols());
  positional::rotate_rows(rope, frequencies, d_rot, back, 0, d_rot.rows(), out);
  return out;
}

/// The seed: d(target)/d(the stage it lies in) is 1 at the target cell, 0 elsewhere.
Matrix unit(Eigen::Index rows, Eigen::Index cols, const TraceCell& c) {
  Matrix m = Matrix::Zero(rows, cols);
  m(c.row, c.col) = 1.0;
  return m;
}

ModelGradients backward(const Model& m, const Trace& t, const TraceCell& target) {
  const Eigen::Index H = m.num_heads, d_k = m.d_k, d_v = m.d_v;
  const Eigen::Index n_x = m.X->rows(), n_z = m.keys().rows();
  const bool cross = m.Z != nullptr;
  ModelGradients g;
  g.X = Matrix::Zero(n_x, m.X->cols());
  g.keys = Matrix::Zero(n_z, m.keys().cols());
  g.W_q = Matrix::Zero(m.W_q->rows(), m.W_q->cols());
  g.W_k = Matrix::Zero(m.W_k->rows(), m.W_k->cols());
  g.W_v = Matrix::Zero(m.W_v->rows(), m.W_v->cols());
  g.b_q = Vector::Zero(m.b_q.size());
  g.b_k = Vector::Zero(m.b_k.size());
  g.b_v = Vector::Zero(m.b_v.size());

  if (m.has_W_o()) {  // zero unless the target is an output cell: the output lies after the others
    g.W_o = Matrix::Zero(m.W_o->rows(), m.W_o->cols());
    g.b_o = Vector::Zero(m.b_o.size());
  }
  // Output = concat W_o + 1 b_o^T (or concat itself): dconcat = dOut W_o^T.
  Matrix d_concat = Matrix::Zero(n_x, H * d_v);
  if (target.stage == StageId::output) {
    const Matrix d_out = unit(t.output.rows(), t.output.cols(), target);
    if (m.has_W_o()) {
      g.W_o = t.concat.transpose() * d_out;  // H d_v by d_out
      g.b_o = d_out.colwise().sum().transpose();
      d_concat = d_out * m.W_o->transpose();
    } else {
      d_concat = d_out;
    }
  } else if (target.stage == StageId::concat) {
    d_concat = unit(n_x, H * d_v, target);
  }

  for (Eigen::Index h = 0; h < H; ++h) {
    const bool own = target.head == h;
    const bool before_heads =
        target.stage == StageId::output || target.stage == StageId::concat;
    if (!before_heads && !own) continue;  // a head's stages reach no other head's
    const HeadTrace& ht = t.heads[std::size_t(h)];
    const HeadWeights w = m.head(std::size_t(h));
    const Eigen::Index kv = m.kv_head(std::size_t(h));
    // Y = A V: dA = dY V^T, dV = A^T dY (n_z by d_v).
    Matrix dY = target.stage == StageId::head_output
                    ? unit(n_x, d_v, target)
                    : Matrix(d_concat.middleCols(h * d_v, d_v));
    if (m.is_off(std::size_t(h))) dY.setZero();  // a switched-off head's output is the constant 0
    Matrix dS;
    Matrix dV = Matrix::Zero(n_z, d_v);
    if (target.stage == StageId::scores) {
      dS = unit(n_x, n_z, target);
    } else {
      Matrix dA;
      if (target.stage == StageId::weights) {
        dA = unit(n_x, n_z, target);
      } else {
        dA = dY * ht.V.transpose();
        dV = ht.weights.transpose() * dY;
      }
      // L = scale S + B (B constant; masked keys have A = 0, so no gradient): dS = scale dL.
      dS = m.scale * softmax_rows_backward(ht.weights, dA);
      // With a softcap L = c tanh(scale S / c) + B: dL/d(scale S) = 1 - tanh^2(scale S / c).
      if (m.softcap > 0)
        dS.array() *= 1.0 - (ht.scores.array() * (m.scale / m.softcap)).tanh().square();
    }
    // S = Q_r K_r^T: dQ_r = dS K_r, dK_r = dS^T Q_r.
    const Matrix& Qs = m.rope ? ht.Q_rot : ht.Q;
    const Matrix& Ks = m.rope ? ht.K_rot : ht.K;
    Matrix dQ = dS * Ks, dK = dS.transpose() * Qs;
    if (m.rope) {
      dQ = rope_backward(*m.rope, m.rope_frequencies, dQ, m.query_positions);
      dK = rope_backward(*m.rope, m.rope_frequencies, dK, m.key_positions);
    }
    // Q = X W_q + 1 b_q^T, K = Z W_k + 1 b_k^T, V = Z W_v + 1 b_v^T; shared key/value heads add up.
    g.W_q.middleCols(h * d_k, d_k) += m.X->transpose() * dQ;
    g.b_q.segment(h * d_k, d_k) += dQ.colwise().sum().transpose();
    g.X += dQ * w.W_q.transpose();
    g.W_k.middleCols(kv * d_k, d_k) += m.keys().transpose() * dK;
    g.b_k.segment(kv * d_k, d_k) += dK.colwise().sum().transpose();
    g.W_v.middleCols(kv * d_v, d_v) += m.keys().transpose() * dV;
    g.b_v.segment(kv * d_v, d_v) += dV.colwise().sum().transpose();
    g.keys += dK * w.W_k.transpose() + dV * w.W_v.transpose();
  }
  if (!cross) g.X += g.keys;  // self-attention: X feeds Q, K and V
  return g;
}

/// A rows-convention matrix as the scenario stores it.
Matrix in_layout(const Matrix& rows, Layout layout) {
  return layout == Layout::rows ? rows : Matrix(rows.transpose());
}

/// The gradient of one stored projection, where the scenario has the matrix.
std::optional<Matrix> stored(const std::optional<Matrix>& W, const Matrix& grad, Layout layout) {
  if (!W) return std::nullopt;
  return in_layout(grad, layout);
}
std::optional<Vector> stored(const std::optional<Vector>& b, const Vector& grad) {
  if (!b) return std::nullopt;
  return grad;
}

nlohmann::json vector_to_json(const Vector& v) {
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(v(i));
  return out;
}

void put(nlohmann::json& out, const char* key, const std::optional<Matrix>& m) {
  if (m) out[key] = matrix_to_json(*m);
}
void put(nlohmann::json& out, const char* key, const std::optional<Vector>& v) {
  if (v) out[key] = vector_to_json(*v);
}

nlohmann::json projections_to_json(const ProjectionGradients& p) {
  nlohmann::json out = nlohmann::json::object();
  put(out, "W_q", p.W_q);
  put(out, "W_k", p.W_k);
  put(out, "W_v", p.W_v);
  put(out, "b_q", p.b_q);
  put(out, "b_k", p.b_k);
  put(out, "b_v", p.b_v);
  return out;
}

}  // namespace

TraceCell trace_cell(const Model& m, Layout layout, const CellRef& ref) {
  TraceCell c;
  const std::optional<StageId> stage = ref.kv ? std::nullopt : stage_from_cell_name(ref.name, ref.head >= 0);
  if (!stage || !stage_row(*stage).target) unknown_stage(ref);
  c.stage = *stage;
  if (ref.head >= 0) {
    if (ref.head >= m.num_heads)
      throw ScenarioError(ref.text() + ": no such head (the scenario has " +
                          std::to_string(m.num_heads) + ", numbered from 0)");
    c.head = ref.head;
  }
  if (ref.index.size() != 2)
    throw ScenarioError(ref.text() + ": expected " + ref.source() + "[row][col]");
  const StageDims dims = stage_dims(m);
  const StageRow& row = stage_row(c.stage);
  const struct {
    Eigen::Index rows, cols;
  } shape{axis_size(row.rows, dims), axis_size(row.cols, dims)};  // rows convention
  const bool rows = layout == Layout::rows;
  const Eigen::Index stored_rows = rows ? shape.rows : shape.cols,
                     stored_cols = rows ? shape.cols : shape.rows;
  const long r = ref.index[0], k = ref.index[1];
  if (r < 0 || k < 0 || r >= stored_rows || k >= stored_cols)
    throw ScenarioError(ref.text() + ": no such cell in a " + shape_text(stored_rows, stored_cols) +
                        " matrix");
  c.row = rows ? r : k;
  c.col = rows ? k : r;
  return c;
}

Sensitivity sensitivity(const Scenario& s, const CellRef& of) {
  // The backward pass knows RoPE (scaled or not) and the softcap, not QK-norm's derivative.
  if (s.qk_norm) refuse("qk_norm", "sensitivity is not available with QK-norm (switch it off to differentiate)");
  const Model m = resolve(s);
  const TraceCell target = trace_cell(m, s.layout, of);
  const Trace t = compute(m, Layout::rows);
  const ModelGradients g = backward(m, t, target);

  Sensitivity out;
  out.of = of;
  out.value = *stage_value(t, target.stage, target.head, target.row, target.col);
  // The positional encoding is added to X (and Z): d/dX = d/d(X + PE).
  out.X = in_layout(g.X, s.layout);
  if (s.Z) out.Z = in_layout(g.keys, s.layout);
  const Layout L = s.layout;
  if (!s.per_head()) {
    const Projections& p = s.full;
    out.full = {stored(p.W_q, g.W_q, L), stored(p.W_k, g.W_k, L), stored(p.W_v, g.W_v, L),
                stored(p.b_q, g.b_q),    stored(p.b_k, g.b_k),    stored(p.b_v, g.b_v)};
  } else {
    const Eigen::Index d_k = m.d_k, d_v = m.d_v;
    const bool grouped = !s.kv_heads.empty();
    for (std::size_t h = 0; h < s.heads.size(); ++h) {
      const Projections& p = s.heads[h];
      const Eigen::Index q = Eigen::Index(h) * d_k;
      ProjectionGradients r;
      r.W_q = stored(p.W_q, g.W_q.middleCols(q, d_k), L);
      r.b_q = stored(p.b_q, g.b_q.segment(q, d_k));
      if (!grouped) {  // every head has its own keys and values
        r.W_k = stored(p.W_k, g.W_k.middleCols(q, d_k), L);
        r.W_v = stored(p.W_v, g.W_v.middleCols(Eigen::Index(h) * d_v, d_v), L);
        r.b_k = stored(p.b_k, g.b_k.segment(q, d_k));
        r.b_v = stored(p.b_v, g.b_v.segment(Eigen::Index(h) * d_v, d_v));
      }
      out.heads.push_back(std::move(r));
    }
    for (std::size_t kv = 0; kv < s.kv_heads.size(); ++kv) {
      const Projections& p = s.kv_heads[kv];
      const Eigen::Index k = Eigen::Index(kv) * d_k, v = Eigen::Index(kv) * d_v;
      ProjectionGradients r;
      r.W_k = stored(p.W_k, g.W_k.middleCols(k, d_k), L);
      r.W_v = stored(p.W_v, g.W_v.middleCols(v, d_v), L);
      r.b_k = stored(p.b_k, g.b_k.segment(k, d_k));
      r.b_v = stored(p.b_v, g.b_v.segment(v, d_v));
      out.kv_heads.push_back(std::move(r));
    }
  }
  if (s.W_o) out.W_o = in_layout(g.W_o, L);
  if (s.b_o) out.b_o = g.b_o;
  return out;
}

nlohmann::json sensitivity_to_json(const Sensitivity& g) {
  nlohmann::json grad = projections_to_json(g.full);
  grad["X"] = matrix_to_json(g.X);
  put(grad, "Z", g.Z);
  const auto list = [](const std::vector<ProjectionGradients>& heads) {
    nlohmann::json out = nlohmann::json::array();
    for (const ProjectionGradients& p : heads) out.push_back(projections_to_json(p));
    return out;
  };
  if (!g.heads.empty()) grad["heads"] = list(g.heads);
  if (!g.kv_heads.empty()) grad["kv_heads"] = list(g.kv_heads);
  put(grad, "W_o", g.W_o);
  put(grad, "b_o", g.b_o);
  return {{"of", g.of.text()}, {"value", g.value}, {"grad", std::move(grad)}};
}

}  // namespace attnlab
