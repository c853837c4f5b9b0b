// The blocked, multi-threaded, BLAS-backed compute() against a plain one-expression-per-formula
// reference written here, on shapes large enough for several row blocks, projection tasks and
// threads (the fixtures are small, so they run the serial path), with masks and cross-attention.
#include <algorithm>
#include <atomic>
#include <cmath>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/random.h"

namespace test_blocked {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Cross-attention, n_x queries against n_z keys, d_model split into `heads`, biases everywhere,
/// W_o, and a mask with causal, padding and single cells (a query that may attend nothing included).
Scenario large_scenario(int n_x, int n_z, int d, int heads) {
  attnlab::RandomSpec spec;
  spec.seed = 11;
  Scenario s;
  s.X = attnlab::random_matrix(n_x, d, spec, 1);
  s.Z = attnlab::random_matrix(n_z, d, spec, 2);
  s.full.W_q = attnlab::random_matrix(d, d, spec, 3);
  s.full.W_k = attnlab::random_matrix(d, d, spec, 4);
  s.full.W_v = attnlab::random_matrix(d, d, spec, 5);
  s.full.b_q = attnlab::random_matrix(d, 1, spec, 6).col(0);
  s.full.b_k = attnlab::random_matrix(d, 1, spec, 7).col(0);
  s.full.b_v = attnlab::random_matrix(d, 1, spec, 8).col(0);
  s.W_o = attnlab::random_matrix(d, d + 3, spec, 9);
  s.b_o = attnlab::random_matrix(d + 3, 1, spec, 10).col(0);
  s.num_heads = heads;
  s.mask.causal = true;
  s.mask.padding = {3, n_z - 1};
  Matrix cells = Matrix::Ones(n_x, n_z);
  cells(0, 0) = 0;  // query 0 may attend only key 0 (causal): now nothing
  cells(5, 0) = 0;
  cells(n_x - 1, 7) = 0;
  s.mask.cells = cells;
  return s;
}

struct Reference {
  std::vector<Matrix> scores, masked, weights, outputs;
  Matrix output;
};

/// Rows layout, straight from the formulas: Q = X W_q + b_q, S = Q K^T, S'' = S / sqrt(d_k) or -inf,
/// A = softmax by rows (0 where nothing is allowed), Y = A V, output = [Y_1 ... Y_H] W_o + b_o.
Reference reference(const Scenario& s) {
  const int H = s.num_heads, d = int(s.X.cols()), dk = d / H;
  const Matrix& Z = *s.Z;
  Reference r;
  Matrix concat(s.X.rows(), d);
  for (int h = 0; h < H; ++h) {
    const auto cols = [&](const Matrix& W) { return Matrix(W.middleCols(h * dk, dk)); };
    const Matrix Q = (s.X * cols(*s.full.W_q)).rowwise() + s.full.b_q->segment(h * dk, dk).transpose();
    const Matrix K = (Z * cols(*s.full.W_k)).rowwise() + s.full.b_k->segment(h * dk, dk).transpose();
    const Matrix V = (Z * cols(*s.full.W_v)).rowwise() + s.full.b_v->segment(h * dk, dk).transpose();
    const Matrix S = Q * K.transpose();
    Matrix M = S / std::sqrt(double(dk)), A = Matrix::Zero(S.rows(), S.cols());
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      for (Eigen::Index j = 0; j < S.cols(); ++j) {
        const bool padded = std::find(s.mask.padding.begin(), s.mask.padding.end(), j) != s.mask.padding.end();
        if (j > i || padded || (*s.mask.cells)(i, j) == 0) M(i, j) = -kInf;
      }
      const double max = M.row(i).maxCoeff();
      if (max == -kInf) continue;
      double sum = 0;
      for (Eigen::Index j = 0; j < S.cols(); ++j) sum += A(i, j) = std::exp(M(i, j) - max);
      A.row(i) /= sum;
    }
    r.scores.push_back(S);
    r.masked.push_back(M);
    r.weights.push_back(A);
    r.outputs.push_back(A * V);
    concat.middleCols(h * dk, dk) = r.outputs.back();
  }
  r.output = (concat * *s.W_o).rowwise() + s.b_o->transpose();
  return r;
}

