#include "view/plane.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace attnlab::app {
namespace {

attnlab::Matrix InRows(const attnlab::Matrix& m, attnlab::Layout layout) {
  return layout == attnlab::Layout::rows ? m : attnlab::Matrix(m.transpose());
}

// The smallest of `steps` (ascending, 1 to 10) times a power of ten that is at least x.
template <std::size_t N>
double NiceCeil(double x, const double (&steps)[N]) {
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : steps)
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}
constexpr double kGridSteps[] = {1, 2, 5, 10};
constexpr double kExtents[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};  // little room wasted

bool IsIdentity(const Eigen::Block<const attnlab::Matrix>& W) {
  return W.rows() == W.cols() && W == attnlab::Matrix::Identity(W.rows(), W.cols());
}

}  // namespace

HeadVectors ScoreVectors(const attnlab::Trace& trace, std::size_t h) {
  const attnlab::HeadTrace& head = trace.heads.at(h);
  const bool rope = head.Q_rot.size() > 0;
  return {InRows(rope ? head.Q_rot : head.Q, trace.layout),
          InRows(rope ? head.K_rot : head.K, trace.layout)};
}

double ScoreOf(const attnlab::Trace& trace, std::size_t h, int i, int j) {
  const attnlab::Matrix& S = trace.heads.at(h).scores;
  return trace.layout == attnlab::Layout::rows ? S(i, j) : S(j, i);
}

double WeightOf(const attnlab::Trace& trace, std::size_t h, int i, int j) {
  const attnlab::Matrix& A = trace.heads.at(h).weights;
  return trace.layout == attnlab::Layout::rows ? A(i, j) : A(j, i);
}

PlaneProjection ProjectToPlane(const attnlab::Matrix& Q, const attnlab::Matrix& K) {
  const Eigen::Index d = Q.cols();
  attnlab::Matrix stacked(Q.rows() + K.rows(), d);
  stacked << Q, K;
  const attnlab::Matrix M = stacked.transpose() * stacked;  // d_k by d_k Gram matrix
  const double total = M.trace();
  PlaneProjection p;
  p.axes = attnlab::Matrix::Zero(d, 2);
  double lambda[2] = {0, 0};
  if (d <= 2) {
    for (Eigen::Index c = 0; c < d; ++c) {
      p.axes(c, c) = 1.0;
      lambda[c] = M(c, c);
    }
  } else {
    const Eigen::SelfAdjointEigenSolver<attnlab::Matrix> eig(M);  // eigenvalues ascending
    for (int a = 0; a < 2; ++a) {
      attnlab::Vector axis = eig.eigenvectors().col(d - 1 - a);
      Eigen::Index top = 0;
      axis.cwiseAbs().maxCoeff(&top);
      if (axis(top) < 0) axis = -axis;
      p.axes.col(a) = axis;
      lambda[a] = std::max(0.0, eig.eigenvalues()(d - 1 - a));
    }
    p.principal = true;
  }
  for (int a = 0; a < 2; ++a) p.explained[a] = total > 0 ? lambda[a] / total : 0.0;
  p.queries = Q * p.axes;
  p.keys = K * p.axes;
  return p;
}

std::string PlaneDragRefusal(const attnlab::Model& model, std::size_t h) {
  if (model.rope)
    return "Drag needs no RoPE: it turns the queries and keys away from the embeddings";
  if (model.positional_encoding)
    return "Drag needs no positional encoding: it is added to the embeddings";
  const attnlab::HeadWeights w = model.head(h);
  const bool widths = model.X->cols() == 2 && (!model.Z || model.Z->cols() == 2);
  if (!widths || !IsIdentity(w.W_q) || !IsIdentity(w.W_k) || !w.b_q.isZero(0.0) ||
      !w.b_k.isZero(0.0))
    return "Drag needs identity W_q, W_k (no biases) and d_model = 2";
  return "";
}

double PlaneExtent(const PlaneProjection& p) {
  double m = 0;
  if (p.queries.size()) m = std::max(m, p.queries.cwiseAbs().maxCoeff());
  if (p.keys.size()) m = std::max(m, p.keys.cwiseAbs().maxCoeff());
  if (!(m > 0) || !std::isfinite(m)) return 1.0;
  return NiceCeil(m * 1.15, kExtents);
}

double PlaneGridStep(double extent) {
  double step = NiceCeil(extent / 5.0, kGridSteps);
  while (extent / step < 2.0) step /= 2.0;
  return step;
}

}  // namespace attnlab::app
