#include "attnlab/scenario.h"

namespace attnlab {

namespace {
bool tokens_are_rows(Layout layout) { return layout == Layout::rows; }
int token_count(const Matrix& m, Layout layout) {
  return static_cast<int>(tokens_are_rows(layout) ? m.rows() : m.cols());
}
int width(const Matrix& m, Layout layout) {
  return static_cast<int>(tokens_are_rows(layout) ? m.cols() : m.rows());
}
}  // namespace

int Scenario::n_x() const { return token_count(X, layout); }
int Scenario::d_x() const { return width(X, layout); }
int Scenario::n_z() const { return Z ? token_count(*Z, layout) : n_x(); }
int Scenario::d_z() const { return Z ? width(*Z, layout) : d_x(); }

}  // namespace attnlab
