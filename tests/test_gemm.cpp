// core/src/gemm.h: the core's product (OpenBLAS, in strips where it has small-matrix kernels, or
// Eigen) against Eigen's own product, on shapes that take the strip path with a remainder (there),
// the strips themselves on any machine, and on blocks of larger matrices (a head's columns of the
// concatenation) as attention.cpp passes them; and the scores' own kernel (gemm::scores) against
// Eigen, on every remainder of its tiles, block by block, alone and as narrow products
// (gemm::multiply_narrow, B's columns packed as keys).
#include <gtest/gtest.h>

#include <array>
#include <ostream>
#include <vector>

#include "attnlab/random.h"
#include "gemm.h"  // core/src

namespace test_gemm {

namespace {

using attnlab::Matrix;

Matrix random(Eigen::Index rows, Eigen::Index cols, std::uint64_t stream) {
  attnlab::RandomSpec spec;
  spec.seed = 7;
  return attnlab::random_matrix(int(rows), int(cols), spec, stream);
}

/// Largest |difference| relative to the largest |entry| of the expected product.
double relative_error(const Matrix& got, const Matrix& want) {
  return (got - want).cwiseAbs().maxCoeff() / std::max(1.0, want.cwiseAbs().maxCoeff());
}

struct Shape {
  Eigen::Index m, k, n;
};
void PrintTo(const Shape& s, std::ostream* os) { *os << s.m << "x" << s.k << " times " << s.k << "x" << s.n; }

class Products : public ::testing::TestWithParam<Shape> {};

TEST_P(Products, MultiplyMatchesEigen) {
  const auto [m, k, n] = GetParam();
  const Matrix A = random(m, k, 1), B = random(k, n, 2);
  Matrix C = Matrix::Constant(m, n, 99.0);  // every entry must be overwritten
  attnlab::gemm::multiply(A, B, C);
  EXPECT_LT(relative_error(C, A * B), 1e-13);
}

// 1030 x 900 times 900 x 64: strips of 16 rows and a remainder of 6; 1024 x 1024 x 64: attention's
// weights times values; 61 x 7 x 5: one small product; 300 x 512 x 512: too wide for strips;
// 5 x 3000 x 70: a strip of 4 rows and one of 1.
INSTANTIATE_TEST_SUITE_P(Shapes, Products,
                         ::testing::Values(Shape{1030, 900, 64}, Shape{1024, 1024, 64}, Shape{61, 7, 5},
                                           Shape{300, 512, 512}, Shape{5, 3000, 70}));

TEST(Products, WriteOnlyTheirBlockOfALargerMatrix) {
  // A head's outputs are columns [64, 128) of the concatenation, its queries rows [100, 1130) of X.
  const Matrix X = random(1200, 900, 5), W = random(900, 64, 6);
  Matrix concat = Matrix::Constant(1030, 192, 5.0);
  attnlab::gemm::multiply(X.middleRows(100, 1030), W, concat.middleCols(64, 64));
  EXPECT_LT(relative_error(concat.middleCols(64, 64), X.middleRows(100, 1030) * W), 1e-13);
  EXPECT_TRUE((concat.leftCols(64).array() == 5.0).all());
  EXPECT_TRUE((concat.rightCols(64).array() == 5.0).all());
}

TEST(Products, InStripsWithARemainderMatchEigen) {
  // The strip path (AVX-512 OpenBLAS only, so not taken by multiply() on every machine): strips of
  // 16 rows and a last one of 6; of 4 rows and one of 1; one strip longer than C.
  const std::array<std::array<Eigen::Index, 4>, 3> shapes{{{1030, 900, 64, 16}, {5, 3000, 70, 4}, {3, 8, 5, 16}}};
  for (const auto& [m, k, n, rows] : shapes) {
    const Matrix A = random(m, k, 1), B = random(k, n, 2);
    Matrix C = Matrix::Constant(m, n, 99.0);
    attnlab::gemm::multiply_in_strips(A, B, C, rows);
    EXPECT_LT(relative_error(C, A * B), 1e-13) << m << "x" << k << "x" << n << " in strips of " << rows;
  }
}

TEST(Products, StripsOnlyWhereOpenBlasHasSmallMatrixKernels) {
  EXPECT_TRUE(attnlab::gemm::has_small_kernels("SkylakeX"));
  EXPECT_TRUE(attnlab::gemm::has_small_kernels("Cooperlake"));
  EXPECT_FALSE(attnlab::gemm::has_small_kernels("Zen"));  // AMD EPYC, AVX2: packed products
  EXPECT_FALSE(attnlab::gemm::has_small_kernels("Haswell"));
  EXPECT_FALSE(attnlab::gemm::has_small_kernels(nullptr));
}

TEST(Products, EmptyInnerDimensionGivesZeros) {
  const Matrix A(40, 0), B(0, 9);
  Matrix C = Matrix::Constant(40, 9, 3.0);
  attnlab::gemm::multiply(A, B, C);
  EXPECT_TRUE((C.array() == 0.0).all());
}

/// S = Q K^T through gemm::scores(), K packed in row blocks of `pack_rows` (as the projections do).
Matrix scores_of(const Matrix& Q, const Matrix& K, Eigen::Index pack_rows) {
  attnlab::gemm::PackedKeys packed;
  packed.resize(K.rows(), K.cols());
  for (Eigen::Index r = 0; r < K.rows(); r += pack_rows)
    attnlab::gemm::pack_keys(K, r, std::min(pack_rows, K.rows() - r), packed);
  Matrix S = Matrix::Constant(Q.rows(), K.rows(), 99.0);  // every entry must be overwritten
  attnlab::gemm::scores(Q, packed, S);
  return S;
}

TEST(Scores, MatchEigenOnEveryRemainder) {
  // Rows in tiles of 6 and a remainder of 0 to 5; keys in panels of 8 and a remainder of 0 to 7;
  // depths from 1 (a head of one number) to 65.
  for (const auto& [m, n, d] : std::vector<std::array<Eigen::Index, 3>>{
           {1, 1, 1}, {6, 8, 4}, {7, 9, 3}, {11, 13, 64}, {128, 1024, 64}, {5, 31, 65}, {64, 64, 16}, {3, 4, 0}}) {
    const Matrix Q = random(m, d, 1), K = random(n, d, 2);
    EXPECT_LT(relative_error(scores_of(Q, K, 16), Q * K.transpose()), 1e-13) << m << " queries, " << n << " keys, depth " << d;
  }
}

TEST(Scores, ABlockOfRowsHasTheBitsOfTheWhole) {
  // The window recomputes only the query blocks an edit touched; each must equal the whole product
  // bit for bit, however K was packed and wherever the block starts.
  const Matrix Q = random(100, 24, 3), K = random(45, 24, 4);
  const Matrix whole = scores_of(Q, K, 45);
  for (const auto& [r, len] : std::vector<std::array<Eigen::Index, 2>>{{0, 1}, {3, 7}, {50, 50}, {99, 1}}) {
    attnlab::gemm::PackedKeys packed;
    packed.resize(K.rows(), K.cols());
    for (Eigen::Index k = 0; k < K.rows(); k += 7) attnlab::gemm::pack_keys(K, k, std::min<Eigen::Index>(7, K.rows() - k), packed);
    Matrix block(len, K.rows());
    attnlab::gemm::scores(Q.middleRows(r, len), packed, block);
    EXPECT_TRUE((block.array() == whole.middleRows(r, len).array()).all()) << "rows " << r << " to " << r + len;
  }
}

TEST(Scores, WriteOnlyTheirBlockOfALargerMatrix) {
  // A block of query rows of a head's scores, read from a block of Q's rows, as attention.cpp does.
  const Matrix Q = random(40, 16, 5), K = random(21, 16, 6);
  Matrix S = Matrix::Constant(40, 21, 5.0);
  attnlab::gemm::PackedKeys packed;
  packed.resize(K.rows(), K.cols());
  attnlab::gemm::pack_keys(K, 0, K.rows(), packed);
  attnlab::gemm::scores(Q.middleRows(10, 13), packed, S.middleRows(10, 13));
  EXPECT_LT(relative_error(S.middleRows(10, 13), Q.middleRows(10, 13) * K.transpose()), 1e-13);
  EXPECT_TRUE((S.topRows(10).array() == 5.0).all());
  EXPECT_TRUE((S.bottomRows(17).array() == 5.0).all());
}

TEST(NarrowProducts, MatchEigenOnEveryRemainder) {
  // A B through the scores' kernel, B's columns packed: rows in tiles of 6 and the last 1 to 5, B's
  // columns in panels of 8 and the last 1 to 7, as one head's projection (64 x 64 times 64 x 16),
  // A V, a preset's 3 x 4 times 4 x 2, and a depth of 0.
  for (const auto& [m, k, n] : std::vector<std::array<Eigen::Index, 3>>{
           {64, 64, 16}, {7, 9, 3}, {11, 65, 64}, {16, 64, 13}, {3, 4, 2}, {1, 1, 1}, {10, 0, 9}, {29, 128, 57}}) {
    const Matrix A = random(m, k, 11), B = random(k, n, 12);
    Matrix C = Matrix::Constant(m, n, 99.0);  // every entry must be overwritten
    attnlab::gemm::multiply_narrow(A, B, C);
    EXPECT_LT(relative_error(C, A * B), 1e-13) << m << "x" << k << " times " << k << "x" << n;
  }
}

TEST(NarrowProducts, ABlockOfRowsHasTheBitsOfTheWhole) {
  // A head's queries recomputed for the rows an edit touched, or a block of the output projection's
  // rows from a W_o packed once, must equal the whole product bit for bit.
  const Matrix A = random(50, 40, 13), B = random(40, 24, 14);
  Matrix whole(50, 24);
  attnlab::gemm::multiply_narrow(A, B, whole);
  attnlab::gemm::PackedKeys packed;
  attnlab::gemm::pack_columns(B, packed);
  for (const auto& [r, len] : std::vector<std::array<Eigen::Index, 2>>{{0, 1}, {3, 7}, {20, 16}, {49, 1}}) {
    Matrix alone(len, 24), from_packed(len, 24);
    attnlab::gemm::multiply_narrow(A.middleRows(r, len), B, alone);
    attnlab::gemm::scores(A.middleRows(r, len), packed, from_packed);
    EXPECT_TRUE((alone.array() == whole.middleRows(r, len).array()).all()) << "rows " << r << " to " << r + len;
    EXPECT_TRUE((from_packed.array() == whole.middleRows(r, len).array()).all()) << "rows " << r << " to " << r + len;
  }
}

TEST(NarrowProducts, ReadAHeadsColumnsOfALargerMatrix) {
  // A head's block of W_q (columns [16, 32) of 64) into its block of a larger Q.
  const Matrix X = random(30, 64, 15), W = random(64, 64, 16);
  Matrix Q = Matrix::Constant(40, 20, 5.0);
  attnlab::gemm::multiply_narrow(X, W.middleCols(16, 16), Q.block(5, 2, 30, 16));
  EXPECT_LT(relative_error(Q.block(5, 2, 30, 16), X * W.middleCols(16, 16)), 1e-13);
  Q.block(5, 2, 30, 16).setConstant(5.0);
  EXPECT_TRUE((Q.array() == 5.0).all()) << "wrote outside its block";
}

}  // namespace

}  // namespace test_gemm
