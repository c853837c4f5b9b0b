// view/plane.h: the Plane panel's projection of one head's queries and keys. d_k = 2 is the
// identity; a rotated 3D example gives its known axes and variance shares; vectors lying in a
// plane keep their dot products exactly; the rows and columns layouts give the same points; and
// dragging is allowed exactly when the queries and keys are the embeddings themselves.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "attnlab/scenario.h"
#include "view/plane.h"

namespace test_plane {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::app::PlaneProjection;
using attnlab::app::ProjectToPlane;

constexpr double kTol = 1e-12;

Matrix Mat(int rows, int cols, std::initializer_list<double> v) {
  Matrix m(rows, cols);
  auto it = v.begin();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = *it++;
  return m;
}

// Self-attention over four 2D tokens, no weights given (identities).
Scenario PlaneScenario(Layout layout) {
  Scenario s;
  s.tokens = {"east", "north", "long", "west"};
  s.X = Mat(4, 2, {2, 0, 0, 2, 3, 1, -1.5, 0});
  if (layout == Layout::columns) s.X.transposeInPlace();
  s.layout = layout;
  return s;
}

TEST(PlaneView, TwoDimensionsAreTheCoordinatesThemselves) {
  const Matrix Q = Mat(2, 2, {1, 2, -3, 0.5}), K = Mat(3, 2, {0, 1, 4, -1, 2, 2});
  const PlaneProjection p = ProjectToPlane(Q, K);
  EXPECT_FALSE(p.principal);
  EXPECT_EQ(p.axes, Matrix(Matrix::Identity(2, 2)));
  EXPECT_EQ(p.queries, Q);
  EXPECT_EQ(p.keys, K);
  const double xx = 1 + 9 + 0 + 16 + 4, yy = 4 + 0.25 + 1 + 1 + 4;  // sums of squares per axis
  EXPECT_NEAR(p.explained[0], xx / (xx + yy), kTol);
  EXPECT_NEAR(p.explained[1], yy / (xx + yy), kTol);
}

TEST(PlaneView, RotatedThreeDimensionalExampleGivesItsAxesAndShares) {
  // Along x: +-2 (sum of squares 8), along y: 1, along z: 0.25; then turned by a rotation R.
  const Matrix Q0 = Mat(2, 3, {2, 0, 0, 0, 1, 0}), K0 = Mat(2, 3, {-2, 0, 0, 0, 0, 0.5});
  const Matrix R =
      (Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized())).toRotationMatrix();
  const PlaneProjection p = ProjectToPlane(Q0 * R.transpose(), K0 * R.transpose());
  EXPECT_TRUE(p.principal);
  EXPECT_NEAR(p.explained[0], 8 / 9.25, kTol);
  EXPECT_NEAR(p.explained[1], 1 / 9.25, kTol);
  // The axes are R's first two columns (R e_x, R e_y), up to sign.
  const double ax = std::abs(p.axes.col(0).dot(R.col(0))),
               ay = std::abs(p.axes.col(1).dot(R.col(1)));
  std::printf("|cos| between found and known axes: %.3g, %.3g\n", ax, ay);
  EXPECT_NEAR(ax, 1.0, 1e-10);
  EXPECT_NEAR(ay, 1.0, 1e-10);
  // Signed so that each axis's largest component is positive.
  for (int a = 0; a < 2; ++a) {
    Eigen::Index top = 0;
    p.axes.col(a).cwiseAbs().maxCoeff(&top);
    EXPECT_GT(p.axes(top, a), 0.0) << a;
  }
  // The first query lies on the first axis: (+-2, 0).
  EXPECT_NEAR(std::abs(p.queries(0, 0)), 2.0, 1e-10);
  EXPECT_NEAR(p.queries(0, 1), 0.0, 1e-10);
}

TEST(PlaneView, VectorsInAPlaneKeepTheirDotProducts) {
  // Four-dimensional vectors that all lie in the plane of two orthonormal directions u, v.
  Eigen::Vector4d u(1, 1, 1, 1), v(1, -1, 1, -1);
  u /= 2;
  v /= 2;
  const Matrix coords_q = Mat(3, 2, {1, 2, -1, 0.5, 3, -2}),
               coords_k = Mat(2, 2, {0.5, 0.5, -2, 1});
  Matrix basis(4, 2);
  basis << u, v;
  const Matrix Q = coords_q * basis.transpose(), K = coords_k * basis.transpose();
  const PlaneProjection p = ProjectToPlane(Q, K);
  EXPECT_NEAR(p.explained[0] + p.explained[1], 1.0, kTol);
  const Matrix want = Q * K.transpose(), got = p.queries * p.keys.transpose();
  const double err = (want - got).cwiseAbs().maxCoeff();
  std::printf("largest dot product error in the plane: %.3g\n", err);
  EXPECT_LT(err, 1e-12);
  EXPECT_NEAR(p.axes.col(0).dot(p.axes.col(1)), 0.0, kTol);
}

