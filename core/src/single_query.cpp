#include <limits>
#include <stdexcept>

#include "attnlab/attention.h"
#include "attnlab/positions.h"

namespace attnlab {

SingleQuery single_query(const Model& model, int head, int query) {
  if (head < 0 || head >= model.num_heads) throw std::out_of_range("single_query: head index");
  const HeadWeights w = model.head(static_cast<std::size_t>(head));
  if (query < 0 || query >= model.X->rows()) throw std::out_of_range("single_query: query index");
  SingleQuery r;
  r.q = w.W_q.transpose() * model.X->row(query).transpose() + w.b_q;  // q = W_q^T x_i + b_q
  if (model.rope) {
    // Each key turns by its own position: K is formed (n_z by d_k) and rotated.
    Matrix q_row = r.q.transpose(), q_rot(1, model.d_k);
    positional::rotate_rows(*model.rope, q_row, {model.query_positions[std::size_t(query)]}, 0, 1, q_rot);
    const Matrix K = (model.keys() * w.W_k).rowwise() + w.b_k.transpose();
    Matrix K_rot(K.rows(), K.cols());
    positional::rotate_rows(*model.rope, K, model.key_positions, 0, K.rows(), K_rot);
    r.q_rot = q_rot.row(0).transpose();
    r.scores = K_rot * r.q_rot;
  } else {
    // s_j = q . k_j with k_j = W_k^T z_j + b_k, so s = Z (W_k q) + (q . b_k) 1: no K (n_z by d_k)
    // is formed, d_z times less work than projecting every key.
    const Vector Wk_q = w.W_k * r.q;
    r.scores = (model.keys() * Wk_q).array() + r.q.dot(w.b_k);
  }
  Eigen::RowVectorXd logits = r.scores.transpose() * model.scale;
  for (Eigen::Index j = 0; j < logits.size(); ++j) {
    if (!model.slopes.empty())
      logits(j) = biased_logit(r.scores(j), model.scale, alibi_bias(model, std::size_t(head), query, j));
    if (!model.allowed(query, j)) logits(j) = -std::numeric_limits<double>::infinity();
  }
  r.weights = softmax_rows(logits).row(0).transpose();  // along the keys, max subtracted
  // sum_j a_j v_j with v_j = W_v^T z_j + b_v: W_v^T (Z^T a) + b_v sum_j a_j (0 or 1).
  const Vector Zt_a = model.keys().transpose() * r.weights;
  r.output = w.W_v.transpose() * Zt_a + w.b_v * r.weights.sum();
  if (model.is_off(std::size_t(head))) r.output.setZero();  // switched off
  return r;
}

}  // namespace attnlab
