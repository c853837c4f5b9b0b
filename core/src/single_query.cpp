#include <limits>
#include <stdexcept>

#include "attnlab/attention.h"
#include "attnlab/positions.h"

namespace attnlab {

namespace {

/// Every key of head h as the scores read it (normalised, turned), n_z by d_k.
Matrix scored_keys(const Model& model, const HeadWeights& w, std::size_t head) {
  Matrix K = (model.keys() * w.W_k).rowwise() + w.b_k.transpose();
  if (model.qk_norm) K = qk_normalised(model, K, false, model.kv_head(head), model.keys());
  if (!model.rope) return K;
  Matrix K_rot(K.rows(), K.cols());
  positional::rotate_rows(*model.rope, model.rope_frequencies, K, model.key_positions, 0, K.rows(), K_rot);
  return K_rot;
}

}  // namespace

SingleQuery single_query(const Model& model, int head, int query) {
  if (head < 0 || head >= model.num_heads) throw std::out_of_range("single_query: head index");
  const HeadWeights w = model.head(static_cast<std::size_t>(head));
  if (query < 0 || query >= model.X->rows()) throw std::out_of_range("single_query: query index");
  SingleQuery r;
  r.q = w.W_q.transpose() * model.X->row(query).transpose() + w.b_q;  // q = W_q^T x_i + b_q
  if (model.rope || model.qk_norm) {
    // Each key is normalised and turned on its own: K is formed (n_z by d_k).
    Matrix q_row = r.q.transpose();
    if (model.qk_norm) {
      q_row = qk_normalised(model, q_row, true, head, model.X->middleRows(query, 1));
      r.q_norm = q_row.row(0).transpose();
    }
    if (model.rope) {
      Matrix q_rot(1, model.d_k);
      positional::rotate_rows(*model.rope, model.rope_frequencies, q_row, {model.query_positions[std::size_t(query)]},
                              0, 1, q_rot);
      r.q_rot = q_rot.row(0).transpose();
    }
    r.scores = scored_keys(model, w, std::size_t(head)) * (model.rope ? r.q_rot : r.q_norm);
  } else {
    // s_j = q . k_j with k_j = W_k^T z_j + b_k, so s = Z (W_k q) + (q . b_k) 1: no K (n_z by d_k)
    // is formed, d_z times less work than projecting every key.
    const Vector Wk_q = w.W_k * r.q;
    r.scores = (model.keys() * Wk_q).array() + r.q.dot(w.b_k);
  }
  Eigen::RowVectorXd logits = r.scores.transpose() * model.scale;
  for (Eigen::Index j = 0; j < logits.size(); ++j) {
    const double bias = model.slopes.empty() ? 0.0 : alibi_bias(model, std::size_t(head), query, j);
    if (model.softcap > 0) logits(j) = softcapped_logit(r.scores(j), model.scale, model.softcap, bias);
    else if (!model.slopes.empty()) logits(j) = biased_logit(r.scores(j), model.scale, bias);
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
