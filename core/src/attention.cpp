#include "attnlab/attention.h"

#include <cmath>
#include <limits>

namespace attnlab {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
constexpr double kExpUnderflow = -745.2;  // exp(x) rounds to 0 below this

/// Softmax of one row in place. Returns false when the row has no finite maximum to normalise by.
bool softmax_row_in_place(Eigen::Ref<Eigen::RowVectorXd> row) {
  const double max = row.maxCoeff();
  if (max == kMinusInfinity) {  // nothing allowed: all-zero weights
    row.setZero();
    return true;
  }
  if (std::isnan(max) || std::isinf(max)) {  // +inf or NaN scores (overflow): weights undefined
    row.setZero();
    return false;
  }
  // Eigen's vectorised exp clamps very negative inputs to ~1e-308 rather than 0; masked keys and
  // keys e^-745 below the maximum must weigh exactly 0.
  const auto shifted = (row.array() - max).eval();
  row = (shifted < kExpUnderflow).select(0.0, shifted.exp());
  row /= row.sum();
  return true;
}

/// Q = X W_q + 1 b_q^T: n by d
Matrix project(const Matrix& X, const Matrix& W, const Vector& b) {
  Matrix out(X.rows(), W.cols());
  out.noalias() = X * W;
  out.rowwise() += b.transpose();
  return out;
}

std::string head_name(std::size_t h) { return "head " + std::to_string(h + 1); }

HeadTrace compute_head(const Model& model, const HeadWeights& w, std::size_t h, std::vector<std::string>& warnings) {
  HeadTrace t;
  t.Q = project(model.X, w.W_q, w.b_q);
  t.K = project(model.Z, w.W_k, w.b_k);
  t.V = project(model.Z, w.W_v, w.b_v);
  t.scores.noalias() = t.Q * t.K.transpose();  // S = Q K^T: n_x by n_z
  t.scaled = t.scores * model.scale;
  t.masked = model.allowed.select(t.scaled, kMinusInfinity);
  t.weights = t.masked;
  for (Eigen::Index i = 0; i < t.weights.rows(); ++i)
    if (!softmax_row_in_place(t.weights.row(i)))
      warnings.push_back(head_name(h) + ": query " + model.query_labels[i] +
                         " has scores that are not finite (overflow); its weights are set to zero");
  t.output.noalias() = t.weights * t.V;  // Y = A V: n_x by d_v
  return t;
}

void warn_unattending_queries(const Model& model, std::vector<std::string>& warnings) {
  for (Eigen::Index i = 0; i < model.allowed.rows(); ++i)
    if (!model.allowed.row(i).any())
      warnings.push_back("query " + model.query_labels[i] + " (#" + std::to_string(i) +
                         ") may attend no key: its weights and head outputs are all zero");
}

void transpose_all(Trace& t) {
  auto flip = [](Matrix& m) { m = Matrix(m.transpose()); };
  for (HeadTrace& h : t.heads) {
    for (Matrix* m : {&h.Q, &h.K, &h.V, &h.scores, &h.scaled, &h.masked, &h.weights, &h.output}) flip(*m);
  }
  flip(t.concat);
  flip(t.output);
}

}  // namespace

Matrix softmax_rows(const Matrix& logits) {
  Matrix out = logits;
  for (Eigen::Index i = 0; i < out.rows(); ++i) softmax_row_in_place(out.row(i));
  return out;
}

Trace compute(const Model& model, Layout layout) {
  Trace t;
  t.layout = layout;
  warn_unattending_queries(model, t.warnings);
  const Eigen::Index d_v = model.d_v;
  t.concat.resize(model.X.rows(), d_v * static_cast<Eigen::Index>(model.heads.size()));
  for (std::size_t h = 0; h < model.heads.size(); ++h) {
    t.heads.push_back(compute_head(model, model.heads[h], h, t.warnings));
    t.concat.middleCols(static_cast<Eigen::Index>(h) * d_v, d_v) = t.heads.back().output;
  }
  if (model.has_W_o)
    t.output = project(t.concat, model.W_o, model.b_o);  // concat W_o + 1 b_o^T
  else
    t.output = t.concat;
  if (!t.output.allFinite()) t.warnings.push_back("output: some values are not finite (overflow)");
  if (layout == Layout::columns) transpose_all(t);
  return t;
}

Trace compute(const Scenario& scenario) { return compute(resolve(scenario), scenario.layout); }

SingleQuery single_query(const Model& model, int head, int query) {
  const HeadWeights& w = model.heads.at(static_cast<std::size_t>(head));
  if (query < 0 || query >= model.X.rows()) throw std::out_of_range("single_query: query index");
  SingleQuery r;
  r.q = w.W_q.transpose() * model.X.row(query).transpose() + w.b_q;  // q = W_q^T x_i + b_q
  r.K = project(model.Z, w.W_k, w.b_k);
  r.V = project(model.Z, w.W_v, w.b_v);
  r.scores = r.K * r.q;  // s_j = q . k_j
  Eigen::RowVectorXd logits = r.scores.transpose() * model.scale;
  for (Eigen::Index j = 0; j < logits.size(); ++j)
    if (!model.allowed(query, j)) logits(j) = kMinusInfinity;
  softmax_row_in_place(logits);
  r.weights = logits.transpose();
  r.output = r.V.transpose() * r.weights;  // sum_j a_j v_j
  return r;
}

}  // namespace attnlab
