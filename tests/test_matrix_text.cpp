// Pasting matrices copied from notebooks, terminals and spreadsheets.
#include <gtest/gtest.h>

#include "attnlab/matrix_text.h"
#include "attnlab/scenario.h"

namespace test_matrix_text {

namespace {

using attnlab::Matrix;

Matrix m23(double a, double b, double c, double d, double e, double f) {
  Matrix m(2, 3);
  m << a, b, c, d, e, f;
  return m;
}

TEST(MatrixText, NumPyPrintedForm) {
  EXPECT_EQ(attnlab::parse_matrix_text("[[ 0.12 -0.87  0.33]\n [ 0.76  0.21 -0.34]]"),
            m23(0.12, -0.87, 0.33, 0.76, 0.21, -0.34));
}

TEST(MatrixText, NumPyReprWithDtypeAndTorchTensor) {
  const Matrix expected = m23(1, 0, 2, 2, 2, 2);
  EXPECT_EQ(attnlab::parse_matrix_text("array([[1., 0., 2.],\n       [2., 2., 2.]], dtype=float32)"), expected);
  EXPECT_EQ(attnlab::parse_matrix_text("tensor([[1., 0., 2.],\n        [2., 2., 2.]])"), expected);
  EXPECT_EQ(attnlab::parse_matrix_text("tensor([[ 1.0000e+00,  0.0000e+00,  2.0000e+00],\n [2, 2, 2]])"), expected);
}

TEST(MatrixText, PythonListsCsvTsvAndSpaces) {
  const Matrix expected = m23(1, 2, 3, 4, 5, 6);
  EXPECT_EQ(attnlab::parse_matrix_text("[[1, 2, 3], [4, 5, 6]]"), expected);
  EXPECT_EQ(attnlab::parse_matrix_text("1,2,3\n4,5,6\n"), expected);
  EXPECT_EQ(attnlab::parse_matrix_text("1\t2\t3\r\n4\t5\t6"), expected);
  EXPECT_EQ(attnlab::parse_matrix_text("  1 2 3\n\n 4 5 6  "), expected);
}

TEST(MatrixText, OneRow) {
  const Matrix m = attnlab::parse_matrix_text("array([ 0.4579, -1.3416,  0.3622,  0.8046])");
  ASSERT_EQ(m.rows(), 1);
  ASSERT_EQ(m.cols(), 4);
  EXPECT_EQ(m(0, 1), -1.3416);
}

std::string error_of(const std::string& text) {
  try {
    attnlab::parse_matrix_text(text);
    return "";
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
}

TEST(MatrixText, GarbageIsRefusedWithThePlace) {
  EXPECT_EQ(error_of("1 2\n3 abc"), "pasted matrix: row 2, column 2: expected a number, got \"abc\"");
  EXPECT_EQ(error_of("1 2 3\n4 5"), "pasted matrix: row 2: expected 3 numbers like row 1, got 2");
  EXPECT_EQ(error_of("   "), "pasted matrix: expected numbers, got nothing");
  EXPECT_EQ(error_of("[[1, nan]]"), "pasted matrix: row 1, column 2: expected a finite number, got nan");
  EXPECT_EQ(error_of("[[1, 1e999]]"), "pasted matrix: row 1, column 2: expected a finite number, got 1e999");
  EXPECT_EQ(error_of("[[]]"), "pasted matrix: expected numbers, got an empty row");
  EXPECT_EQ(error_of("[[1, 2]] x [[3]]"), "pasted matrix: unexpected 'x' between rows");
}

TEST(MatrixText, CsvRoundTripsToTheLastBit) {
  Matrix m(2, 2);
  m << 0.1, -1.0 / 3.0, 1e-300, 12345.678901234567;
  EXPECT_EQ(attnlab::parse_matrix_text(attnlab::matrix_to_csv(m)), m);
}

}  // namespace

}  // namespace test_matrix_text