TEST(PlaneView, OneDimensionAndZerosStayDefined) {
  const PlaneProjection one = ProjectToPlane(Mat(1, 1, {2}), Mat(1, 1, {-1}));
  EXPECT_EQ(one.queries, Mat(1, 2, {2, 0}));
  EXPECT_NEAR(one.explained[0], 1.0, kTol);
  const PlaneProjection zero = ProjectToPlane(Matrix::Zero(2, 4), Matrix::Zero(2, 4));
  EXPECT_EQ(zero.explained[0], 0.0);
  EXPECT_EQ(attnlab::app::PlaneExtent(zero), 1.0);
}

TEST(PlaneView, BothLayoutsGiveTheSamePointsScoresAndWeights) {
  const attnlab::Trace rows = attnlab::compute(PlaneScenario(Layout::rows));
  const attnlab::Trace cols = attnlab::compute(PlaneScenario(Layout::columns));
  const auto a = attnlab::app::ScoreVectors(rows, 0), b = attnlab::app::ScoreVectors(cols, 0);
  EXPECT_EQ(a.Q, b.Q);
  EXPECT_EQ(a.K, b.K);
  EXPECT_EQ(a.Q, PlaneScenario(Layout::rows).X);  // identity projections: Q = X
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(attnlab::app::ScoreOf(rows, 0, i, j), a.Q.row(i).dot(a.K.row(j)), kTol);
      EXPECT_NEAR(attnlab::app::ScoreOf(cols, 0, i, j), attnlab::app::ScoreOf(rows, 0, i, j), kTol);
      EXPECT_NEAR(attnlab::app::WeightOf(cols, 0, i, j), attnlab::app::WeightOf(rows, 0, i, j),
                  kTol);
    }
}

TEST(PlaneView, DragOnlyWhenQueriesAndKeysAreTheEmbeddings) {
  using attnlab::app::PlaneDragRefusal;
  for (Layout layout : {Layout::rows, Layout::columns}) {
    Scenario s = PlaneScenario(layout);
    EXPECT_EQ(PlaneDragRefusal(attnlab::resolve(s), 0), "");
    Scenario given = s;  // an identity given explicitly is still the identity
    given.full.W_q = Matrix::Identity(2, 2);
    EXPECT_EQ(PlaneDragRefusal(attnlab::resolve(given), 0), "");
    Scenario turned = s;
    turned.full.W_k = Mat(2, 2, {0, 1, 1, 0});
    EXPECT_NE(PlaneDragRefusal(attnlab::resolve(turned), 0).find("identity W_q, W_k"),
              std::string::npos);
    Scenario biased = s;
    biased.full.b_q = attnlab::Vector::Ones(2);
    EXPECT_NE(PlaneDragRefusal(attnlab::resolve(biased), 0), "");
    Scenario rope = s;
    rope.rope = attnlab::Rope{};
    EXPECT_NE(PlaneDragRefusal(attnlab::resolve(rope), 0).find("RoPE"), std::string::npos);
  }
  Scenario wide;
  wide.X = Matrix::Ones(3, 3);
  EXPECT_NE(PlaneDragRefusal(attnlab::resolve(wide), 0).find("d_model = 2"), std::string::npos);
}

TEST(PlaneView, ExtentAndGridAreRoundNumbers) {
  PlaneProjection p;
  p.queries = Mat(1, 2, {3, 1});
  p.keys = Mat(1, 2, {-1.5, 0});
  EXPECT_EQ(attnlab::app::PlaneExtent(p), 4.0);  // 3 x 1.15 = 3.45, rounded up to 4
  p.queries(0, 0) = 0.9;
  EXPECT_DOUBLE_EQ(attnlab::app::PlaneExtent(p), 2.0);  // 1.5 x 1.15 = 1.725
  EXPECT_DOUBLE_EQ(attnlab::app::PlaneGridStep(4.0), 1.0);
  EXPECT_DOUBLE_EQ(attnlab::app::PlaneGridStep(5.0), 1.0);
  EXPECT_DOUBLE_EQ(attnlab::app::PlaneGridStep(2.0), 0.5);
  EXPECT_DOUBLE_EQ(attnlab::app::PlaneGridStep(0.1), 0.02);
}

}  // namespace

}  // namespace test_plane