/// Largest |a - b| / max(1, |b|), with -inf equal to -inf; inf when shapes differ or only one is -inf.
double relative_error(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return kInf;
  double worst = 0;
  for (Eigen::Index k = 0; k < a.size(); ++k) {
    const double x = a.data()[k], y = b.data()[k];
    if (x == -kInf || y == -kInf) {
      if (x != y) return kInf;
      continue;
    }
    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return worst;
}

Matrix rows_of(const Matrix& m, Layout layout) { return layout == Layout::rows ? m : Matrix(m.transpose()); }

class Blocked : public ::testing::TestWithParam<Layout> {};

TEST_P(Blocked, EveryStageMatchesThePlainReference) {
  // 700 queries: several row blocks of 128 and projection tasks; 300 keys; 4 heads of 12.
  const Scenario rows = large_scenario(700, 300, 48, 4);
  const Reference want = reference(rows);
  const Layout layout = GetParam();
  const attnlab::Trace t = attnlab::compute(attnlab::with_layout(rows, layout));
  ASSERT_EQ(t.heads.size(), 4u);
  constexpr double kTol = 1e-10;  // rounding differs (blocked BLAS products vs Eigen); a wrong cell is off by ~0.1
  for (std::size_t h = 0; h < 4; ++h) {
    EXPECT_LT(relative_error(rows_of(t.heads[h].scores, layout), want.scores[h]), kTol) << "scores " << h;
    EXPECT_LT(relative_error(rows_of(t.masked(h), layout), want.masked[h]), kTol) << "masked " << h;
    EXPECT_LT(relative_error(rows_of(t.heads[h].weights, layout), want.weights[h]), kTol) << "weights " << h;
    EXPECT_LT(relative_error(rows_of(t.heads[h].output, layout), want.outputs[h]), kTol) << "head output " << h;
  }
  EXPECT_LT(relative_error(rows_of(t.output, layout), want.output), kTol) << "output";
  EXPECT_EQ(t.warnings.size(), 1u) << "query 0 may attend nothing";
}

TEST_P(Blocked, RecomputingIntoAnOldTraceGivesTheSameBitsAsAFreshOne) {
  const Layout layout = GetParam();
  const Scenario big = attnlab::with_layout(large_scenario(700, 300, 48, 4), layout);
  attnlab::Trace reused = attnlab::compute(attnlab::with_layout(large_scenario(300, 700, 48, 2), layout));
  attnlab::compute_into(attnlab::resolve(big), layout, reused);  // other shapes, other head count
  const attnlab::Trace fresh = attnlab::compute(big);
  ASSERT_EQ(reused.heads.size(), fresh.heads.size());
  for (std::size_t h = 0; h < fresh.heads.size(); ++h) {
    EXPECT_EQ(reused.heads[h].weights, fresh.heads[h].weights);
    EXPECT_EQ(reused.heads[h].output, fresh.heads[h].output);
  }
  EXPECT_EQ(reused.output, fresh.output);
  EXPECT_EQ(reused.warnings, fresh.warnings);
}

TEST(Cancel, ACancelledComputationSaysSoAndTheTraceRecomputesExactly) {
  const attnlab::Model model = attnlab::resolve(large_scenario(400, 300, 48, 4));
  attnlab::Trace trace;
  const std::atomic<bool> cancel{true};
  EXPECT_FALSE(attnlab::compute_into(model, Layout::rows, trace, &cancel));
  const std::atomic<bool> go_on{false};
  EXPECT_TRUE(attnlab::compute_into(model, Layout::rows, trace, &go_on));
  const attnlab::Trace fresh = attnlab::compute(model, Layout::rows);
  for (std::size_t h = 0; h < fresh.heads.size(); ++h) EXPECT_EQ(trace.heads[h].weights, fresh.heads[h].weights);
  EXPECT_EQ(trace.output, fresh.output);
}

INSTANTIATE_TEST_SUITE_P(BothLayouts, Blocked, ::testing::Values(Layout::rows, Layout::columns),
                         [](const auto& info) { return std::string(attnlab::layout_name(info.param)); });

}  // namespace

}  // namespace test_blocked
